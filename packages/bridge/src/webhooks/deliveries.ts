/**
 * The delivery log: one document per event and endpoint, with every attempt (time, HTTP status,
 * latency, the first bytes of the answer or the error). Kept, like the events offered to webhooks,
 * for the retention the state bucket's lifecycle rule on `webhooks/` sets (docs/webhooks.md).
 */
import type { CloudEvent } from '../events/index.ts';
import type { StateStore } from '../state/index.ts';
import {
  deliveryKey,
  EVENT_TIMES_PREFIX,
  endpointDeliveriesPrefix,
  eventHour,
  eventTimeKey,
  webhookEventKey,
} from './keys.ts';

/** First bytes of an answer kept per attempt. */
export const RESPONSE_SNIPPET_BYTES = 256;

export interface DeliveryAttempt {
  readonly at: string;
  readonly attempt: number;
  /** HTTP status; absent when no answer came (timeout, refused connection, refused URL). */
  readonly status?: number;
  readonly latencyMs: number;
  /** First {@link RESPONSE_SNIPPET_BYTES} bytes of the answer, or the error. */
  readonly response: string;
  readonly replay?: boolean;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'undelivered';

export interface DeliveryRecord {
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** `undelivered`: never attempted because the endpoint was disabled or deleted (replay brings it back). */
  readonly status: DeliveryStatus;
  readonly reason?: string;
  readonly attempts: readonly DeliveryAttempt[];
  readonly nextAttemptAt?: string;
  readonly updatedAt: string;
}

/** Keeps the most recent attempts of a record (a replayed delivery adds more). */
const MAX_ATTEMPTS_KEPT = 50;

/**
 * Records an attempt or a status change of one delivery. `likelyNew` (a first attempt, not a replay)
 * tries a conditional create first, so the common case costs one write instead of a read and a write.
 */
export async function recordDelivery(
  store: StateStore,
  base: { endpointId: string; eventId: string; eventType: string },
  change: {
    status: DeliveryStatus;
    reason?: string;
    attempt?: DeliveryAttempt;
    nextAttemptAt?: string;
    now: Date;
  },
  options: { likelyNew?: boolean } = {},
): Promise<DeliveryRecord | undefined> {
  const key = deliveryKey(base.endpointId, base.eventId);
  const next = (current: DeliveryRecord | undefined): DeliveryRecord => {
    const attempts = [...(current?.attempts ?? []), ...(change.attempt ? [change.attempt] : [])].slice(
      -MAX_ATTEMPTS_KEPT,
    );
    return {
      ...base,
      status: change.status,
      ...(change.reason !== undefined ? { reason: change.reason } : {}),
      attempts,
      ...(change.nextAttemptAt !== undefined ? { nextAttemptAt: change.nextAttemptAt } : {}),
      updatedAt: change.now.toISOString(),
    };
  };
  // A first attempt has no record yet: one conditional create instead of a read and a write. When a
  // record exists after all (a duplicate SQS message), the read-modify-write below appends to it.
  if (options.likelyNew) {
    const record = next(undefined);
    if ((await store.create(key, record)).created) return record;
  }
  const result = await store.mutate<DeliveryRecord>(key, next);
  return result.value;
}

export async function getDelivery(
  store: StateStore,
  endpointId: string,
  eventId: string,
): Promise<DeliveryRecord | undefined> {
  return (await store.get<DeliveryRecord>(deliveryKey(endpointId, eventId)))?.value;
}

/**
 * Whether a record answers a status filter. `failed` takes, beside the deliveries given up after the
 * last attempt, those still retrying after a failed attempt (`pending`, their latest attempt not a
 * 2xx): an operator asking for an endpoint's failures sees them while they happen, not days later.
 */
function hasStatus(record: DeliveryRecord, status: DeliveryStatus): boolean {
  if (record.status === status) return true;
  const latest = record.attempts.at(-1);
  const latestFailed =
    latest !== undefined && !(latest.status !== undefined && latest.status >= 200 && latest.status < 300);
  return status === 'failed' && record.status === 'pending' && latestFailed;
}

/**
 * The delivery log of one endpoint, optionally only one status (`failed`: see {@link hasStatus});
 * at most `limit` records.
 */
export async function listDeliveries(
  store: StateStore,
  endpointId: string,
  options: { status?: DeliveryStatus; limit?: number } = {},
): Promise<DeliveryRecord[]> {
  const limit = options.limit ?? 100;
  const records: DeliveryRecord[] = [];
  for await (const key of store.list(endpointDeliveriesPrefix(endpointId))) {
    const record = (await store.get<DeliveryRecord>(key))?.value;
    if (!record || (options.status && !hasStatus(record, options.status))) continue;
    records.push(record);
    if (records.length >= limit) break;
  }
  return records;
}

/** Keeps an event offered to webhooks (and its time index entry) for replay; a repeat is a no-op. */
export async function keepEvent(store: StateStore, event: CloudEvent): Promise<void> {
  await store.create(webhookEventKey(event.id), event);
  const time = new Date(event.time);
  await store.create(eventTimeKey(Number.isNaN(time.getTime()) ? new Date() : time, event.id), {
    id: event.id,
  });
}

export async function keptEvent(store: StateStore, eventId: string): Promise<CloudEvent | undefined> {
  return (await store.get<CloudEvent>(webhookEventKey(eventId)))?.value;
}

/**
 * The events kept with a time in [since, until), oldest first (by hour), each with its time in epoch
 * ms, reading only the hours in range.
 */
export async function* keptEventIds(
  store: StateStore,
  since: Date,
  until: Date,
): AsyncIterable<{ id: string; time: number }> {
  const hour = 3_600_000;
  for (let at = Math.floor(since.getTime() / hour) * hour; at < until.getTime(); at += hour) {
    for await (const key of store.list(`${EVENT_TIMES_PREFIX}${eventHour(new Date(at))}/`)) {
      const entry = await store.get<{ id: string }>(key);
      const time = Date.parse(key.slice(key.lastIndexOf('/') + 1).split('_')[0] ?? '');
      if (entry && time >= since.getTime() && time < until.getTime()) yield { id: entry.value.id, time };
    }
  }
}
