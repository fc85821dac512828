import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseMessagingAsset,
  parseMessagingAssetSafely,
  summariseGdsnMessage,
} from '../../packages/bridge/src/xml/index.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const fixture = (name: string): string => readFileSync(path.join(fixtures, name), 'utf8');
const summarise = (name: string) => summariseGdsnMessage(parseMessagingAsset(fixture(name)));

describe('summariseGdsnMessage: responses of data pools and the Global Registry', () => {
  it('summarises an accepted 3.1 GS1 Response as no refusal, with the message it answers', () => {
    // act
    const gdsn = summarise('gs1-response-3.1-accepted.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'gs1Response',
      gdsnVersion: '3.1',
      status: 'ACCEPTED',
      originalMessageIdentifier: 'CIN-2026-008812',
      refusal: false,
      senderGln: '0614141000029',
      errors: [],
      items: [],
    });
  });

  it('lists every error of a 3.1 GS1 Response with its code, text, level and what it refers to', () => {
    // act
    const gdsn = summarise('gs1-response-3.1-exceptions.xml');

    // assess
    expect(gdsn?.refusal).toBe(true);
    expect(gdsn?.status).toBe('REJECTED');
    expect(gdsn?.errors).toEqual([
      {
        code: 'GDSN.1001',
        description: 'Duplicate InstanceIdentifier: CIN-2026-008813 was already received on 2026-11-26.',
        languageCode: 'en',
        level: 'message',
      },
      {
        code: 'GDSN.1091',
        description:
          'GTIN 00614141123520 already exists for information provider 0614141000012 in target market 276.',
        languageCode: 'en',
        level: 'document',
        transactionIdentifier: 'TX-008813',
        commandIdentifier: 'DC-008813',
        documentIdentifier: 'CINID-008813',
        gtins: ['00614141123520'],
      },
      {
        code: 'GDSN.0503',
        description: 'netContent must be greater than 0.',
        languageCode: 'en',
        level: 'attribute',
        transactionIdentifier: 'TX-008813',
        commandIdentifier: 'DC-008813',
        documentIdentifier: 'CINID-008813',
      },
    ]);
    expect(gdsn?.items).toEqual([{ gtin: '00614141123520' }]);
  });

  it('reads a 2.8 GDSNResponse: status and codes as attributes, a description nested with its language', () => {
    // act
    const gdsn = summarise('gdsn-response-2.8-exceptions.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'gs1Response',
      gdsnVersion: '2.8',
      status: 'ERROR',
      refusal: true,
      originalMessageIdentifier: 'CIN28-0555',
      creationDateTime: '2026-11-27T07:59:00.000Z',
    });
    expect(
      gdsn?.errors?.map((error) => [error.code, error.level, error.description, error.documentIdentifier]),
    ).toEqual([
      ['1001', 'message', 'Duplicate message identification.', undefined],
      ['1091', 'document', 'GTIN 00614141123537 already exists.', 'CIN28DOC-0555'],
    ]);
    expect(gdsn?.errors?.[1]?.languageCode).toBe('en');
  });

  it('summarises registration responses, accepted and refused, in both versions', () => {
    // act
    const accepted = summarise('cirr-3.1-accepted.xml');
    const rejected = summarise('cirr-3.1-rejected.xml');
    const rejected28 = summarise('cirr-2.8-rejected.xml');

    // assess
    expect(accepted).toMatchObject({
      refusal: false,
      status: 'ACCEPTED',
      items: [{ gtin: '00614141123544' }],
    });
    expect(rejected).toMatchObject({
      refusal: true,
      gdsnVersion: '3.1',
      errors: [{ code: 'GR.3010', description: 'GPC brick code 10000000 is not valid.' }],
      items: [{ gtin: '00614141123551', targetMarketCountryCode: '276', status: 'REJECTED' }],
    });
    expect(rejected28).toMatchObject({
      refusal: true,
      gdsnVersion: '2.8',
      creationDateTime: '2026-11-27T09:58:00.000Z',
      items: [
        { gtin: '00614141123568', targetMarketCountryCode: '250', informationProvider: '0614141000012' },
      ],
    });
  });
});

