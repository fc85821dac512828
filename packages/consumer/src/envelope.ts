/**
 * Parses and verifies one event body: JSON, a CloudEvents 1.0 envelope in JSON format, a JSON
 * `datacontenttype`, and `data` checked against the zod schema of its type (the same schemas that
 * build the bridge's events, so the reader and the writer cannot disagree).
 *
 * Attributes beyond the ones the bridge documents (CloudEvents extensions such as `traceparent`,
 * or attributes a newer bridge adds) never make an event invalid; they are handed over in
 * `extensions`, as the CloudEvents spec asks of consumers.
 */
import { parseJson } from '../../bridge/src/core/index.ts';
import * as z from '../../bridge/src/core/zod.ts';
import { dataSchemaUri } from '../../bridge/src/events/dataschema.ts';
import {
  ENVELOPE_ATTRIBUTES,
  EVENT_DATA_SCHEMAS,
  type EventDataMap,
  type EventType,
  isEventType,
} from '../../bridge/src/events/index.ts';
import { ConsumerError } from './errors.ts';

/** Attributes the envelope itself defines (the bridge's CloudEvents attributes, plus `data_base64`). */
const CORE_ATTRIBUTES = new Set<string>([...ENVELOPE_ATTRIBUTES, 'data_base64']);

/** The attributes every event carries, whatever its type. */
interface EnvelopeAttributes {
  readonly specversion: '1.0';
  /** Deterministic: the same fact always has the same id; deduplicate on it. */
  readonly id: string;
  readonly source: string;
  /** RFC 3339 time of the fact, as sent. */
  readonly time: string;
  /** What the event is about, e.g. `s3://drop-bucket/items.csv`. */
  readonly subject: string;
  readonly datacontenttype: string;
  /** URI of the schema `data` adheres to, when the bridge sent one. */
  readonly dataschema?: string;
  /**
   * Every other attribute of the envelope (CloudEvents extensions such as `traceparent`, or
   * attributes added by a newer bridge), by name.
   */
  readonly extensions: Readonly<Record<string, unknown>>;
}

/**
 * A verified event of a type this kit knows, with data checked against its schema. `BridgeEvent` is
 * the union of all types, discriminated by `type`; `BridgeEvent<'pds.ingest.failed'>` is one type.
 */
export type BridgeEvent<T extends EventType = EventType> = T extends EventType
  ? EnvelopeAttributes & { readonly type: T; readonly data: EventDataMap[T] }
  : never;

/**
 * A well-formed CloudEvent of a type this version of the kit does not know (a newer bridge's, or
 * another producer's on the same queue), or of a known type whose `dataschema` names a version of
 * its data this kit does not know (during a breaking change the bridge emits both versions). Returned
 * only with `unknownTypes: 'return'`; its data is unchecked. Tell it apart with {@link isBridgeEvent}.
 */
export interface UnknownEvent extends Omit<EnvelopeAttributes, 'time' | 'subject' | 'datacontenttype'> {
  readonly type: string;
  readonly time?: string;
  readonly subject?: string;
  readonly datacontenttype?: string;
  readonly data: unknown;
}

/**
 * What to do with a type, or a data-schema version, the kit does not know: throw `unknown-type` or
 * `unknown-version` (default), or return it as an {@link UnknownEvent}.
 */
export type UnknownTypePolicy = 'reject' | 'return';

/**
 * True for an event of a known type (its `type` narrows `data`), false for an {@link UnknownEvent}.
 *
 * @example
 * ```ts
 * const event = await reader.read(message);
 * if (!isBridgeEvent(event)) return; // a type this consumer does not handle
 * if (event.type === 'pds.ingest.failed') console.log(event.data.code);
 * ```
 */
export function isBridgeEvent(event: BridgeEvent | UnknownEvent): event is BridgeEvent {
  return isEventType(event.type) && isKnownVersion(event.type, event.dataschema);
}

/** Events without `dataschema` come from bridges older than it and carry the first version. */
function isKnownVersion(type: EventType, dataschema: unknown): boolean {
  return dataschema === undefined || dataschema === dataSchemaUri(type);
}

/** RFC 3339 date-time (the `time` attribute's format), with a zone designator. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `application/json`, `text/json` or any `…/…+json`, with or without parameters. */
function isJsonContentType(value: string): boolean {
  const mediaType = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    mediaType === 'application/json' || mediaType === 'text/json' || /^[a-z]+\/[^/]+\+json$/.test(mediaType)
  );
}

interface ParseContext {
  messageId?: string | undefined;
  unknownTypes: UnknownTypePolicy;
}

/**
 * The verified event in `body`; throws {@link ConsumerError} naming what is wrong.
 *
 * @example
 * ```ts
 * const event = parseEventBody(text, { unknownTypes: 'reject' });
 * ```
 */
export function parseEventBody(body: string, context: ParseContext): BridgeEvent | UnknownEvent {
  const { messageId } = context;
  const envelope = jsonObjectOf(body, messageId);
  checkEnvelopeAttributes(envelope, messageId);
  const type = envelope.type as string;
  const id = envelope.id as string;
  const where = { messageId, eventId: id, eventType: type };
  checkJsonData(envelope, where);
  const extensions = extensionsOf(envelope);
  if (!isEventType(type) || !isKnownVersion(type, envelope.dataschema)) {
    if (context.unknownTypes === 'return') {
      return { ...(envelope as Omit<UnknownEvent, 'extensions'>), extensions } as UnknownEvent;
    }
    throw unknownTypeOrVersion(envelope, where);
  }
  checkBridgeAttributes(envelope, where);
  checkData(type, envelope.data, where);
  return {
    ...(envelope as Omit<BridgeEvent, 'extensions'>),
    datacontenttype: (envelope.datacontenttype as string | undefined) ?? 'application/json',
    extensions,
  } as BridgeEvent;
}

