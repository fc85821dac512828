/**
 * The caps of a GDSN summary (packages/bridge/src/xml/gdsn/caps.ts, docs/events.md): whatever a
 * partner writes, every list and text of a summary stays within its cap, what is left out is
 * counted in `truncated`, and the summary grows no faster than the message.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataSchemaUri } from '../../packages/bridge/src/events/dataschema.ts';
import { serializeEvent } from '../../packages/bridge/src/events/index.ts';
import { messagingAssetEvent } from '../../packages/bridge/src/polling/events.ts';
import { pollMessagingAssets } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { GDSN_SUMMARY_CAPS } from '../../packages/bridge/src/xml/gdsn/caps.ts';
import {
  type GdsnMessageSummary,
  parseMessagingAsset,
  parseMessagingAssetSafely,
  summariseGdsnMessage,
} from '../../packages/bridge/src/xml/index.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { gs1Response } from '../helpers/gs1-responses.ts';
import { eventSchemaValidator } from '../helpers/json-schema.ts';
import { holds, withinTimeBudget } from '../helpers/property.ts';

const root = path.resolve(import.meta.dirname, '../..');
const fixtures = path.join(root, 'test/fixtures/gdsn');
const asset = { id: 7001, createdAt: Date.parse('2026-11-27T07:10:00.000Z'), contentType: 'application/xml' };

/** The response that stopped the poller (issue 38): 1,000 errors over 1,000 GTINs in one document exception, about 223 KiB. */
const nByN = () =>
  gs1Response({
    responses: 1,
    transactions: 1,
    errors: 1000,
    errorsPerDocument: 1000,
    gtinElementsPerException: 1000,
    descriptionLength: 40,
  });

/** Every list of a summary is within its cap. */
function expectWithinCaps(gdsn: GdsnMessageSummary): void {
  expect(gdsn.items.length).toBeLessThanOrEqual(GDSN_SUMMARY_CAPS.items);
  expect(gdsn.errors?.length ?? 0).toBeLessThanOrEqual(GDSN_SUMMARY_CAPS.errors);
  expect(gdsn.transactions?.length ?? 0).toBeLessThanOrEqual(GDSN_SUMMARY_CAPS.transactions);
  for (const error of gdsn.errors ?? []) {
    expect(error.gtins?.length ?? 0).toBeLessThanOrEqual(GDSN_SUMMARY_CAPS.gtinsPerError);
    expect(error.description?.length ?? 0).toBeLessThanOrEqual(GDSN_SUMMARY_CAPS.text + 60);
  }
}

