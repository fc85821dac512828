/**
 * The keys of the webhook records in the state bucket (docs/architecture.md, "The state bucket"):
 *
 * - `webhooks/endpoints/<id>.json`: one endpoint (URL, filters, header names, breaker, status; its
 *   secrets are referenced, their values are in the secret store: ./secrets.ts)
 * - `webhooks/public-key.json`: the public key of the bridge's ed25519 key pair (`v1a`)
 * - `webhooks/signing-key.json`: where the key pair was kept before the secret store; read once to move
 *   it there, then emptied
 * - `webhooks/events/<event id>.json`: each event offered to webhooks, kept for replay
 * - `webhooks/event-times/<YYYY-MM-DDTHH>/<time>_<event id>`: the time index replay ranges read
 * - `webhooks/deliveries/<endpoint id>/<event id>.json`: the delivery log of one event at one endpoint
 */
import { encodeKeySegment, statePrefix } from '../state/index.ts';

export const WEBHOOKS_PREFIX = statePrefix('webhooks', 'packages/bridge/src/webhooks');
export const ENDPOINTS_PREFIX = `${WEBHOOKS_PREFIX}endpoints/`;
export const SIGNING_KEY_KEY = `${WEBHOOKS_PREFIX}signing-key.json`;
export const PUBLIC_KEY_KEY = `${WEBHOOKS_PREFIX}public-key.json`;
export const WEBHOOK_EVENTS_PREFIX = `${WEBHOOKS_PREFIX}events/`;
export const EVENT_TIMES_PREFIX = `${WEBHOOKS_PREFIX}event-times/`;
export const DELIVERIES_PREFIX = `${WEBHOOKS_PREFIX}deliveries/`;

export function endpointKey(id: string): string {
  return `${ENDPOINTS_PREFIX}${encodeKeySegment(id)}.json`;
}

export function webhookEventKey(eventId: string): string {
  return `${WEBHOOK_EVENTS_PREFIX}${encodeKeySegment(eventId)}.json`;
}

/** The hour folder of the time index: `2026-12-01T19`. */
export function eventHour(time: Date): string {
  return time.toISOString().slice(0, 13);
}

export function eventTimeKey(time: Date, eventId: string): string {
  return `${EVENT_TIMES_PREFIX}${eventHour(time)}/${time.toISOString()}_${encodeKeySegment(eventId)}`;
}

export function deliveryKey(endpointId: string, eventId: string): string {
  return `${DELIVERIES_PREFIX}${encodeKeySegment(endpointId)}/${encodeKeySegment(eventId)}.json`;
}

export function endpointDeliveriesPrefix(endpointId: string): string {
  return `${DELIVERIES_PREFIX}${encodeKeySegment(endpointId)}/`;
}
