/**
 * The CloudEvents 1.0 envelope (JSON format) of every event the bridge emits, with deterministic
 * ids: the same fact always yields the same id, so consumers can drop the duplicates that
 * at-least-once delivery produces.
 */
import { createHash } from 'node:crypto';
import { currentTraceparent, parseTraceparent } from '../core/index.ts';
import * as z from '../core/zod.ts';
import { dataSchemaUri } from './dataschema.ts';
import { EventDataError, EventSerializationError } from './errors.ts';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, type EventDataMap, type EventType, isEventType } from './types.ts';

/** `source` of every event unless configured otherwise. */
export const DEFAULT_EVENT_SOURCE = 'urn:pds-bridge';

/**
 * The CloudEvents attributes every event of the bridge carries (`traceparent`, an extension, aside):
 * what consumers can require (the AsyncAPI document) and tell apart from extensions (the consumer kit).
 */
export const ENVELOPE_ATTRIBUTES = [
  'specversion',
  'id',
  'source',
  'type',
  'time',
  'subject',
  'datacontenttype',
  'dataschema',
  'data',
] as const;

/**
 * One event. `CloudEvent<'pds.ingest.failed'>` is that type's event; plain `CloudEvent` is the
 * union of all types, discriminated by `type`.
 */
export type CloudEvent<T extends EventType = EventType> = T extends EventType
  ? {
      specversion: '1.0';
      id: string;
      source: string;
      type: T;
      /** RFC 3339 time of the fact, UTC. */
      time: string;
      /** What the event is about, e.g. `s3://drop-bucket/items.csv` or `messaging-asset/42`. */
      subject: string;
      datacontenttype: 'application/json';
      /** The schema of `data` and its version (packages/bridge/src/events/dataschema.ts), a URI naming a file of the package. */
      dataschema: string;
      /**
       * W3C trace context of the work that produced the event (CloudEvents distributed-tracing
       * extension): `00-<trace id>-<parent id>-<flags>`. The bridge always sets it; optional here so
       * events stored before it existed still read.
       */
      traceparent?: string;
      data: EventDataMap[T];
    }
  : never;

export interface CreateEventInput<T extends EventType> {
  type: T;
  /** Defaults to {@link DEFAULT_EVENT_SOURCE}. */
  source?: string;
  subject: string;
  data: EventDataMap[T];
  /** Defaults to now. */
  time?: string | Date;
  /** What identifies the fact (e.g. bucket, key, version); with `type` they determine `id`. */
  idParts: ReadonlyArray<string | number>;
  /** Defaults to the trace of the work in progress (`currentTraceparent` from packages/bridge/src/core). */
  traceparent?: string;
}

/**
 * The deterministic id of a fact: SHA-256 over the type and the identifying parts, written as an
 * RFC 9562 version 8 UUID. Numbers and their decimal strings are the same part (`42` = `'42'`).
 *
 * @example
 * eventId('pds.messaging-asset.received', [42]) === eventId('pds.messaging-asset.received', ['42']); // true
 */
export function eventId(type: EventType, idParts: ReadonlyArray<string | number>): string {
  // A JSON array keeps part boundaries: ['a|b', 'c'] and ['a', 'b|c'] stay distinct.
  const canonical = JSON.stringify([type, ...idParts.map(String)]);
  const hex = createHash('sha256').update(canonical, 'utf8').digest('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${variant}${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join('-');
}

function isoTime(type: string, time: string | Date | undefined): string {
  if (time === undefined) return new Date().toISOString();
  const date = time instanceof Date ? time : new Date(time);
  if (Number.isNaN(date.getTime())) {
    throw new EventDataError(
      type,
      `time ${JSON.stringify(String(time))} is not a valid date; pass an ISO 8601 time`,
    );
  }
  // Outside these years toISOString writes an expanded year (+010000-…), which is not RFC 3339 and
  // which the consumer kit refuses.
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) {
    throw new EventDataError(
      type,
      `time ${date.toISOString()} is outside the year 0000 to 9999 RFC 3339 can write`,
    );
  }
  return date.toISOString();
}

function isIdPart(part: unknown): part is string | number {
  return typeof part === 'string' || (typeof part === 'number' && Number.isFinite(part));
}

