/**
 * Configuration, one job per module, exported here for the flows and the command lines:
 *
 * - lib/config/settings.ts: how one variable is read (`setting.*` builders), `ConfigError`;
 * - lib/config/base.ts: the base variables of the README's Configuration table and the `Config` shape;
 * - lib/config/credentials.ts: the credential source, as lib/pds/credentials.ts decides it;
 * - lib/config/event-routing.ts: which queue each event type goes to (lib/events re-exports it);
 * - lib/config/load.ts: `loadConfig` from an environment, `requireSetting`.
 *
 * Each flow's own variables are in `lib/<flow>/settings.ts`.
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env, { require: ['STATE_BUCKET'] });
 * ```
 */
export {
  BASE_SETTINGS,
  type BaseSettings,
  type Config,
  type PdsCredentialSource,
} from './config/base.ts';
export { type LoadConfigOptions, loadConfig, requireSetting } from './config/load.ts';
export {
  type Environment,
  type Parsed,
  type SettingOptions,
  type SettingSpec,
  type SettingSpecs,
  type SettingValue,
  type SettingValues,
  setting,
} from './config/settings.ts';
export { ConfigError } from './core/index.ts';
