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
}

/** What a replay reads and queues with. */
export interface ReplayDependencies {
  store: StateStore;
  queue: DeliveryQueue;
  registry: EndpointRegistry;
  now: () => Date;
}

/**
 * Queues events again for one endpoint, with their original ids: by id, or by time range
 * (`since` ≤ time < `until`), optionally only those not delivered there. Events that never
 * reached the endpoint (it did not exist or was disabled) are included: replay reads the events
 * kept when they were offered, not the delivery log. An open breaker is half-opened. Returns the
 * ids queued.
 */
export async function replayEvents(
  deps: ReplayDependencies,
  endpointId: string,
  request: ReplayRequest,
): Promise<string[]> {
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
  const ids: string[] = [];
  if (request.eventIds) ids.push(...request.eventIds);
  else {
    for await (const id of keptEventIds(deps.store, request.since as Date, request.until ?? deps.now()))
      ids.push(id);
  }
  const queued: string[] = [];
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
    if (!request.eventIds && !endpointMatches(endpoint, event)) continue;
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
  return queued;
}