/**
 * Builds an event after checking its data against the type's schema; throws {@link EventDataError}
 * when type, subject, idParts, time, traceparent or data are wrong. The data object is kept as given.
 * `traceparent` is not part of the id: the same fact reached by two attempts keeps one id.
 *
 * @example
 * const event = createEvent({
 *   type: 'pds.publication.failed',
 *   subject: 'publication/0f9c…',
 *   idParts: ['0f9c…', 'selection-404'],
 *   data: { publicationId: '0f9c…', reason: 'unknown selection', pdsStatus: 404, retryable: false },
 * });
 */
export function createEvent<T extends EventType>(input: CreateEventInput<T>): CloudEvent<T> {
  const { type, subject, data, idParts } = input;
  if (!isEventType(type)) {
    const named = typeof type === 'string' ? type : `of type ${typeof type}`;
    throw new EventDataError(named, `unknown event type; use one of ${EVENT_TYPES.join(', ')}`);
  }
  if (typeof subject !== 'string' || subject.length === 0) {
    throw new EventDataError(type, 'subject must be a non-empty string naming what the event is about');
  }
  if (!Array.isArray(idParts) || idParts.length === 0 || !idParts.every(isIdPart)) {
    throw new EventDataError(
      type,
      'idParts must name at least one identifying part (strings or finite numbers), or every such event gets one id',
    );
  }
  const source = input.source ?? DEFAULT_EVENT_SOURCE;
  if (typeof source !== 'string' || source.length === 0) {
    throw new EventDataError(type, 'source must be a non-empty URI reference');
  }
  const traceparent = input.traceparent ?? currentTraceparent();
  if (!parseTraceparent(traceparent)) {
    throw new EventDataError(
      type,
      `traceparent ${JSON.stringify(traceparent)} is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)`,
    );
  }
  const checked = EVENT_DATA_SCHEMAS[type].safeParse(data);
  if (!checked.success) throw new EventDataError(type, z.prettifyError(checked.error).replace(/\n/g, ' '));

  const event = {
    specversion: '1.0',
    id: eventId(type, idParts),
    source,
    type,
    time: isoTime(type, input.time),
    subject,
    datacontenttype: 'application/json',
    dataschema: dataSchemaUri(type),
    traceparent,
    data,
  };
  return event as CloudEvent<T>;
}

/**
 * Code units SQS refuses in a message body, plus every surrogate: SQS accepts #x9 | #xA | #xD |
 * #x20–#xD7FF | #xE000–#xFFFD | #x10000–#x10FFFF, but local emulators (fauxqs) refuse the
 * supplementary planes too, so characters above U+FFFF are escaped as their surrogate pair. Control
 * characters below U+0020 need no entry: JSON.stringify escapes them already.
 */
const UNSENDABLE = /[\uD800-\uDFFF\uFFFE\uFFFF]/g;

/**
 * The JSON text of an event as it is sent: `JSON.stringify` with every character SQS (or a local
 * emulator) would refuse written as a `\uXXXX` escape. `JSON.parse` gives back exactly the event, so
 * consumers see the same data whatever characters it holds; an event is never unsendable for its
 * characters. Used for every message body and claim-checked payload.
 *
 * @example
 * serializeEvent(event); // '{"specversion":"1.0",…,"data":{"rawXml":"<a>\\ufffe</a>"}}'
 * JSON.parse(serializeEvent(event)); // deep-equal to event
 */
export function serializeEvent(event: CloudEvent): string {
  try {
    return toSendableJson(event);
  } catch (error) {
    // RangeError (longer than the largest string), TypeError (a BigInt, a cycle): the event's own.
    throw new EventSerializationError(event, error);
  }
}

/**
 * `JSON.stringify(value)` with the characters SQS refuses escaped (see {@link serializeEvent}); for
 * other messages the bridge sends to SQS, such as the review poller's fan-out chunks.
 */
export function toSendableJson(value: unknown): string {
  // Outside strings JSON text is ASCII, so every match lies inside a string, where \uXXXX is valid.
  return JSON.stringify(value).replace(
    UNSENDABLE,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
