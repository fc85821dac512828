/**
 * The configuration variables of the api function, declared once for the handler (and the local
 * stack), plus the cross-variable check `loadConfig` cannot express.
 */

import { setting } from '../config/index.ts';
import { ConfigError } from '../core/index.ts';
import { WATCH_TTL_SETTING, watchTtlMsOf } from '../publications/settings.ts';
import { AUTH_MODES, type AuthSettings } from './auth.ts';

/** Variables of the api function. */
export const API_SETTINGS = Object.freeze({
  PUBLICATION_MAX_KEYS: setting.integer('most primary keys one POST /publications may list, e.g. 1000', {
    min: 1,
    max: 100_000,
    default: 1000,
  }),
  PUBLICATION_CHANNELS_CACHE_SECONDS: setting.integer(
    'seconds GET /communication-channels reuses the PDS list; 0 reads it every time',
    { min: 0, max: 3600, default: 60 },
  ),
  WATCH_TTL_DAYS: WATCH_TTL_SETTING,
  API_AUTH_MODE: setting.oneOf(
    AUTH_MODES,
    'how callers authenticate: iam (SigV4, checked by API Gateway; deployed) or bearer (API_TOKEN; local stack)',
    { default: 'iam' },
  ),
  API_TOKEN: setting.string('the bearer token callers send when API_AUTH_MODE=bearer', {
    secret: true,
    pattern: /^[\x21-\x7e]{16,512}$/,
    hint: '16 to 512 visible ASCII characters',
  }),
});

/** Settings the api needs, read from a loaded config. */
export interface ApiSettings {
  maxKeys: number;
  channelsCacheMs: number;
  watchTtlMs: number;
  auth: AuthSettings;
}

/**
 * The api's settings; throws a {@link ConfigError} when bearer mode has no token.
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env, { settings: API_SETTINGS, require: ['STATE_BUCKET', 'PUBLICATION_QUEUE_URL'] });
 * const settings = apiSettingsOf(config.settings);
 * ```
 */
export function apiSettingsOf(settings: {
  PUBLICATION_MAX_KEYS: number;
  PUBLICATION_CHANNELS_CACHE_SECONDS: number;
  WATCH_TTL_DAYS: number;
  API_AUTH_MODE: AuthSettings['mode'];
  API_TOKEN?: string | undefined;
}): ApiSettings {
  if (settings.API_AUTH_MODE === 'bearer' && !settings.API_TOKEN) {
    throw ConfigError.fromProblems([
      'API_TOKEN is required when API_AUTH_MODE=bearer (the bearer token callers send; 16 to 512 visible ASCII characters)',
    ]);
  }
  return {
    maxKeys: settings.PUBLICATION_MAX_KEYS,
    channelsCacheMs: settings.PUBLICATION_CHANNELS_CACHE_SECONDS * 1000,
    watchTtlMs: watchTtlMsOf(settings.WATCH_TTL_DAYS),
    auth:
      settings.API_AUTH_MODE === 'bearer'
        ? { mode: 'bearer', token: settings.API_TOKEN as string }
        : { mode: 'iam' },
  };
}
