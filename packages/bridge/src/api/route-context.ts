/**
 * What the API is built from (its ports and settings) and what its route groups share within one
 * API: each route group (./publication-routes.ts, ./watch-routes.ts, …) is built from a RouteContext.
 */
import type { Log, Metrics } from '../core/index.ts';
import type { PdsClient } from '../pds/index.ts';
import type { PublicationQueue } from '../publications/queue.ts';
import type { StateStore } from '../state/index.ts';
import type { WebhookDelivery } from '../webhooks/index.ts';
import type { ChannelCache } from './channel-cache.ts';
import type { createApiSchemas } from './schemas.ts';
import type { ApiSettings } from './settings.ts';

export interface ApiDependencies {
  store: StateStore;
  queue: PublicationQueue;
  /** The PDS client, resolved lazily (credentials may come from a secret). */
  pds: () => Promise<PdsClient>;
  settings: ApiSettings;
  /** Reported by GET /health and in the OpenAPI document. */
  version: string;
  now?: () => Date;
  log?: Log;
  /** Counts what happened (PublicationsAccepted, ApiErrors, …); the Powertools Metrics fits. */
  metrics?: Metrics;
  /** Webhook delivery (packages/bridge/src/webhooks): the /webhooks routes answer 503 without it. */
  webhooks?: WebhookDelivery;
  /** How long a rotated-out webhook secret keeps signing; default 24 h. */
  webhookRotationOverlapMs?: number;
  /** Passed to the idempotency logic (tests shorten them). */
  idempotency?: { inProgressWaitMs?: number; claimTimeoutMs?: number };
}

/** What the routes are built from: the dependencies, and what they share within one API. */
export interface RouteContext {
  deps: ApiDependencies;
  store: StateStore;
  settings: ApiSettings;
  schemas: ReturnType<typeof createApiSchemas>;
  parameters: ReturnType<typeof createApiSchemas>['parameters'];
  channels: ChannelCache;
  now: () => Date;
  log: Log;
}
