/** What the webhook delivery flow (./delivery.ts) is built with and reports. */
import type { Log, Metrics } from '../core/index.ts';
import type { StateStore } from '../state/index.ts';
import type { EndpointRecord } from './endpoints.ts';
import type { postWebhook } from './post.ts';
import type { DeliveryQueue } from './queue.ts';
import type { SecretStore } from './secret-store.ts';
import type { UrlPolicy } from './url-policy.ts';

/** Why an endpoint was disabled, as reported to {@link WebhookDeliveryOptions.onDisabled}. */
export interface EndpointDisabled {
  readonly endpoint: EndpointRecord;
  readonly reason: 'gone' | 'failing';
  readonly detail: string;
}

export interface WebhookDeliveryOptions {
  readonly store: StateStore;
  /**
   * Where the endpoints' secrets, their custom headers and the signing key are kept (./secrets.ts):
   * never the state store, which the delivery views are read from.
   */
  readonly secrets: SecretStore;
  /** The main lane: events offered, and the tasks of healthy endpoints (replays are queued here too). */
  readonly queue: DeliveryQueue;
  /**
   * The slow lane: the tasks of endpoints that are not healthy (their last attempt failed). Without
   * it there is one lane, which attempts every task (the api and the operators' tools only queue
   * replays, on the main lane; the webhook-delivery function always has both).
   */
  readonly slowQueue?: DeliveryQueue;
  readonly policy: UrlPolicy;
  /** Every event type the bridge emits (endpoint filters are checked against it). */
  readonly knownTypes: readonly string[];
  /** An endpoint failing without a success for this long is disabled; default 5 days. */
  readonly disableAfterMs?: number;
  /** How long kept events and the delivery log are kept: a replay's oldest `since`; default 30 days. */
  readonly retentionMs?: number;
  /** Per-attempt timeout; default 10 000 ms. */
  readonly timeoutMs?: number;
  /**
   * The most an attempt on the main lane may take (with a slow lane): the budget follows the lane's
   * answers up to it (./lane-budget.ts); past the budget the attempt is stopped, not counted as
   * failed, and its task handed to the slow lane at once, where it has the whole `timeoutMs`; the
   * endpoint stays on the slow lane until it answers within the budget it missed. Default 2 000 ms;
   * at or above `timeoutMs` there is no budget apart from the deadline.
   */
  readonly mainLaneBudgetMs?: number;
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

/**
 * What one task came to (`moved`: found on the main lane for an endpoint that is not healthy, sent
 * to the slow lane without an attempt; `already-delivered`: not sent, the log records it delivered
 * since the task was queued).
 */
export type TaskOutcome =
  | 'delivered'
  | 'already-delivered'
  | 'retrying'
  | 'failed'
  | 'waiting'
  | 'moved'
  | 'undelivered'
  | 'disabled';
