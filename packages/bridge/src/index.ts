/**
 * pds-bridge, the part that ships to AWS Lambda: what a team builds on when it uses the bridge as a
 * library — the PDS client, the state store, the events, the HTTP API and the configuration. Each room
 * has its own entry for the rest (`@pds-bridge/bridge/events`, `@pds-bridge/bridge/state/s3`, …; the
 * `exports` of package.json list them), and the Lambda functions in functions/ wire the rooms
 * themselves, so that a bundle carries only what its function uses.
 *
 * @example
 * ```ts
 * import { createPdsClient, loadConfig, MemoryStateStore } from '@pds-bridge/bridge';
 * const config = loadConfig(process.env, { require: ['PDS_BASE_URL'] });
 * ```
 */
export { type Api, createApi } from './api/index.ts';
export { type Config, ConfigError, loadConfig } from './config/index.ts';
export { BridgeError } from './core/index.ts';
export { type CloudEvent, EVENT_TYPES, type EventSink } from './events/index.ts';
export { createPdsClient, type PdsClient, type PdsClientOptions } from './pds/index.ts';
export { createFullPdsClient, type FullPdsClient } from './pds/resources/index.ts';
export { MemoryStateStore, type StateStore } from './state/index.ts';
export { S3StateStore } from './state/s3/index.ts';
export { verifyWebhook } from './webhooks/index.ts';
