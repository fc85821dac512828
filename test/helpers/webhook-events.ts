/**
 * The small event the webhook tests and benchmarks deliver: `pds.ingest.completed` for drop `n`, id
 * `evt-<n>`, `data: { n }`, timed 2026-12-01 10:<n> UTC. A caller that needs another field (a type,
 * a subject filter's subject, a padded body, a time) overrides it.
 */
import { type CloudEvent, EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/index.ts';
import {
  MemoryDeliveryQueue,
  MemorySecretStore,
  WebhookDelivery,
  type WebhookDeliveryOptions,
} from '../../packages/bridge/src/webhooks/index.ts';

export function dropEvent(n: number, overrides: Record<string, unknown> = {}): CloudEvent {
  return {
    specversion: '1.0',
    id: `evt-${n}`,
    source: 'urn:pds-bridge',
    type: 'pds.ingest.completed',
    subject: `s3://drop/file-${n}.csv`,
    time: new Date(Date.UTC(2026, 11, 1, 10, n)).toISOString(),
    datacontenttype: 'application/json',
    data: { n },
    ...overrides,
  } as unknown as CloudEvent;
}

/**
 * A webhook delivery flow on memory ports with both lanes, as the tests and benchmarks that need no
 * SQS build it: `policy: 'any'` (receivers on 127.0.0.1), every event type known; `options` override.
 */
export function memoryDelivery(options: Partial<WebhookDeliveryOptions> = {}) {
  const store = new MemoryStateStore();
  const queue = new MemoryDeliveryQueue();
  const slowQueue = new MemoryDeliveryQueue();
  const secrets = new MemorySecretStore();
  const delivery = new WebhookDelivery({
    store,
    secrets,
    queue,
    slowQueue,
    policy: 'any',
    knownTypes: EVENT_TYPES,
    ...options,
  });
  return { store, secrets, queue, slowQueue, delivery };
}
