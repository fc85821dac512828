import { describe, expect, it } from 'vitest';
import { formatPayloadPointer } from '../../packages/bridge/src/events/claim-check.ts';
import { exampleEvents } from '../../packages/bridge/src/events/examples.ts';
import { serializeEvent } from '../../packages/bridge/src/events/index.ts';
import {
  type BridgeEvent,
  ConsumerError,
  type ConsumerErrorCode,
  createEventReader,
  isBridgeEvent,
  type PayloadFetcher,
  type PayloadS3Pointer,
} from '../../packages/consumer/src/index.ts';
import { sqsRecord } from '../helpers/s3-events.ts';

const examples = exampleEvents();
const completed = examples['pds.ingest.completed'][0];
const failed = examples['pds.ingest.failed'][0];
if (!completed || !failed) throw new Error('the event catalogue lost its ingest examples');

/** A payload store behind the reader's port: objects by `bucket/key`. */
function payloadsFrom(objects: Record<string, string>): PayloadFetcher & { reads: string[] } {
  const reads: string[] = [];
  const fetch = async (pointer: PayloadS3Pointer, messageId: string | undefined) => {
    reads.push(`${pointer.s3BucketName}/${pointer.s3Key}`);
    const text = objects[`${pointer.s3BucketName}/${pointer.s3Key}`];
    if (text === undefined) throw new ConsumerError('claim-check-missing', 'no such object', { messageId });
    return text;
  };
  return Object.assign(fetch, { reads });
}

async function readError(action: () => Promise<unknown> | unknown): Promise<ConsumerError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ConsumerError) return error;
    throw error;
  }
  throw new Error('expected a ConsumerError, but the message was read');
}

const sdkMessage = (
  body: string,
  attributes: Record<string, { DataType: string; StringValue: string }> = {},
) => ({
  MessageId: 'm-1',
  Body: body,
  MessageAttributes: attributes,
});

