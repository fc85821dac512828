/**
 * How `npm run events` and the demo print the bridge's events: a readable one-liner per event on a
 * terminal (time, type, subject, the facts that matter for that type), or the CloudEvent itself as
 * one JSON document per line when the output goes to a program.
 *
 * @example
 * ```ts
 * formatEventLine(event);
 * // '09:15:00Z  pds.ingest.completed          s3://pds-drop/items.csv  import accepted for 1 entry (items.csv), items created not reported · 18342 bytes · gathering c9a1e7d2'
 * ```
 */

import { parseJson, terminalText } from '@pds-bridge/bridge/core';

/** A message body as received; `event` when the body is a CloudEvent. */
export interface ReceivedEvent {
  /** The queue it came from. */
  queue: string;
  messageId: string;
  body: string;
  /** The parsed CloudEvent, or `undefined` when the body is not one. */
  event?: EventEnvelope;
}

/** The CloudEvents fields the printer reads. */
export interface EventEnvelope {
  id?: unknown;
  type?: unknown;
  subject?: unknown;
  time?: unknown;
  data?: unknown;
}

/** Width of the type column: the longest type, `pds.supplier-review.received`, plus two. */
const TYPE_WIDTH = 30;
const MAX_DETAIL = 160;

type Data = Record<string, unknown>;

/**
 * Parses a message body into an event envelope, or `undefined` when it is not a JSON object with a type.
 *
 * @example
 * ```ts
 * parseEventBody('{"type":"pds.ingest.completed"}')?.type; // 'pds.ingest.completed'
 * ```
 */
export function parseEventBody(body: string): EventEnvelope | undefined {
  try {
    const value: unknown = parseJson(body);
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'type' in value) {
      return value as EventEnvelope;
    }
  } catch {
    // Not JSON: printed as a raw message.
  }
  return undefined;
}

/** The readable one-line form of a received message. */
export function formatEventLine(received: ReceivedEvent): string {
  const event = received.event;
  // Every part comes from a queue: controls in it are shown as escapes, never acted on.
  if (!event) {
    return terminalText(
      `--:--:--Z  ${'(not an event)'.padEnd(TYPE_WIDTH)}${received.queue}  ${clip(received.body)}`,
    );
  }
  const type = text(event.type) || '(no type)';
  const subject = text(event.subject);
  const detail = clip(detailOf(type, isData(event.data) ? event.data : {}));
  return terminalText(
    [`${timeOf(event.time)}  ${type.padEnd(TYPE_WIDTH)}${subject}`, detail]
      .filter((part) => part !== '')
      .join('  '),
  );
}

/** The JSON-lines form: the CloudEvent as sent, or the raw message when the body is not an event. */
export function formatEventJson(received: ReceivedEvent): string {
  if (received.event) return JSON.stringify(received.event);
  return JSON.stringify({ queue: received.queue, messageId: received.messageId, body: received.body });
}

function detailOf(type: string, data: Data): string {
  switch (type) {
    case 'pds.ingest.completed':
      return ingestCompleted(data);
    case 'pds.ingest.failed':
    case 'pds.publication.failed':
      return failed(data);
    case 'pds.messaging-asset.received':
      return messagingAsset(data);
    case 'pds.supplier-review.received':
      return supplierReview(data);
    case 'pds.publication.completed':
      return publicationCompleted(data);
    case 'pds.confirmation.changed':
      return confirmationChanged(data);
    default:
      return data && Object.keys(data).length > 0 ? JSON.stringify(data) : '';
  }
}

function confirmationChanged(data: Data): string {
  const entry = (data.entry ?? {}) as Data;
  const actions = Array.isArray(data.correctiveActions) ? data.correctiveActions.length : 0;
  const from = text(data.previousState);
  return `${text(entry.channelId)}: ${from ? `${from} → ` : ''}${text(data.state)}${actions > 0 ? ` (${actions} corrective action${actions === 1 ? '' : 's'})` : ''}`;
}