describe('summariseGdsnMessage: what recipients send and receive', () => {
  it('reads a 3.1 resend request with isReload as an element', () => {
    // act
    const gdsn = summarise('rfcin-3.1-reload.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'requestForCatalogueItemNotification',
      gdsnVersion: '3.1',
      isReload: true,
      recipientGln: '0614141000043',
      items: [
        { gtin: '00614141123452', targetMarketCountryCode: '276', informationProvider: '0614141000012' },
      ],
    });
  });

  it('reads a 2.8 resend request with isReload as an attribute', () => {
    // act
    const gdsn = summarise('rfcin-2.8-resend.xml');

    // assess
    expect(gdsn).toMatchObject({
      gdsnVersion: '2.8',
      isReload: false,
      recipientGln: '0614141000043',
      items: [{ gtin: '00614141123476', targetMarketCountryCode: '250' }],
    });
  });

  it('reads hierarchical withdrawals with their reason, element (3.1) or attribute (2.8)', () => {
    // act
    const withdrawal = summarise('cihw-3.1.xml');
    const withdrawal28 = summarise('cihw-2.8.xml');

    // assess
    expect(withdrawal?.items).toEqual([
      {
        gtin: '00614141123469',
        informationProvider: '0614141000012',
        targetMarketCountryCode: '528',
        recipientGln: '0614141000043',
        reasonCode: 'PUBLICATION_WITHDRAWAL',
      },
    ]);
    expect(withdrawal28).toMatchObject({
      messageType: 'catalogueItemHierarchicalWithdrawal',
      gdsnVersion: '2.8',
      items: [{ gtin: '00614141123476', reasonCode: 'DELIST', targetMarketCountryCode: '250' }],
    });
  });

  it("reads a 3.1 notification's identity and hierarchy: the case and the unit it holds", () => {
    // act
    const gdsn = summarise('cin-3.1-hierarchy.xml');

    // assess
    expect(gdsn?.items).toEqual([
      {
        gtin: '00614141123482',
        informationProvider: '0614141000012',
        targetMarketCountryCode: '276',
        recipientGln: '0614141000043',
        documentCommand: 'CHANGE_BY_REFRESH',
        isReload: false,
        childGtins: ['00614141123475'],
      },
      {
        gtin: '00614141123475',
        informationProvider: '0614141000012',
        targetMarketCountryCode: '276',
        recipientGln: '0614141000043',
        documentCommand: 'CHANGE_BY_REFRESH',
        isReload: false,
      },
    ]);
  });

  it('reads a 2.8 notification: nested identification, provider and market, isReload attribute', () => {
    // act
    const gdsn = summarise('cin-2.8.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'catalogueItemNotification',
      gdsnVersion: '2.8',
      creationDateTime: '2026-11-28T10:58:00.000Z',
      items: [
        {
          gtin: '00614141123499',
          informationProvider: '0614141000012',
          targetMarketCountryCode: '250',
          documentCommand: 'ADD',
          isReload: true,
        },
      ],
    });
  });

  it('summarises confirmations as their items and states, in both versions', () => {
    // act
    const two = summarise('cic-3.1-bom-crlf-two-items.xml');
    const old = summarise('cic-2.8-message.xml');

    // assess
    expect(two?.items.map((item) => [item.gtin, item.status])).toEqual([
      ['00614141123490', 'SYNCHRONISED'],
      ['00614141123506', 'REJECTED'],
    ]);
    expect(old).toMatchObject({ gdsnVersion: '2.8', creationDateTime: '2026-06-20T14:30:00.000Z' });
  });

  it('leaves a document of another type without a summary', () => {
    // act
    const gdsn = summariseGdsnMessage(parseMessagingAsset('<order xmlns="urn:x"><id>1</id></order>'));

    // assess
    expect(gdsn).toBeUndefined();
  });

  it('summarises every fixture of the folder but the one with bytes after its root', () => {
    // arrange
    const names = readdirSync(fixtures).filter((name) => name.endsWith('.xml'));

    // act
    const summaries = names.map((name) => [name, parseMessagingAssetSafely(fixture(name))] as const);

    // assess
    expect(names.length).toBeGreaterThanOrEqual(16);
    for (const [name, result] of summaries) {
      if (name === 'cic-3.1-trailing-bytes.xml') expect(result.ok).toBe(false);
      else expect(result.ok && result.gdsn?.messageType, name).toBeTruthy();
    }
  });
});

describe('bytes after the root element', () => {
  it('refuses the document as MALFORMED, naming where the stray bytes start', () => {
    // act
    const result = parseMessagingAssetSafely(fixture('cic-3.1-trailing-bytes.xml'));

    // assess
    expect(result).toMatchObject({ ok: false, error: { code: 'MALFORMED' } });
    expect(result.ok ? '' : result.error.message).toMatch(/Extra text at the end/);
  });
});
