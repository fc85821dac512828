/**
 * Configuration from an environment, validated once at cold start.
 *
 * `loadConfig` checks the base variables (packages/bridge/src/config/base.ts) plus whatever a function declares (its
 * own tuning variables from `packages/bridge/src/<flow>/settings.ts`, the optional base variables it cannot run
 * without, the event types it emits) and throws one {@link ConfigError} naming every bad or missing
 * variable, so an operator fixes the environment in one go. It reads the environment it is given, so
 * one process can hold two configurations (the local stack, tests).
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env, {
 *   require: ['STATE_BUCKET'],
 *   eventTypes: ['pds.ingest.completed', 'pds.ingest.failed'],
 *   settings: { INGEST_MAX_IMPORTS: setting.integer('imports in flight per object', { min: 1, max: 32, default: 4 }) },
 * });
 * config.settings.STATE_BUCKET; // string, checked above
 * config.settings.INGEST_MAX_IMPORTS; // number
 * ```
 */

import { ConfigError } from '../core/index.ts';
import { BASE_SETTINGS, type BaseSettings, type Config } from './base.ts';
import { credentialSourceOf } from './credentials.ts';
import { unroutedEventTypeProblems } from './event-routing.ts';
import type { Environment, SettingSpec, SettingSpecs, SettingValues } from './settings.ts';

/** What a function declares at cold start, on top of the base variables. */
export interface LoadConfigOptions<E extends SettingSpecs, R extends keyof BaseSettings | keyof E> {
  /** The function's own variables (tuning, limits). Names must not repeat a base variable. */
  readonly settings?: E;
  /** Optional variables this function cannot run without (for example STATE_BUCKET). */
  readonly require?: readonly R[];
  /** Event types this function emits: each must resolve to a queue (its override or EVENTS_QUEUE_URL). */
  readonly eventTypes?: readonly string[];
}

type Settled<S, R extends PropertyKey> = Omit<S, R> & { [K in R & keyof S]-?: NonNullable<S[K]> };

/** Specs each loaded config was built from, so `requireSetting` can describe what is missing. */
const specsOf = new WeakMap<object, SettingSpecs>();

const MAX_SHOWN = 80;

function shown(spec: SettingSpec<unknown>, raw: string): string {
  if (spec.secret) return '';
  const redacted = raw.replace(/\/\/[^/@\s]*@/, '//***@');
  const text = redacted.length > MAX_SHOWN ? `${redacted.slice(0, MAX_SHOWN)}…` : redacted;
  return ` (got ${JSON.stringify(text)})`;
}

function rawValue(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function describe(specs: SettingSpecs, name: string): string {
  return specs[name]?.description ?? 'see the Configuration table of the README';
}

/**
 * Reads and validates the configuration; throws one {@link ConfigError} listing every problem.
 * Blank variables count as unset. The result and everything in it is frozen.
 *
 * @example
 * ```ts
 * const config = loadConfig(); // process.env
 * config.pdsBaseUrl; // 'https://pds.example.com'
 * config.pdsCredentials.kind; // 'basic' or 'secret'
 * ```
 */
export function loadConfig<
  E extends SettingSpecs = Record<never, never>,
  R extends keyof BaseSettings | keyof E = never,
>(
  env: Environment = process.env,
  options: LoadConfigOptions<E, R> = {},
): Config<Settled<BaseSettings & SettingValues<E>, R>> {
  const extra = options.settings ?? ({} as E);
  for (const name of Object.keys(extra)) {
    if (Object.hasOwn(BASE_SETTINGS, name)) {
      throw new Error(
        `Setting ${name} is a base variable; declare only the function's own variables in settings`,
      );
    }
  }
  const specs: SettingSpecs = { ...BASE_SETTINGS, ...extra };
  const problems: string[] = [];
  const values: Record<string, unknown> = {};

  for (const [name, spec] of Object.entries(specs)) {
    const raw = rawValue(env, name);
    const result = spec.read(raw);
    if (result.ok) {
      values[name] = result.value;
    } else {
      problems.push(
        `${name} ${result.problem}${raw === undefined ? '' : shown(spec, raw)} (${spec.description})`,
      );
    }
  }

  const credentials = credentialSourceOf(values, problems);

  for (const name of options.require ?? []) {
    const key = String(name);
    if (!Object.hasOwn(specs, key)) {
      throw new Error(`Cannot require ${key}: it is neither a base variable nor declared in settings`);
    }
    if (values[key] === undefined && rawValue(env, key) === undefined) {
      problems.push(`${key} is required by this function (${describe(specs, key)})`);
    }
  }

  problems.push(...unroutedEventTypeProblems(values, options.eventTypes ?? []));

  if (problems.length > 0 || credentials === undefined) {
    throw ConfigError.fromProblems(problems);
  }

  const settings: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    Object.defineProperty(settings, name, { value, enumerable: !specs[name]?.secret });
  }
  const config = Object.freeze({
    pdsBaseUrl: values.PDS_BASE_URL as string,
    pdsCredentials: credentials,
    settings: Object.freeze(settings),
  });
  specsOf.set(config, specs);
  return config as unknown as Config<Settled<BaseSettings & SettingValues<E>, R>>;
}

/**
 * Returns a variable the function cannot run without, or throws a {@link ConfigError} naming it.
 *
 * @example
 * ```ts
 * const bucket = requireSetting(config, 'STATE_BUCKET'); // string
 * ```
 */
export function requireSetting<S, K extends keyof S & string>(config: Config<S>, name: K): NonNullable<S[K]> {
  const value = config.settings[name];
  if (value === undefined || value === null) {
    const specs = specsOf.get(config) ?? BASE_SETTINGS;
    throw ConfigError.fromProblems([`${name} is required by this function (${describe(specs, name)})`]);
  }
  return value as NonNullable<S[K]>;
}
