/**
 * Property tier (issue 21): what arrives on the ingest queue (S3 notifications, SNS-wrapped ones,
 * EventBridge's S3 events, anything else) through the ingest's entry for one message of a batch.
 * Budgets and replay: test/helpers/property.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeEvent } from '../../packages/bridge/src/events/index.ts';
import { ingestS3Event, ingestSqsBody } from '../../packages/bridge/src/ingest/delivery.ts';
import { IngestEventError } from '../../packages/bridge/src/ingest/errors.ts';
import { createEventReader } from '../../packages/consumer/src/reader.ts';
import { ingestHarness } from '../helpers/ingest-harness.ts';
import { holds, hostileString, withinTimeBudgetAsync } from '../helpers/property.ts';

const text = hostileString({ maxLength: 30 });
/** Mostly the value S3 sends, sometimes anything: most records reach the ingest, some break it. */
const usually = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: other });
/** Keys as S3 writes them (form-encoded, under the prefix the filter accepts), and anything else. */
const encodedKey = usually(
  text.map((key) => `in/${encodeURIComponent(key.toWellFormed()).replaceAll('%20', '+')}.csv`),
  fc.oneof(
    text,
    fc.constantFrom(
      'in/a.csv',
      'in/folder/',
      'in/%ZZ.csv',
      'in/%ED%A0%80.csv',
      'in/a+b%2B.csv',
      'in/\ud800.csv',
      '',
    ),
  ),
);
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 5 });
const size = usually<unknown>(
  fc.nat({ max: 10_000 }),
  fc.oneof(fc.constantFrom(-1, 1.5, Number.MAX_SAFE_INTEGER), fc.jsonValue()),
);

const s3Record = fc
  .record({
    eventSource: usually(fc.constant('aws:s3'), text),
    eventName: usually(
      fc.constantFrom('ObjectCreated:Put', 'ObjectCreated:CompleteMultipartUpload'),
      fc.oneof(fc.constant('ObjectRemoved:Delete'), text),
    ),
    eventTime: sometimes(usually(fc.constant('2026-11-20T09:15:00.000Z'), text)),
    bucket: usually(fc.constantFrom('drops', 'other-drops'), text),
    key: encodedKey,
    size: usually(size, fc.constant(undefined)),
    eTag: sometimes(usually(fc.constant('9b2cf535f27731c974343645a3985328'), text)),
    versionId: sometimes(usually(fc.constantFrom('null', '3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY'), text)),
    sequencer: sometimes(usually(fc.constant('0055AED6DCD90281E5'), text)),
  })
  .map((r) => ({
    eventSource: r.eventSource,
    eventName: r.eventName,
    ...(r.eventTime === undefined ? {} : { eventTime: r.eventTime }),
    s3: {
      bucket: { name: r.bucket },
      object: {
        key: r.key,
        ...(r.size === undefined ? {} : { size: r.size }),
        ...(r.eTag === undefined ? {} : { eTag: r.eTag }),
        ...(r.versionId === undefined ? {} : { versionId: r.versionId }),
        ...(r.sequencer === undefined ? {} : { sequencer: r.sequencer }),
      },
    },
  }));
const s3Notification = fc.oneof(
  { weight: 5, arbitrary: fc.array(s3Record, { maxLength: 4 }).map((Records) => ({ Records })) },
  { weight: 1, arbitrary: fc.constant({ Event: 's3:TestEvent', Bucket: 'drops' }) },
);
/** EventBridge's S3 "Object Created" event, which the ingest queue is not meant to receive. */
const eventBridgeEvent = fc
  .record({ bucket: text, key: encodedKey, size: size, etag: text })
  .map(({ bucket, key, size, etag }) => ({
    version: '0',
    id: '17793124-05d4-b198-2fde-7ededc63b103',
    'detail-type': 'Object Created',
    source: 'aws.s3',
    account: '123456789012',
    time: '2026-11-20T09:15:00Z',
    region: 'eu-central-1',
    resources: [`arn:aws:s3:::${bucket}`],
    detail: { version: '0', bucket: { name: bucket }, object: { key, size, etag }, reason: 'PutObject' },
  }));
const body = fc.oneof(
  { weight: 4, arbitrary: s3Notification.map((value) => JSON.stringify(value)) },
  {
    weight: 1,
    arbitrary: s3Notification.map((value) =>
      JSON.stringify({ Type: 'Notification', Message: JSON.stringify(value) }),
    ),
  },
  { weight: 1, arbitrary: eventBridgeEvent.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  {
    weight: 1,
    arbitrary: s3Notification.chain((value) => {
      const json = JSON.stringify(value);
      return fc.nat({ max: json.length }).map((cut) => json.slice(0, cut));
    }),
  },
  { weight: 1, arbitrary: hostileString({ maxLength: 60 }) },
);

const reader = createEventReader();

/** The ingest's contract for one message: a summary, or an error it classifies. */
function expectClassified(error: unknown): void {
  // The harness's PDS, S3 and state store never fail: the only error left is the message's own.
  expect(error).toBeInstanceOf(IngestEventError);
  expect((error as IngestEventError).retryable).toBe(false);
  expect((error as IngestEventError).code).toBe('INGEST_EVENT_INVALID');
}

describe('ingest queue messages, property-tested', () => {
  it('no exception escapes but IngestEventError: every body is ingested, skipped, refused with a failure event, or unreadable, within the time budget', async () => {
    await holds(
      fc.asyncProperty(body, async (text) => {
        const { deps, sinks, events } = ingestHarness();
        try {
          const summary = await withinTimeBudgetAsync(() => ingestSqsBody(text, deps, sinks));
          const failedEvents = events.filter((event) => event.type === 'pds.ingest.failed').length;
          expect(summary.failed).toBe(failedEvents);
        } catch (error) {
          expectClassified(error);
        }
      }),
      { runs: 600 },
    );
  });

  it('every event the ingest sends, whatever the notification held, is one the consumer kit reads back', async () => {
    await holds(
      fc.asyncProperty(s3Notification, async (notification) => {
        const { deps, sinks, events } = ingestHarness();
        try {
          await ingestS3Event(notification, deps, sinks);
        } catch (error) {
          expectClassified(error);
        }
        for (const event of events) expect(reader.parse(serializeEvent(event)).data).toEqual(event.data);
      }),
      { runs: 400 },
    );
  });

  it('a plain S3 event given directly (not through SQS) follows the same contract', async () => {
    await holds(
      fc.asyncProperty(fc.oneof(s3Notification, eventBridgeEvent, fc.jsonValue()), async (value) => {
        const { deps, sinks } = ingestHarness();
        try {
          await ingestS3Event(value, deps, sinks);
        } catch (error) {
          expectClassified(error);
        }
      }),
      { runs: 300 },
    );
  });
});