describe('createEventReader: envelope and data', () => {
  it('reads a Lambda SQS record and an SDK message into the same typed event', async () => {
    // prepare
    const reader = createEventReader();
    const body = serializeEvent(failed);

    // act
    const fromLambda = await reader.read(sqsRecord(body));
    const fromSdk = await reader.read(sdkMessage(body));

    // assess
    expect(fromSdk).toEqual(fromLambda);
    expect(fromLambda.type).toBe('pds.ingest.failed');
    if (fromLambda.type === 'pds.ingest.failed') expect(fromLambda.data.code).toBe('unauthorized');
    expect(fromLambda.id).toBe(failed.id);
    // The bridge's trace context is a CloudEvents extension attribute: handed over by name.
    expect(fromLambda.extensions).toEqual({ traceparent: failed.traceparent });
    expect(failed.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  });

  it('hands over extension attributes and dataschema, and keeps data fields a newer bridge adds', () => {
    // prepare
    const reader = createEventReader();
    const body = JSON.stringify({
      ...completed,
      dataschema: 'urn:pds-bridge:schemas/events/pds.ingest.completed/v1.json',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      data: { ...completed.data, addedLater: 'kept' },
    });

    // act
    const event = reader.parse(body);

    // assess
    expect(event.dataschema).toBe('urn:pds-bridge:schemas/events/pds.ingest.completed/v1.json');
    expect(event.extensions).toEqual({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(event.data).toMatchObject({ addedLater: 'kept', gatheringKey: completed.data.gatheringKey });
  });

  it.each<[string, string, ConsumerErrorCode, RegExp]>([
    ['an empty body', '', 'not-json', /no body/],
    ['plain text', 'hello', 'not-json', /not JSON/],
    ['a JSON array', '[1,2]', 'not-cloudevent', /not an object/],
    [
      'CloudEvents 0.3',
      JSON.stringify({ ...completed, specversion: '0.3' }),
      'not-cloudevent',
      /specversion must be "1\.0", got "0\.3"/,
    ],
    [
      'no id',
      JSON.stringify({ ...completed, id: undefined }),
      'not-cloudevent',
      /id must be a non-empty string/,
    ],
    [
      'a bad time',
      JSON.stringify({ ...completed, time: 'yesterday' }),
      'not-cloudevent',
      /time must be an RFC 3339/,
    ],
    ['no subject', JSON.stringify({ ...completed, subject: undefined }), 'not-cloudevent', /has no subject/],
    [
      'XML data',
      JSON.stringify({ ...completed, datacontenttype: 'application/xml' }),
      'unsupported-content-type',
      /datacontenttype "application\/xml"/,
    ],
    [
      'binary data',
      JSON.stringify({ ...completed, data: undefined, data_base64: 'AAAA' }),
      'unsupported-content-type',
      /data_base64/,
    ],
    [
      'data that breaks the schema',
      JSON.stringify({ ...failed, data: { ...failed.data, code: 'exploded', retryable: 'no' } }),
      'invalid-data',
      /does not match its schema: .*code.*retryable/,
    ],
    [
      'a type the kit does not know',
      JSON.stringify({ ...completed, type: 'pds.ingest.started' }),
      'unknown-type',
      /"pds\.ingest\.started".*unknownTypes: 'return'/,
    ],
    [
      'a data-schema version the kit does not know',
      JSON.stringify({
        ...completed,
        dataschema: 'urn:pds-bridge:schemas/events/pds.ingest.completed/v2.json',
      }),
      'unknown-version',
      /dataschema "urn:pds-bridge:schemas\/events\/pds\.ingest\.completed\/v2\.json".*reads urn:pds-bridge:schemas\/events\/pds\.ingest\.completed\/v1\.json.*both versions/,
    ],
  ])('refuses %s with a coded error naming the problem', async (_name, body, code, message) => {
    // act
    const error = await readError(() => createEventReader().read(sdkMessage(body)));

    // assess
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/^SQS message m-1: /);
    expect(error.retryable).toBe(false);
  });

  it('names the event in errors found after the envelope was read', async () => {
    // act
    const error = await readError(() =>
      createEventReader().parse(JSON.stringify({ ...failed, data: { ...failed.data, reason: '' } })),
    );

    // assess
    expect(error).toMatchObject({ code: 'invalid-data', eventId: failed.id, eventType: 'pds.ingest.failed' });
  });

  it("returns an event of an unknown type unchecked with unknownTypes: 'return'", () => {
    // prepare
    const reader = createEventReader({ unknownTypes: 'return' });

    // act
    const event = reader.parse(
      JSON.stringify({ ...completed, type: 'pds.ingest.started', data: { any: 1 } }),
    );
    const known = reader.parse(serializeEvent(completed));

    // assess
    expect(isBridgeEvent(event)).toBe(false);
    expect(event).toMatchObject({ type: 'pds.ingest.started', data: { any: 1 }, id: completed.id });
    expect(isBridgeEvent(known)).toBe(true);
  });

  it("returns the other version of a known type unchecked with unknownTypes: 'return', and reads events without dataschema", () => {
    // prepare: during a breaking change the bridge sends both versions of each fact
    const reader = createEventReader({ unknownTypes: 'return' });
    const { dataschema: _current, ...withoutSchema } = completed;

    // act
    const other = reader.parse(
      JSON.stringify({
        ...completed,
        dataschema: 'urn:pds-bridge:schemas/events/pds.ingest.completed/v2.json',
        data: { renamed: true },
      }),
    );
    const older = createEventReader().parse(JSON.stringify(withoutSchema));

    // assess
    expect(isBridgeEvent(other)).toBe(false);
    expect(other.data).toEqual({ renamed: true });
    expect(older).toMatchObject({ id: completed.id, type: 'pds.ingest.completed' });
  });

  it('refuses options it does not understand, up front', () => {
    expect(() => createEventReader({ unknownTypes: 'skip' as 'return' })).toThrow(
      /unknownTypes must be 'reject' or 'return', got "skip"/,
    );
  });
});

const TRUSTED = { buckets: ['state'] };
const FLAGGED = { ExtendedPayloadSize: { DataType: 'Number', StringValue: '900' } };

describe('createEventReader: claim-check', () => {
  const pointerBody = formatPayloadPointer({
    s3BucketName: 'state',
    s3Key: `claim-check/${completed.id}.json`,
  });
  const objects = { [`state/claim-check/${completed.id}.json`]: serializeEvent(completed) };

  it('follows the pointer the bridge writes, from a Lambda record and from an SDK message', async () => {
    // prepare
    const payloads = payloadsFrom(objects);
    const reader = createEventReader({ payloads, claimCheck: TRUSTED });
    const record = sqsRecord(pointerBody);
    record.messageAttributes = { ExtendedPayloadSize: { dataType: 'Number', stringValue: '900' } };

    // act
    const fromLambda: BridgeEvent = await reader.read(record);
    const fromSdk = await reader.read(
      sdkMessage(pointerBody, { ExtendedPayloadSize: { DataType: 'Number', StringValue: '900' } }),
    );

    // assess
    expect(fromLambda.id).toBe(completed.id);
    expect(fromSdk).toEqual(fromLambda);
    expect(payloads.reads).toEqual([
      `state/claim-check/${completed.id}.json`,
      `state/claim-check/${completed.id}.json`,
    ]);
  });

  it.each([
    [
      'the Python extended client (json.dumps spacing)',
      `["software.amazon.payloadoffloading.PayloadS3Pointer", {"s3BucketName": "state", "s3Key": "claim-check/${completed.id}.json"}]`,
      'ExtendedPayloadSize',
    ],
    [
      'the legacy Java client',
      `["com.amazon.sqs.javamessaging.MessageS3Pointer",{"s3BucketName":"state","s3Key":"claim-check/${completed.id}.json"}]`,
      'SQSLargePayloadSize',
    ],
    [
      'the bare-object JavaScript ports',
      `{"s3BucketName":"state","s3Key":"claim-check/${completed.id}.json"}`,
      'ExtendedPayloadSize',
    ],
  ])('follows pointers written by %s', async (_writer, body, attribute) => {
    // prepare
    const reader = createEventReader({ payloads: payloadsFrom(objects), claimCheck: TRUSTED });

    // act
    const event = await reader.read(
      sdkMessage(body, { [attribute]: { DataType: 'Number', StringValue: '900' } }),
    );

    // assess
    expect(event.id).toBe(completed.id);
  });

  it('writes pointers in exactly the shape the Python and Java extended clients check before reading', () => {
    // act
    const pointer: unknown = JSON.parse(pointerBody);

    // assess: a two-element list of the pointer class and an object with exactly s3BucketName and s3Key
    expect(pointer).toEqual([
      'software.amazon.payloadoffloading.PayloadS3Pointer',
      { s3BucketName: 'state', s3Key: `claim-check/${completed.id}.json` },
    ]);
  });

  it.each<[string, () => Promise<unknown>, ConsumerErrorCode, RegExp]>([
    [
      'a message flagged as offloaded whose body is no pointer',
      () =>
        createEventReader({ payloads: payloadsFrom(objects), claimCheck: TRUSTED }).read(
          sdkMessage(serializeEvent(completed), {
            ExtendedPayloadSize: { DataType: 'Number', StringValue: '9' },
          }),
        ),
      'claim-check-invalid',
      /ExtendedPayloadSize=9 but its body is not an S3 pointer/,
    ],
    [
      'a pointer to an object that is gone',
      () =>
        createEventReader({ payloads: payloadsFrom({}), claimCheck: TRUSTED }).read(
          sdkMessage(pointerBody, FLAGGED),
        ),
      'claim-check-missing',
      /no such object/,
    ],
    [
      'a pointer with no way to read it',
      () => createEventReader().read(sdkMessage(pointerBody, FLAGGED)),
      'claim-check-unreadable',
      /no payload fetcher: create it with \{ payloads: s3PayloadFetcher/,
    ],
    [
      'an empty stored payload',
      () =>
        createEventReader({
          payloads: payloadsFrom({ [`state/claim-check/${completed.id}.json`]: '' }),
          claimCheck: TRUSTED,
        }).read(sdkMessage(pointerBody, FLAGGED)),
      'claim-check-invalid',
      /is empty/,
    ],
    [
      'a stored payload that is not JSON',
      () =>
        createEventReader({
          payloads: payloadsFrom({ [`state/claim-check/${completed.id}.json`]: '<xml/>' }),
          claimCheck: TRUSTED,
        }).read(sdkMessage(pointerBody, FLAGGED)),
      'not-json',
      /not JSON/,
    ],
    [
      'a pointer to another bucket (a forged event stored elsewhere), unread',
      () =>
        createEventReader({
          payloads: payloadsFrom({ [`other/claim-check/${completed.id}.json`]: serializeEvent(completed) }),
          claimCheck: TRUSTED,
        }).read(
          sdkMessage(
            formatPayloadPointer({ s3BucketName: 'other', s3Key: `claim-check/${completed.id}.json` }),
            FLAGGED,
          ),
        ),
      'claim-check-invalid',
      /leads to s3:\/\/other\/claim-check\/.*outside where pds-bridge writes claim-checked events \(claimCheck\.buckets "state", prefix "claim-check\/"\); not followed/,
    ],
    [
      'a pointer to the state bucket outside the claim-check prefix, unread',
      () =>
        createEventReader({
          payloads: payloadsFrom({ 'state/publications/p1.json': serializeEvent(completed) }),
          claimCheck: TRUSTED,
        }).read(
          sdkMessage(formatPayloadPointer({ s3BucketName: 'state', s3Key: 'publications/p1.json' }), FLAGGED),
        ),
      'claim-check-invalid',
      /outside where pds-bridge writes/,
    ],
    [
      'a bare pointer without the extended client marker',
      () =>
        createEventReader({ payloads: payloadsFrom(objects), claimCheck: TRUSTED }).read(
          sdkMessage(`{"s3BucketName":"state","s3Key":"claim-check/${completed.id}.json"}`),
        ),
      'claim-check-invalid',
      /has no ExtendedPayloadSize attribute/,
    ],
    [
      'a stored payload larger than claimCheck.maxBytes',
      () =>
        createEventReader({
          payloads: payloadsFrom(objects),
          claimCheck: { ...TRUSTED, maxBytes: 100 },
        }).read(sdkMessage(pointerBody, FLAGGED)),
      'claim-check-invalid',
      /larger than claimCheck\.maxBytes \(100 bytes\)/,
    ],
  ])('refuses %s with a coded error', async (_name, action, code, message) => {
    // act
    const error = await readError(action);

    // assess
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('quotes no byte of a body that is not JSON', async () => {
    // prepare: a confidential file behind a pointer into the trusted location
    const secret = 'employee,salary\nalice,123456\n';
    const reader = createEventReader({
      payloads: payloadsFrom({ [`state/claim-check/${completed.id}.json`]: secret }),
      claimCheck: TRUSTED,
    });

    // act
    const error = await readError(() => reader.read(sdkMessage(pointerBody, FLAGGED)));

    // assess
    expect(error.code).toBe('not-json');
    expect(`${error.message} ${String(error.cause ?? '')}`).not.toMatch(/employee|alice|123456/);
  });

  it('needs claimCheck.buckets with a payload fetcher, up front', () => {
    expect(() => createEventReader({ payloads: payloadsFrom(objects) })).toThrow(
      /payloads needs claimCheck\.buckets/,
    );
    expect(() => createEventReader({ payloads: payloadsFrom(objects), claimCheck: { buckets: [] } })).toThrow(
      /claimCheck\.buckets must list the bucket names/,
    );
  });
});

describe('createEventReader: events delivered by an EventBridge rule to SQS', () => {
  /** The body an EventBridge rule with an SQS target delivers: the event with the CloudEvent as detail. */
  const eventBridgeBody = (detail: unknown) =>
    JSON.stringify({
      version: '0',
      id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
      'detail-type': failed.type,
      source: failed.source,
      account: '123456789012',
      time: failed.time,
      region: 'eu-central-1',
      resources: [],
      detail,
    });

  it('reads the CloudEvent in detail as the same event the queue carries', async () => {
    // prepare
    const reader = createEventReader();

    // act
    const viaBus = await reader.read(sdkMessage(eventBridgeBody(JSON.parse(serializeEvent(failed)))));
    const viaQueue = await reader.read(sdkMessage(serializeEvent(failed)));

    // assess
    expect(viaBus).toEqual(viaQueue);
  });

  it('follows the claim-check pointer an oversized event carries as its detail', async () => {
    // prepare
    const payloads = payloadsFrom({ 'state/claim-check/x.json': serializeEvent(completed) });
    const reader = createEventReader({ payloads, claimCheck: { buckets: ['state'] } });

    // act
    const event = await reader.read(
      sdkMessage(eventBridgeBody({ s3BucketName: 'state', s3Key: 'claim-check/x.json' })),
    );

    // assess
    expect(payloads.reads).toEqual(['state/claim-check/x.json']);
    expect(event.id).toBe(completed.id);
  });
});
