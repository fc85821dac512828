/**
 * Replaying kept events to one endpoint (`POST /webhooks/endpoints/{id}/replay`, `pds webhooks
 * replay`): what {@link WebhookDelivery.replay} (./delivery.ts) runs.
 */
import type { StateStore } from '../state/index.ts';
import { getDelivery, keptEvent, keptEventIds } from './deliveries.ts';
import { type EndpointRegistry, endpointMatches } from './endpoints.ts';
import { WebhookError } from './errors.ts';
import type { DeliveryQueue, DeliveryTask } from './queue.ts';

/** Which events to replay: by id, or by time range (`since` ≤ time < `until`), optionally only those not delivered. */
export interface ReplayRequest {
  eventIds?: readonly string[];
  since?: Date;
  until?: Date;
  failedOnly?: boolean;
  /** Events of a time range examined per call, at most {@link REPLAY_PAGE_EVENTS} (the default). */
  limit?: number;
}

/** What a replay queued, what it left out and why, and where the next page of a time range starts. */
export interface ReplayResult {
  readonly queued: string[];
  /** Events named by id that the endpoint's filters (event types, subject) do not take: not queued. */
  readonly skipped: Array<{ eventId: string; reason: string }>;
  /** More events in the range: replay again with `since` = this (ISO time), the rest unchanged. */
  readonly next?: string;
}

/** What a replay reads and queues with. */
export interface ReplayDependencies {
  store: StateStore;
  queue: DeliveryQueue;
  registry: EndpointRegistry;
  now: () => Date;
  /** How long events and the log are kept (the state bucket's lifecycle): the oldest `since`; default 30 days. */
  retentionMs?: number;
}

/**
 * Events of a time range one replay call examines: each is a read of the state bucket, so a page
 * ends well within the API's 29 s; the answer's `next` continues.
 */
export const REPLAY_PAGE_EVENTS = 1000;

/** The default of how long kept events and the delivery log are kept (deploy: webhookRetentionDays). */
export const DEFAULT_RETENTION_MS = 30 * 86_400_000;

/**
 * Queues events again for one endpoint, with their original ids: by id, or by time range
 * (`since` ≤ time < `until`, `since` within the retention, one page of at most `limit` events per
 * call), optionally only those not delivered there. Events that never reached the endpoint (it did
 * not exist or was disabled) are included: replay reads the events kept when they were offered, not
 * the delivery log. Either way only events the endpoint's filters take are queued; those named by id
 * that they do not take are answered as skipped. An open breaker is half-opened.
 */
export async function replayEvents(
  deps: ReplayDependencies,
  endpointId: string,
  request: ReplayRequest,
): Promise<ReplayResult> {
  const endpoint = await deps.registry.require(endpointId);
  if (endpoint.status === 'disabled') {
    throw new WebhookError(
      'WEBHOOK_REPLAY_INVALID',
      `Endpoint ${endpointId} is disabled; enable it before replaying to it`,
    );
  }
  if (!request.eventIds && !request.since) {
    throw new WebhookError(
      'WEBHOOK_REPLAY_INVALID',
      'Name the events to replay: eventIds, or since (and until)',
    );
  }
  const { ids, next } = request.eventIds
    ? { ids: request.eventIds, next: undefined }
    : await pageOfRange(deps, request);
  const queued: string[] = [];
  const skipped: ReplayResult['skipped'] = [];
  for (const id of new Set(ids)) {
    const event = await keptEvent(deps.store, id);
    if (!event) {
      if (request.eventIds)
        throw new WebhookError(
          'WEBHOOK_REPLAY_INVALID',
          `Event ${id} is not kept (older than the retention, or never offered to webhooks)`,
        );
      continue;
    }
    if (!endpointMatches(endpoint, event)) {
      if (request.eventIds)
        skipped.push({
          eventId: id,
          reason: `the endpoint does not take it (${event.type}${event.subject ? `, subject ${event.subject}` : ''}): change its event types or subject to send it`,
        });
      continue;
    }
    if (request.failedOnly && (await getDelivery(deps.store, endpointId, id))?.status === 'delivered')
      continue;
    queued.push(id);
  }
  const queuedAt = deps.now().toISOString();
  const tasks = queued.map(
    (eventId): DeliveryTask => ({ kind: 'deliver', endpointId, eventId, attempt: 1, replay: true, queuedAt }),
  );
  // A replay is the operator's word that the endpoint is back: an open breaker is half-opened, so the
  // first replayed task probes now instead of every one waiting out the breaker (up to 15 min). The
  // failure count stays: if the probe fails, the breaker opens again for twice as long. The time of
  // the replay is noted, so the tasks it may overtake check the log before they are sent.
  const openUntil = endpoint.breakerOpenUntil ? Date.parse(endpoint.breakerOpenUntil) : 0;
  if (tasks.length > 0)
    await deps.registry.change(endpointId, ({ breakerOpenUntil, ...rest }) => ({
      ...rest,
      ...(breakerOpenUntil && openUntil <= deps.now().getTime() ? { breakerOpenUntil } : {}),
      replayedAt: queuedAt,
    }));
  for (let i = 0; i < tasks.length; i += 100) await deps.queue.enqueue(tasks.slice(i, i + 100));
  return { queued, skipped, ...(next ? { next } : {}) };
}

/**
 * One page of a time range: the ids of at most `limit` events from `since` (whole milliseconds: a
 * page never ends between two events of the same time, so `next` repeats none), and where the next
 * page starts. A `since` older than the retention is refused: nothing is kept from before it, and
 * listing the hours back to it could run for hours.
 */
async function pageOfRange(
  deps: ReplayDependencies,
  request: ReplayRequest,
): Promise<{ ids: string[]; next: string | undefined }> {
  const since = request.since as Date;
  const now = deps.now();
  const oldest = new Date(now.getTime() - (deps.retentionMs ?? DEFAULT_RETENTION_MS));
  if (Number.isNaN(since.getTime()) || since < oldest) {
    throw new WebhookError(
      'WEBHOOK_REPLAY_INVALID',
      `since ${Number.isNaN(since.getTime()) ? 'is not a time' : since.toISOString()}: events and their delivery log are kept ${Math.round((deps.retentionMs ?? DEFAULT_RETENTION_MS) / 3_600_000)} hours; give a since no earlier than ${oldest.toISOString()}`,
    );
  }
  const limit = Math.max(1, Math.min(REPLAY_PAGE_EVENTS, request.limit ?? REPLAY_PAGE_EVENTS));
  const ids: string[] = [];
  let last = Number.NaN;
  for await (const { id, time } of keptEventIds(deps.store, since, request.until ?? now)) {
    if (ids.length >= limit && time !== last) return { ids, next: new Date(time).toISOString() };
    ids.push(id);
    last = time;
  }
  return { ids, next: undefined };
}