/** The event's id and type (with the message id) for the errors about a readable envelope. */
interface EventWhere {
  messageId: string | undefined;
  eventId: string;
  eventType: string;
}

/** The body read as JSON, which must be an object to be an envelope. */
function jsonObjectOf(body: string, messageId: string | undefined): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJson(body);
  } catch {
    // Neither the body nor the parser's message (which quotes it) goes into the error: the body may
    // be anything a producer wrote, confidential included.
    throw new ConsumerError(
      'not-json',
      `the body is not JSON (${body.length} characters; not quoted here). It was not sent by pds-bridge: check which producer writes to this queue.`,
      { messageId },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConsumerError(
      'not-cloudevent',
      `the body is JSON but not an object, so not a CloudEvents envelope${Array.isArray(value) ? ' (an array: if it names a PayloadS3Pointer, read the message with its attributes so the claim-check is followed)' : ''}.`,
      { messageId },
    );
  }
  return value as Record<string, unknown>;
}

/** The CloudEvents 1.0 attributes: every problem with them named in one error. */
function checkEnvelopeAttributes(envelope: Record<string, unknown>, messageId: string | undefined): void {
  const problems: string[] = [];
  if (envelope.specversion !== '1.0') {
    problems.push(`specversion must be "1.0", got ${JSON.stringify(envelope.specversion) ?? 'nothing'}`);
  }
  for (const name of ['id', 'source', 'type'] as const) {
    if (typeof envelope[name] !== 'string' || envelope[name] === '') {
      problems.push(`${name} must be a non-empty string`);
    }
  }
  for (const name of ['subject', 'datacontenttype', 'dataschema'] as const) {
    if (envelope[name] !== undefined && typeof envelope[name] !== 'string') {
      problems.push(`${name} must be a string when present`);
    }
  }
  if (envelope.time !== undefined && (typeof envelope.time !== 'string' || !RFC3339.test(envelope.time))) {
    problems.push(`time must be an RFC 3339 date-time, got ${JSON.stringify(envelope.time)}`);
  }
  if (problems.length === 0) return;
  throw new ConsumerError(
    'not-cloudevent',
    `the body is not a CloudEvents 1.0 envelope: ${problems.join('; ')}. pds-bridge always sends specversion, id, source, type, time, subject, datacontenttype and data; check which producer writes to this queue.`,
    {
      messageId,
      eventId: typeof envelope.id === 'string' ? envelope.id : undefined,
      eventType: typeof envelope.type === 'string' ? envelope.type : undefined,
    },
  );
}

/** Data this reader can read: JSON, not binary. */
function checkJsonData(envelope: Record<string, unknown>, where: EventWhere): void {
  const binary = 'data_base64' in envelope;
  if (
    !binary &&
    (envelope.datacontenttype === undefined || isJsonContentType(envelope.datacontenttype as string))
  ) {
    return;
  }
  throw new ConsumerError(
    'unsupported-content-type',
    `event ${where.eventId} (${where.eventType}) carries ${binary ? 'binary data (data_base64)' : `datacontenttype ${JSON.stringify(envelope.datacontenttype)}`}; this reader handles JSON data only.`,
    where,
  );
}

/** The attributes beyond the envelope's own, by name. */
function extensionsOf(envelope: Record<string, unknown>): Record<string, unknown> {
  const extensions: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(envelope)) {
    if (!CORE_ATTRIBUTES.has(name)) extensions[name] = attribute;
  }
  return extensions;
}

/** The error for a type, or a version of a known type's data, this kit does not know. */
function unknownTypeOrVersion(envelope: Record<string, unknown>, where: EventWhere): ConsumerError {
  const { eventId: id, eventType: type } = where;
  if (!isEventType(type)) {
    return new ConsumerError(
      'unknown-type',
      `event ${id} has type ${JSON.stringify(type)}, which this version of pds-bridge/consumer does not know. If the bridge emits a new type, upgrade pds-bridge; to receive such events unchecked instead, create the reader with unknownTypes: 'return'.`,
      where,
    );
  }
  return new ConsumerError(
    'unknown-version',
    `event ${id} (${type}) has dataschema ${JSON.stringify(envelope.dataschema)}, a version of its data this version of pds-bridge/consumer does not know (it reads ${dataSchemaUri(type)}). During a breaking change the bridge sends both versions of each fact for one release: upgrade pds-bridge to read the new one, or create the reader with unknownTypes: 'return' to receive the other version unchecked and skip it.`,
    where,
  );
}

/** The bridge's own events always carry `time` and `subject`; their absence means a different producer. */
function checkBridgeAttributes(envelope: Record<string, unknown>, where: EventWhere): void {
  const missing = (['time', 'subject'] as const).filter((name) => envelope[name] === undefined);
  if (missing.length === 0) return;
  throw new ConsumerError(
    'not-cloudevent',
    `event ${where.eventId} (${where.eventType}) has no ${missing.join(' and ')}, which every pds-bridge event carries; check which producer writes to this queue.`,
    where,
  );
}

/** `data` checked against the schema of its type. */
function checkData(type: EventType, data: unknown, where: EventWhere): void {
  const checked = EVENT_DATA_SCHEMAS[type].safeParse(data);
  if (checked.success) return;
  throw new ConsumerError(
    'invalid-data',
    `the data of event ${where.eventId} (${type}) does not match its schema: ${z.prettifyError(checked.error).replace(/\n/g, ' ')}. Report it to the bridge's operators with the event id; do not retry.`,
    where,
  );
}
