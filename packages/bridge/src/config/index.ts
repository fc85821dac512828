/**
 * Configuration, one job per module, exported here for the flows and the command lines:
 *
 * - packages/bridge/src/config/settings.ts: how one variable is read (`setting.*` builders), `ConfigError`;
 * - packages/bridge/src/config/base.ts: the base variables of the README's Configuration table and the `Config` shape;
 * - packages/bridge/src/config/credentials.ts: the credential source, as packages/bridge/src/pds/credentials.ts decides it;
 * - packages/bridge/src/config/event-routing.ts and event-destinations.ts: which queue each event type goes to, and
 *   where each family goes (SQS, EventBridge or both); imported from their files;
 * - packages/bridge/src/config/load.ts: `loadConfig` from an environment, `requireSetting`.
 *
 * Each flow's own variables are in `packages/bridge/src/<flow>/settings.ts`.
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env, { require: ['STATE_BUCKET'] });
 * ```
 */

export { ConfigError } from '../core/index.ts';
export {
  BASE_SETTINGS,
  type BaseSettings,
  type Config,
  type PdsCredentialSource,
} from './base.ts';
export { type LoadConfigOptions, loadConfig, requireSetting } from './load.ts';
export {
  type Environment,
  type Parsed,
  type SettingOptions,
  type SettingSpec,
  type SettingSpecs,
  type SettingValue,
  type SettingValues,
  setting,
} from './settings.ts';