describe('the caps of a GDSN summary', () => {
  it('summarises a 223 KiB response of N errors over N GTINs within its caps, each GTIN once (no N×N)', () => {
    // arrange: one document exception with 1,000 errors and 1,000 GTIN elements, about 223 KiB
    const xml = nByN();
    expect(xml.length).toBeGreaterThan(200 * 1024);
    expect(xml.length).toBeLessThan(260 * 1024);

    // act
    const event = messagingAssetEvent(asset, xml);
    const body = serializeEvent(event);

    // assess: the refused GTINs listed once, the errors capped with the rest counted, the event small
    const gdsn = event.data.gdsn as GdsnMessageSummary;
    expectWithinCaps(gdsn);
    expect(gdsn.refusal).toBe(true);
    expect(gdsn.errors).toHaveLength(GDSN_SUMMARY_CAPS.errors);
    expect(gdsn.truncated?.errors).toBe(1000 - GDSN_SUMMARY_CAPS.errors);
    expect(gdsn.errors?.every((error) => (error.gtins?.length ?? 0) <= 1)).toBe(true);
    expect(new Set(gdsn.items.map((item) => item.gtin)).size).toBe(gdsn.items.length);
    expect(gdsn.items).toHaveLength(GDSN_SUMMARY_CAPS.items);
    expect(gdsn.truncated?.items).toBe(2001 - GDSN_SUMMARY_CAPS.items); // 1,000 elements, 1,001 in the errors
    expect(JSON.stringify(gdsn).length).toBeLessThan(256 * 1024);
    expect(body.length).toBeLessThan(3 * xml.length);
  });

  it('lets the poller publish the N×N response as one small event and go on to the next asset', async () => {
    // arrange
    const pds = new FakePds();
    const refusal = pds.addAsset(nByN());
    const next = pds.addAsset(readFileSync(path.join(fixtures, 'cic-3.1-synchronised.xml'), 'utf8'));
    const sink = new RecordingSink();

    // act
    const report = await pollMessagingAssets(
      { pds, store: new MemoryStateStore(), sink },
      { firstRun: 'backlog' },
    );

    // assess
    expect(report.emitted).toBe(2);
    const published = sink.dataOf('pds.messaging-asset.received');
    expect(published.map((data) => data.messagingAssetId)).toEqual([refusal, next]);
    expect(published[0]?.gdsn?.truncated?.errors).toBe(800);
    expect(JSON.stringify(published[0]?.gdsn).length).toBeLessThan(128 * 1024);
  });

  it('cuts a text longer than 1,000 characters, says so, and counts it', () => {
    // arrange
    const xml = gs1Response({ responses: 1, transactions: 0, errors: 1, descriptionLength: 5000 });

    // act
    const gdsn = summariseGdsnMessage(parseMessagingAsset(xml));

    // assess
    expect(gdsn?.errors?.[0]?.description).toMatch(
      /^GTIN 00614140000000 refused\.+… \(4000 more characters left out\)$/,
    );
    expect(gdsn?.truncated).toEqual({ texts: 1 });
  });

  it('caps every text of a confirmation, its GLNs and identifiers too, and counts them', () => {
    // arrange: a recipient GLN of 5,000 non-ASCII characters
    const long = 'é'.repeat(5000);
    const xml = readFileSync(path.join(fixtures, 'cic-3.1-synchronised.xml'), 'utf8').replace(
      '<recipientGLN>0614141000005</recipientGLN>',
      `<recipientGLN>${long}</recipientGLN>`,
    );

    // act
    const result = parseMessagingAssetSafely(xml);

    // assess
    const [cic] = result.ok ? (result.cic ?? []) : [];
    expect(cic?.recipientGln?.length).toBeLessThan(GDSN_SUMMARY_CAPS.text + 60);
    expect(cic?.recipientGln).toMatch(/… \(4000 more characters left out\)$/);
    expect(cic?.truncated).toEqual({ texts: 1 });
    const gdsn = result.ok ? result.gdsn : undefined;
    expect(gdsn?.items[0]?.recipientGln).toBe(cic?.recipientGln);
  });

  it('keeps a summary linear in its message and within its caps, for any schema-shaped response', async () => {
    const shapes = fc.record({
      responses: fc.integer({ min: 1, max: 3 }),
      transactions: fc.integer({ min: 0, max: 150 }),
      errors: fc.integer({ min: 0, max: 400 }),
      errorsPerDocument: fc.integer({ min: 1, max: 60 }),
      gtinElementsPerException: fc.integer({ min: 0, max: 60 }),
      descriptionLength: fc.integer({ min: 20, max: 1500 }),
    });
    await holds(
      fc.property(shapes, (shape) => {
        const xml = gs1Response(shape);
        const gdsn = withinTimeBudget(() => summariseGdsnMessage(parseMessagingAsset(xml)));
        if (gdsn === undefined) throw new Error('a GS1 Response was not summarised');
        expectWithinCaps(gdsn);
        const errors = shape.responses * shape.errors;
        const transactions = shape.responses * shape.transactions;
        expect(gdsn.errors?.length ?? 0).toBe(Math.min(errors, GDSN_SUMMARY_CAPS.errors));
        expect(gdsn.truncated?.errors ?? 0).toBe(Math.max(0, errors - GDSN_SUMMARY_CAPS.errors));
        expect(gdsn.transactions?.length ?? 0).toBe(Math.min(transactions, GDSN_SUMMARY_CAPS.transactions));
        // Every other transaction is REJECTED: a refusal as soon as there are two, or any error.
        expect(gdsn.refusal).toBe(errors > 0 || shape.transactions > 1);
        // Linear: the summary is never more than a few times the XML it summarises.
        expect(JSON.stringify(gdsn).length).toBeLessThanOrEqual(3 * xml.length);
      }),
      { runs: 25 },
    );
  });

  it('gives every fixture a summary its event data schema accepts', () => {
    // arrange
    const ajv = eventSchemaValidator();
    const schemaFile = path.join(root, 'schemas/events/pds.messaging-asset.received/v1.json');
    ajv.addSchema(JSON.parse(readFileSync(schemaFile, 'utf8')));
    const validate = ajv.getSchema(dataSchemaUri('pds.messaging-asset.received'));
    const names = readdirSync(fixtures).filter((name) => name.endsWith('.xml'));

    for (const name of names) {
      // act
      const xml = readFileSync(path.join(fixtures, name), 'utf8');
      const event = messagingAssetEvent(asset, xml);

      // assess
      expect(parseMessagingAssetSafely(xml).ok || name === 'cic-3.1-trailing-bytes.xml', name).toBe(true);
      expect(
        validate?.(JSON.parse(JSON.stringify(event.data))),
        `${name}: ${JSON.stringify(validate?.errors)}`,
      ).toBe(true);
    }
  });
});
