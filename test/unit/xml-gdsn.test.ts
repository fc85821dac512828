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
  it('reads a 3.1 GS1 Response status per transaction: an accepted one is no refusal', () => {
    // act
    const gdsn = summarise('gs1-response-3.1-accepted.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'gs1Response',
      gdsnVersion: '3.1',
      status: 'ACCEPTED',
      transactions: [
        {
          transactionIdentifier: 'TX-008812',
          status: 'ACCEPTED',
          originalMessageIdentifier: 'CIN-2026-008812',
        },
      ],
      originalMessageIdentifier: 'CIN-2026-008812',
      refusal: false,
      senderGln: '0614141000029',
      errors: [],
      items: [],
    });
  });

  it('reads a REJECTED transaction and every error of a 3.1 GS1 Response: code, time, text, level, what it refers to', () => {
    // act
    const gdsn = summarise('gs1-response-3.1-exceptions.xml');

    // assess
    expect(gdsn?.refusal).toBe(true);
    expect(gdsn?.status).toBe('REJECTED');
    expect(gdsn?.transactions).toEqual([
      {
        transactionIdentifier: 'TX-008813',
        status: 'REJECTED',
        originalMessageIdentifier: 'CIN-2026-008813',
      },
    ]);
    const context = { originalMessageIdentifier: 'CIN-2026-008813', exceptionMessageType: 'GDSN' };
    const refused = {
      transactionIdentifier: 'TX-008813',
      commandIdentifier: 'DC-008813',
      documentIdentifier: 'CINID-008813',
    };
    expect(gdsn?.errors).toEqual([
      {
        code: 'GDSN.1001',
        description: 'Duplicate InstanceIdentifier: CIN-2026-008813 was already received on 2026-11-26.',
        languageCode: 'en',
        errorDateTime: '2026-11-27T07:09:58.000Z',
        level: 'message',
        ...context,
      },
      {
        code: 'GDSN.1091',
        description:
          'GTIN 00614141123520 already exists for information provider 0614141000012 in target market 276.',
        languageCode: 'en',
        errorDateTime: '2026-11-27T07:09:59.000Z',
        level: 'document',
        ...context,
        ...refused,
        gtins: ['00614141123520'],
      },
      {
        code: 'GDSN.0503',
        description: 'netContent must be greater than 0.',
        languageCode: 'en',
        errorDateTime: '2026-11-27T07:09:59.000Z',
        level: 'attribute',
        ...context,
        ...refused,
        attributeName: 'netContent',
        attributeValue: '0',
        xPath: expect.stringMatching(/\/tradeItemMeasurements\/netContent$/),
      },
    ]);
    expect(gdsn?.items).toEqual([{ gtin: '00614141123520' }]);
  });

  it('reads every gS1Response of a message, each transaction with its status, errors at every level', () => {
    // act
    const gdsn = summarise('gs1-response-3.1-several-responses.xml');

    // assess
    expect(
      gdsn?.transactions?.map((one) => [
        one.originalMessageIdentifier,
        one.transactionIdentifier,
        one.status,
      ]),
    ).toEqual([
      ['CIN-2026-008814', 'TX-008814-1', 'ACCEPTED'],
      ['CIN-2026-008814', 'TX-008814-2', 'REJECTED'],
      ['CIN-2026-008815', 'TX-008815', 'ACCEPTED'],
    ]);
    expect(gdsn).toMatchObject({ status: 'REJECTED', refusal: true });
    expect(gdsn?.errors?.map((error) => [error.level, error.code])).toEqual([
      ['transaction', 'GDSN.1002'],
      ['command', 'GDSN.1003'],
      ['document', 'GDSN.1091'],
      ['attribute', 'GDSN.0420'],
    ]);
    expect(gdsn?.errors?.[3]).toMatchObject({
      attributeName: 'gtin',
      attributeValue: '00614141123544',
      gtins: ['00614141123544'],
    });
    expect(gdsn?.items).toEqual([{ gtin: '00614141123537' }, { gtin: '00614141123544' }]);
  });

  it('reads a 2.8 gDSNException written directly in the message, the message answered from the header', () => {
    // act
    const gdsn = summarise('gdsn-response-2.8-exceptions.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'gs1Response',
      gdsnVersion: '2.8',
      refusal: true,
      originalMessageIdentifier: 'CIN28-0555',
      senderGln: '0614141000029',
    });
    expect(
      gdsn?.errors?.map((error) => [
        error.code,
        error.level,
        error.description,
        error.errorDateTime,
        error.documentIdentifier,
      ]),
    ).toEqual([
      ['1001', 'message', 'Duplicate message identification.', '2026-11-27T07:59:00.000Z', undefined],
      [
        '1091',
        'document',
        'GTIN 00614141123537 already exists.',
        '2026-11-27T07:59:00.000Z',
        'CIN28DOC-0555',
      ],
    ]);
    expect(gdsn?.items).toEqual([{ gtin: '00614141123537' }]);
  });

  it('reads a 2.8 eANUCCResponse acceptance written directly in the message', () => {
    // act
    const gdsn = summarise('gdsn-response-2.8-accepted.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'gs1Response',
      gdsnVersion: '2.8',
      status: 'ACCEPTED',
      refusal: false,
      originalMessageIdentifier: 'CIN28-0556',
      items: [],
    });
  });

  it('reads 2.8 gDSNError codes, texts and times written as attributes too', () => {
    // arrange
    const xml = fixture('gdsn-response-2.8-exceptions.xml').replace(
      /<gDSNError>\s*<errorCode>1001<\/errorCode>.*?<\/gDSNError>/s,
      '<gDSNError errorCode="1001" errorDescription="Duplicate message identification." errorDateTime="2026-11-27T07:59:00.000Z"/>',
    );

    // act
    const gdsn = summariseGdsnMessage(parseMessagingAsset(xml));

    // assess
    expect(gdsn?.errors?.[0]).toMatchObject({
      code: '1001',
      description: 'Duplicate message identification.',
      errorDateTime: '2026-11-27T07:59:00.000Z',
    });
  });

  it('summarises registration responses, accepted and refused, with their registration times, in both versions', () => {
    // act
    const accepted = summarise('cirr-3.1-accepted.xml');
    const rejected = summarise('cirr-3.1-rejected.xml');
    const rejected28 = summarise('cirr-2.8-rejected.xml');

    // assess
    expect(accepted).toMatchObject({
      refusal: false,
      status: 'ACCEPTED',
      items: [
        {
          gtin: '00614141123544',
          registrationDateTime: '2026-11-20T12:00:00.000Z',
          lastChangedDateTime: '2026-11-27T08:59:20.000Z',
        },
      ],
    });
    expect(rejected).toMatchObject({
      refusal: true,
      gdsnVersion: '3.1',
      status: 'REJECTED',
      items: [{ gtin: '00614141123551', targetMarketCountryCode: '276', status: 'REJECTED' }],
    });
    expect(rejected28).toMatchObject({
      refusal: true,
      gdsnVersion: '2.8',
      items: [
        {
          gtin: '00614141123568',
          targetMarketCountryCode: '250',
          informationProvider: '0614141000012',
          registrationDateTime: '2026-11-20T12:00:00.000Z',
          lastChangedDateTime: '2026-11-27T09:58:00.000Z',
        },
      ],
    });
  });

  it('keeps the header sender as senderGln and who wrote the content apart, as messageCreatorGln', () => {
    // act
    const confirmation = summarise('cic-3.1-warning.xml');
    const withdrawal = summarise('cihw-3.1.xml');
    const response = summarise('gs1-response-3.1-accepted.xml');

    // assess
    expect(confirmation).toMatchObject({ senderGln: '0614141000005', messageCreatorGln: '0614141000029' });
    expect(withdrawal).toMatchObject({ senderGln: '0614141000036', messageCreatorGln: '0614141000012' });
    expect(response?.senderGln).toBe('0614141000029');
    expect(response?.messageCreatorGln).toBeUndefined();
    const headless = summariseGdsnMessage(
      parseMessagingAsset(fixture('cihw-3.1.xml').replace(/<sh:Sender>.*<\/sh:Sender>/, '')),
    );
    expect(headless?.senderGln).toBeUndefined();
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

  it('reads a 2.8 resend request: the GTIN written gTIN, isReload as an attribute, the recipient data pool', () => {
    // act
    const gdsn = summarise('rfcin-2.8-resend.xml');

    // assess
    expect(gdsn).toMatchObject({
      gdsnVersion: '2.8',
      isReload: false,
      recipientGln: '0614141000043',
      recipientDataPool: '0614141000036',
      items: [{ gtin: '00614141123476', targetMarketCountryCode: '250' }],
    });
  });

  it('reads a request for a GPC category as naming no item, with its category and reload reason', () => {
    // act
    const gdsn = summarise('rfcin-3.1-gpc-category.xml');

    // assess
    expect(gdsn).toMatchObject({
      messageType: 'requestForCatalogueItemNotification',
      isReload: true,
      isReloadReasonCode: 'DATA_LOSS',
      gpcCategoryCode: '10000028',
      informationProvider: '0614141000012',
      recipientGln: '0614141000043',
      targetMarketCountryCode: '276',
      items: [],
    });
  });

  it('reads a hierarchical withdrawal with its recipient and reason', () => {
    // act
    const withdrawal = summarise('cihw-3.1.xml');

    // assess
    expect(withdrawal?.items).toEqual([
      {
        gtin: '00614141123469',
        informationProvider: '0614141000012',
        targetMarketCountryCode: '528',
        recipientGln: '0614141000043',
        recipientGlns: ['0614141000043'],
        reasonCode: 'PUBLICATION_WITHDRAWAL',
      },
    ]);
  });

  it('reads a withdrawal to several recipients with the state, cancel time, reason text and source data pool', () => {
    // act
    const withdrawal = summarise('cihw-3.1-several-recipients.xml');

    // assess
    expect(withdrawal?.items).toEqual([
      {
        gtin: '00614141123469',
        informationProvider: '0614141000012',
        targetMarketCountryCode: '528',
        recipientGln: '0614141000043',
        recipientGlns: ['0614141000043', '0614141000050', '0614141000067'],
        sourceDataPool: '0614141000036',
        reasonCode: 'PUBLICATION_WITHDRAWAL',
        reasonDescription: 'Listing ends with the 2026 range review.',
        stateCode: 'CANCELED',
        cancelDateTime: '2026-12-31T00:00:00.000Z',
      },
    ]);
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
        sourceDataPool: '0614141000029',
        stateCode: 'REGISTERED',
        discontinueDateTime: '2027-06-30T00:00:00.000Z',
        documentCommand: 'CHANGE_BY_REFRESH',
        isReload: false,
        childGtins: ['00614141123475'],
        childItems: [{ gtin: '00614141123475', quantity: '6' }],
      },
      {
        gtin: '00614141123475',
        informationProvider: '0614141000012',
        targetMarketCountryCode: '276',
        recipientGln: '0614141000043',
        stateCode: 'REGISTERED',
        documentCommand: 'CHANGE_BY_REFRESH',
        isReload: false,
      },
    ]);
  });

  it('reads a 2.8 notification: nested identification, provider and market, state and child quantity as written in 2.8', () => {
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
          stateCode: 'IN_PROGRESS',
          discontinueDateTime: '2027-01-31T00:00:00',
          documentCommand: 'ADD',
          isReload: true,
          childItems: [{ gtin: '00614141123505', quantity: '12' }],
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
    expect(names.length).toBeGreaterThanOrEqual(22);
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
