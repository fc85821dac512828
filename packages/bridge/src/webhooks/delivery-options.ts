/** What the webhook delivery flow (./delivery.ts) is built with and reports. */
import type { Log, Metrics } from '../core/index.ts';
import type { StateStore } from '../state/index.ts';
import type { EndpointRecord } from './endpoints.ts';
import type { postWebhook } from './post.ts';
import type { DeliveryQueue } from './queue.ts';
import type { UrlPolicy } from './url-policy.ts';

/** Why an endpoint was disabled, as reported to {@link WebhookDeliveryOptions.onDisabled}. */
export interface EndpointDisabled {
  readonly endpoint: EndpointRecord;
  readonly reason: 'gone' | 'failing';
  readonly detail: string;
}

export interface WebhookDeliveryOptions {
  readonly store: StateStore;
  readonly queue: DeliveryQueue;
  readonly policy: UrlPolicy;
  /** Every event type the bridge emits (endpoint filters are checked against it). */
  readonly knownTypes: readonly string[];
  /** An endpoint failing without a success for this long is disabled; default 5 days. */
  readonly disableAfterMs?: number;
  /** Per-attempt timeout; default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Sign with `v1a` (ed25519) too; default true. */
  readonly asymmetric?: boolean;
  /** Called once when an endpoint is disabled (the handler emits `pds.webhook.endpoint-disabled`). */
  readonly onDisabled?: (disabled: EndpointDisabled) => Promise<void>;
  readonly now?: () => Date;
  readonly random?: () => number;
  readonly log?: Log;
  readonly metrics?: Metrics;
  /** The POST (tests and benchmarks pass their own); default ./post.ts. */
  readonly post?: typeof postWebhook;
}

/** What one task came to. */
export type TaskOutcome = 'delivered' | 'retrying' | 'failed' | 'waiting' | 'undelivered' | 'disabled';