function ingestCompleted(data: Data): string {
  const entries = Array.isArray(data.entriesImported) ? data.entriesImported : [];
  const paths = entries.map((entry) => text((entry as Data | null)?.path)).filter(Boolean);
  const shown =
    paths.length > 3 ? `${paths.slice(0, 3).join(', ')}, +${paths.length - 3} more` : paths.join(', ');
  // All the PDS says to an import is that it accepted it (no body): never claim items were created.
  return joinFacts([
    `import accepted for ${plural(entries.length, 'entry', 'entries')}${shown ? ` (${shown})` : ''}, items created not reported`,
    typeof data.size === 'number' ? `${data.size} bytes` : '',
    data.gatheringKey ? `gathering ${short(text(data.gatheringKey))}` : '',
  ]);
}

function failed(data: Data): string {
  return joinFacts([
    `failed${data.code ? ` [${text(data.code)}]` : ''}${data.retryable === true ? ' (retryable)' : ''}: ${text(data.reason) || 'no reason given'}`,
    typeof data.pdsStatus === 'number' ? `PDS ${data.pdsStatus}` : '',
  ]);
}

function messagingAsset(data: Data): string {
  const parseError = isData(data.parseError) ? data.parseError : undefined;
  const messageError = isData(data.messageError) ? data.messageError : undefined;
  return joinFacts([
    `asset ${text(data.messagingAssetId)}`,
    data.primaryKey ? `item ${text(data.primaryKey)}` : '',
    confirmations(data.cic),
    parseError ? `parse error: ${text(parseError.message)}` : '',
    messageError ? `message not fetched: ${text(messageError.message)}` : '',
  ]);
}

function supplierReview(data: Data): string {
  const review = isData(data.review) ? data.review : {};
  const messageError = isData(data.messageError) ? data.messageError : undefined;
  return joinFacts([
    `${text(review.reviewStatus) || 'review'}${review.reviewer ? ` by ${text(review.reviewer)}` : ''}`,
    review.channelId ? `channel ${text(review.channelId)}` : '',
    `asset ${text(data.messagingAssetId)}`,
    confirmations(data.cic),
    text(review.comment),
    messageError ? `message not fetched: ${text(messageError.message)}` : '',
  ]);
}

function publicationCompleted(data: Data): string {
  const destinations = Array.isArray(data.destinations) ? data.destinations : [];
  const targets = destinations.map((destination) => text((destination as Data | null)?.destinationId));
  return joinFacts([
    `${plural(Number(data.numberOfItems ?? 0), 'item', 'items')} → ${targets.join(', ') || 'no destination'}`,
    data.selectionId ? `selection ${short(text(data.selectionId))}` : '',
  ]);
}

/** `SYNCHRONISED` or `REVIEW (CIC999)` for each confirmation. */
function confirmations(value: unknown): string {
  if (!Array.isArray(value)) return '';
  return value
    .map((summary) => {
      const cic = isData(summary) ? summary : {};
      const codes = Array.isArray(cic.statuses)
        ? cic.statuses.map((status) => text((status as Data | null)?.code)).filter(Boolean)
        : [];
      return `${text(cic.state) || '?'}${codes.length ? ` (${codes.join(', ')})` : ''}`;
    })
    .join(', ');
}

function timeOf(value: unknown): string {
  const time = new Date(text(value));
  return Number.isNaN(time.getTime()) ? '--:--:--Z' : `${time.toISOString().slice(11, 19)}Z`;
}

function joinFacts(facts: string[]): string {
  return facts.filter((fact) => fact !== '').join(' · ');
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function short(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

function clip(value: string): string {
  const flat = oneLine(value);
  return flat.length > MAX_DETAIL ? `${flat.slice(0, MAX_DETAIL - 1)}…` : flat;
}

function isData(value: unknown): value is Data {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
