/**
 * The environment the handlers run with in the local stack: what serverless.yml and deploy/*.yml give
 * them in AWS, pointed at the emulator and the PDS. It is applied to `process.env` before the handler
 * modules are imported, because each handler reads its configuration once, at import (cold start).
 */

import { LOCAL_MAX_CONCURRENCY } from './invocation-scope.ts';
import type { LocalResources } from './resources.ts';

/** Fake credentials: the emulator accepts any. */
export const LOCAL_AWS_CREDENTIALS = Object.freeze({ accessKeyId: 'test', secretAccessKey: 'test' });

/** The PDS the handlers talk to. */
export interface PdsConnection {
  baseUrl: string;
  username: string;
  password: string;
}

export interface HandlerEnvironmentInput {
  /** The emulator, `http://127.0.0.1:PORT`. */
  awsEndpoint: string;
  region: string;
  resources: LocalResources;
  pds: PdsConnection;
  apiToken: string;
  /** `backlog` with the simulator (its demo messaging assets show up), `now` with a real PDS. */
  pollFirstRun: 'now' | 'backlog';
  /** Handler log level; default WARN so the terminal stays readable. */
  logLevel?: string;
  /** An EventBridge backend (moto_server) and the bus made there (./eventbridge.ts); none: no EventBridge output. */
  eventBridge?: { endpoint: string; busName: string };
  /** The folder of the webhook secrets (WEBHOOK_SECRETS_DIR): no Secrets Manager locally. */
  webhookSecretsDir: string;
}

/** Variables to set; `undefined` means remove. */
export type EnvironmentChanges = Record<string, string | undefined>;

/**
 * The variables the stack sets whatever the environment says (`forced`), and the tuning variables it
 * only sets when they are not set already (`defaults`), so `POLL_CONCURRENCY=2 npm start` works.
 *
 * @example
 * ```ts
 * const { forced, defaults } = handlerEnvironment({ awsEndpoint, region, resources, pds, apiToken, pollFirstRun: 'backlog' });
 * forced.STATE_BUCKET; // 'pds-bridge-local-state'
 * ```
 */
export function handlerEnvironment(input: HandlerEnvironmentInput): {
  forced: EnvironmentChanges;
  defaults: Record<string, string>;
} {
  const { queues } = input.resources;
  const forced: EnvironmentChanges = {
    // AWS SDK: every client goes to the emulator, with fake credentials.
    AWS_ENDPOINT_URL: input.awsEndpoint,
    AWS_ENDPOINT_URL_S3: input.awsEndpoint,
    AWS_ENDPOINT_URL_SQS: input.awsEndpoint,
    // The emulator has no EventBridge: a backend of its own, or none (EVENT_BUS_NAME unset).
    AWS_ENDPOINT_URL_EVENTBRIDGE: input.eventBridge?.endpoint,
    EVENT_BUS_NAME: input.eventBridge?.busName,
    AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: undefined,
    AWS_REGION: input.region,
    AWS_DEFAULT_REGION: input.region,
    AWS_ACCESS_KEY_ID: LOCAL_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_AWS_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    // The bridge's own configuration (README, Configuration).
    STATE_BUCKET: input.resources.buckets.state,
    EVENTS_QUEUE_URL: queues.events.url,
    INGEST_EVENTS_QUEUE_URL: queues.events.url,
    INGEST_BUCKETS: input.resources.buckets.drop,
    PUBLICATION_EVENTS_QUEUE_URL: queues.events.url,
    CONFIRMATION_EVENTS_QUEUE_URL: queues.events.url,
    MESSAGING_ASSET_EVENTS_QUEUE_URL: queues.messagingAssetEvents.url,
    SUPPLIER_REVIEW_EVENTS_QUEUE_URL: queues.supplierReviewEvents.url,
    PUBLICATION_QUEUE_URL: queues.publications.url,
    WEBHOOK_QUEUE_URL: queues.webhooks.url,
    WEBHOOK_SLOW_QUEUE_URL: queues.webhooksSlow.url,
    // Local receivers listen on 127.0.0.1 over http (docs/webhooks.md, URL policy).
    WEBHOOK_URL_POLICY: 'any',
    // The webhook secrets in files of mode 0600 (packages/bridge/src/webhooks/files/store.ts).
    WEBHOOK_SECRETS_DIR: input.webhookSecretsDir,
    WEBHOOK_SECRETS_PREFIX: undefined,
    REVIEW_POLL_QUEUE_URL: queues.reviewPoll.url,
    PDS_BASE_URL: input.pds.baseUrl,
    PDS_USERNAME: input.pds.username,
    PDS_PASSWORD: input.pds.password,
    // A secret id would win over the variables above.
    PDS_CREDENTIALS_SECRET_ID: undefined,
    API_AUTH_MODE: 'bearer',
    API_TOKEN: input.apiToken,
    // The emulator's PutObjectTagging overwrites the object with the tagging XML.
    INGEST_TAG_OBJECTS: 'false',
    // Every handler shares this process: Powertools keeps each invocation's logger context apart
    // (./invocation-scope.ts), as in a Lambda environment that runs invocations side by side.
    AWS_LAMBDA_MAX_CONCURRENCY: LOCAL_MAX_CONCURRENCY,
  };
  const defaults: Record<string, string> = {
    POLL_FIRST_RUN: input.pollFirstRun,
    // Above the local ingest timeout (packages/local/src/resources.ts), below the ingest queue's visibility timeout.
    INGEST_LEASE_SECONDS: '270',
    POWERTOOLS_LOG_LEVEL: input.logLevel ?? 'WARN',
    // Metrics would be printed as embedded-metric-format JSON after every invocation.
    POWERTOOLS_METRICS_DISABLED: 'true',
    // With a backend every family goes to its queue and to the bus unless EVENT_DESTINATIONS says otherwise.
    ...(input.eventBridge ? { EVENT_DESTINATIONS: 'both' } : {}),
  };
  return { forced, defaults };
}

/**
 * Applies the changes to `env` (process.env by default); returns a function that puts back what was there.
 *
 * @example
 * ```ts
 * const restore = applyEnvironment(handlerEnvironment(input));
 * ```
 */
export function applyEnvironment(
  changes: { forced: EnvironmentChanges; defaults: Record<string, string> },
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const saved = new Map<string, string | undefined>();
  const set = (name: string, value: string | undefined) => {
    if (!saved.has(name)) saved.set(name, env[name]);
    if (value === undefined) delete env[name];
    else env[name] = value;
  };
  for (const [name, value] of Object.entries(changes.forced)) set(name, value);
  for (const [name, value] of Object.entries(changes.defaults)) {
    if (!env[name]?.trim()) set(name, value);
  }
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  };
}
