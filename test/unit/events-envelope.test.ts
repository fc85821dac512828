import { describe, expect, it } from 'vitest';
import { parseTraceparent, withTraceparent } from '../../packages/bridge/src/core/index.ts';
import {
  createEvent,
  DEFAULT_EVENT_SOURCE,
  EventDataError,
  type EventType,
  eventId,
  serializeEvent,
} from '../../packages/bridge/src/events/index.ts';

const TRACEPARENT = '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01';
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const failedPublication = (
  overrides: { time?: string | Date; reason?: string; idParts?: Array<string | number> } = {},
) =>
  createEvent({
    type: 'pds.publication.failed',
    subject: 'publication/p-1',
    idParts: overrides.idParts ?? ['p-1'],
    ...(overrides.time === undefined ? {} : { time: overrides.time }),
    data: {
      publicationId: 'p-1',
      code: 'rejected',
      reason: overrides.reason ?? 'unknown selection',
      pdsStatus: 404,
      retryable: false,
    },
  });

function dataError(build: () => unknown): EventDataError {
  try {
    build();
  } catch (error) {
    if (error instanceof EventDataError) return error;
    throw error;
  }
  throw new Error('expected an EventDataError');
}

describe('createEvent', () => {
  it('builds a CloudEvents 1.0 envelope around the data', () => {
    // act
    const event = withTraceparent(TRACEPARENT, () =>
      failedPublication({ time: '2026-11-20T10:15:00+01:00' }),
    );

    // assess
    expect(event).toEqual({
      specversion: '1.0',
      id: eventId('pds.publication.failed', ['p-1']),
      source: DEFAULT_EVENT_SOURCE,
      type: 'pds.publication.failed',
      time: '2026-11-20T09:15:00.000Z',
      subject: 'publication/p-1',
      datacontenttype: 'application/json',
      dataschema: 'urn:pds-bridge:schemas/events/pds.publication.failed/v1.json',
      traceparent: TRACEPARENT,
      data: {
        publicationId: 'p-1',
        code: 'rejected',
        reason: 'unknown selection',
        pdsStatus: 404,
        retryable: false,
      },
    });
    expect(DEFAULT_EVENT_SOURCE).toBe('urn:pds-bridge');
  });

  it('gives the same fact the same id, whenever and however often it is observed', () => {
    // act
    const first = failedPublication({ time: new Date('2026-01-01T00:00:00Z'), reason: 'first try' });
    const again = failedPublication({ time: new Date('2026-06-01T00:00:00Z'), reason: 'second try' });

    // assess
    expect(again.id).toBe(first.id);
    expect(first.id).toMatch(UUID_V8);
  });

  it('names the trace of the work in progress, and a fresh valid one outside any', () => {
    // act
    const inside = withTraceparent(TRACEPARENT, () => failedPublication());
    const outside = [failedPublication(), failedPublication()];

    // assess
    expect(inside.traceparent).toBe(TRACEPARENT);
    for (const event of outside) expect(parseTraceparent(event.traceparent)).toBeDefined();
    expect(outside[0]?.traceparent).not.toBe(outside[1]?.traceparent);
    expect(outside[0]?.id).toBe(inside.id);
  });

  it('refuses a traceparent that is not W3C trace context', () => {
    // act
    const build = () =>
      createEvent({
        type: 'pds.publication.failed',
        subject: 'publication/p-1',
        idParts: ['p-1'],
        traceparent: 'Root=1-5759e988-bd862e3fe1be46a994272793',
        data: { publicationId: 'p-1', code: 'rejected', reason: 'x', pdsStatus: 404, retryable: false },
      });

    // assess
    expect(build).toThrow(EventDataError);
    expect(build).toThrow(/traceparent .* is not a W3C traceparent/);
  });

  it('gives different facts different ids', () => {
    // act
    const ids = new Set([
      eventId('pds.publication.failed', ['p-1']),
      eventId('pds.publication.failed', ['p-2']),
      eventId('pds.publication.completed', ['p-1']),
      eventId('pds.ingest.completed', ['a|b', 'c']),
      eventId('pds.ingest.completed', ['a', 'b|c']),
      eventId('pds.ingest.completed', ['a', 'b', 'c']),
    ]);

    // assess
    expect(ids.size).toBe(6);
  });

  it('treats a number and its decimal string as the same id part', () => {
    expect(eventId('pds.messaging-asset.received', [42])).toBe(
      eventId('pds.messaging-asset.received', ['42']),
    );
  });

  it('uses the configured source and the current time by default', () => {
    // prepare
    const before = Date.now();

    // act
    const event = createEvent({
      type: 'pds.messaging-asset.received',
      source: 'urn:pds-bridge:test',
      subject: 'messaging-asset/7',
      idParts: [7],
      data: { messagingAssetId: 7, parseError: { name: 'XmlParseError', message: 'broken' }, rawXml: '<a>' },
    });

    // assess
    expect(event.source).toBe('urn:pds-bridge:test');
    expect(Date.parse(event.time)).toBeGreaterThanOrEqual(before - 1000);
    expect(event.time).toMatch(/Z$/);
  });

  it('refuses data that does not match the type, naming the field', () => {
    // act
    const error = dataError(() =>
      createEvent({
        type: 'pds.ingest.completed',
        subject: 's3://b/k',
        idParts: ['b', 'k'],
        // @ts-expect-error size must be a number
        data: { bucket: 'b', key: 'k', size: '12', gatheringKey: 'g', entriesImported: [] },
      }),
    );

    // assess
    expect(error.type).toBe('pds.ingest.completed');
    expect(error.message).toContain('size');
  });

  it.each([
    [
      'both a document and a parse error',
      { document: { rootName: 'a', namespaces: {}, root: {} }, parseError: { name: 'E', message: 'm' } },
    ],
    ['neither a document nor a parse error', {}],
  ])('refuses a messaging-asset event with %s', (_label, parts) => {
    const error = dataError(() =>
      createEvent({
        type: 'pds.messaging-asset.received',
        subject: 'messaging-asset/1',
        idParts: [1],
        data: { messagingAssetId: 1, ...parts },
      }),
    );
    expect(error.message).toContain('exactly one of document and parseError');
  });

  it('passes unknown review fields through unchanged', () => {
    // prepare
    const review = {
      primaryKey: '00614141123452',
      supplierId: 's',
      channelId: 'c',
      messagingAssetId: 3,
      supplier: 'S',
      reviewer: 'R',
      reviewStatus: 'APPROVED',
      date: 1,
      comment: '',
      messagingCreatorType: 'REVIEW',
      newerServerField: { kept: true },
    };

    // act
    const event = createEvent({
      type: 'pds.supplier-review.received',
      subject: 'item/00614141123452',
      idParts: ['00614141123452', 'fp'],
      data: { review, messagingAssetId: 3 },
    });

    // assess
    expect(event.data.review).toEqual(review);
  });

  it.each([
    ['an empty subject', { subject: '' }, /subject/],
    ['no id parts', { idParts: [] }, /idParts/],
    ['an invalid time', { time: 'yesterday' }, /not a valid date/],
    ['an unknown type', { type: 'pds.unknown' }, /unknown event type/],
  ])('refuses %s', (_label, override, pattern) => {
    const error = dataError(() =>
      createEvent({
        type: 'pds.publication.failed' as EventType,
        subject: 'publication/p',
        idParts: ['p'],
        data: { publicationId: 'p', code: 'attempts-exhausted', reason: 'r', retryable: true },
        ...override,
      } as Parameters<typeof createEvent>[0]),
    );
    expect(error.message).toMatch(pattern);
  });
});

describe('serializeEvent', () => {
  it('writes only characters SQS accepts, and parses back to the same event', () => {
    // prepare: every kind of character SQS or a local emulator refuses, and ordinary non-ASCII text
    const awkward = 'ä\u0000\u001f\uD800\uDFFF\uFFFE\uFFFF😀\uFFFD\u00A0€';
    const event = failedPublication({ reason: `reason ${awkward}`, idParts: [awkward] });

    // act
    const body = serializeEvent(event);

    // assess
    expect(body).toMatch(/^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]*$/);
    expect(JSON.parse(body)).toEqual(event);
    expect(body).toContain('ä');
    expect(body).toContain('€');
  });
});
