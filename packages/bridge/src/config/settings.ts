/**
 * How one configuration variable is read: the {@link SettingSpec} and its builders (`setting.url`,
 * `setting.integer`, …); a bad configuration ends in packages/bridge/src/core's `ConfigError`. Each flow declares its
 * own variables with these in `packages/bridge/src/<flow>/settings.ts`; packages/bridge/src/config/load.ts reads them.
 *
 * @example
 * ```ts
 * const SETTINGS = { POLL_CONCURRENCY: setting.integer('PDS requests in flight', { max: 64, default: 8 }) };
 * ```
 */
import { checkBaseUrl, isIntegerInRange } from '../core/index.ts';

/** The variables a configuration is read from: `process.env`, or a stack's or a test's own. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** What reading one variable gives: its value, or a problem completing the sentence "NAME …". */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** How one configuration variable is read, and what it is for. */
export interface SettingSpec<T> {
  /** What the variable holds, with an example; completes messages such as "NAME is required (…)". */
  readonly description: string;
  /**
   * Reads the trimmed text (`undefined` when unset or blank). A problem completes the sentence
   * "NAME …", for example "must be a positive integer".
   */
  readonly read: (raw: string | undefined) => Parsed<T>;
  /** A secret is never echoed in messages and is not enumerable on `config.settings`. */
  readonly secret: boolean;
}

/** Options shared by the setting builders. */
export interface SettingOptions<T> {
  /** The variable must be set (and non-blank). */
  readonly required?: boolean;
  /** Value used when the variable is unset or blank. */
  readonly default?: T;
  readonly secret?: boolean;
}

/** `T` when the setting is required or has a default, `T | undefined` otherwise. */
export type SettingValue<T, O> = O extends { required: true }
  ? T
  : O extends { default: T }
    ? T
    : T | undefined;

function makeSetting<T, O extends SettingOptions<T>>(
  description: string,
  options: O | undefined,
  parse: (raw: string) => Parsed<T>,
): SettingSpec<SettingValue<T, O>> {
  // Plain functions rather than schemas: every cold start reads some twenty variables.
  const read = (raw: string | undefined): Parsed<T | undefined> => {
    if (raw !== undefined) return parse(raw);
    return options?.required ? { ok: false, problem: 'is required' } : { ok: true, value: options?.default };
  };
  return Object.freeze({
    description,
    read: read as (raw: string | undefined) => Parsed<SettingValue<T, O>>,
    secret: options?.secret ?? false,
  });
}

function parseHttpUrl(raw: string): Parsed<string> {
  const checked = checkBaseUrl(raw);
  if (checked.ok)
    return { ok: true, value: `${checked.url.origin}${checked.url.pathname.replace(/\/+$/, '')}` };
  switch (checked.kind) {
    case 'invalid':
      return { ok: false, problem: 'must be an absolute http(s) URL' };
    case 'protocol':
      return { ok: false, problem: `must be an http(s) URL, not ${checked.protocol.slice(0, -1)}` };
    case 'credentials':
      return { ok: false, problem: 'must not contain credentials; give them in their own variables' };
    case 'query':
      return { ok: false, problem: 'must not contain a query or fragment' };
  }
}

const BUCKET_NAME = /^(?!\d+\.\d+\.\d+\.\d+$)(?!xn--)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

const DURATION = /^(\d+)\s*(ms|s|m|h|d)?$/;
const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Builders for setting specs; each returns a {@link SettingSpec} to pass in `loadConfig`'s `settings`.
 *
 * @example
 * ```ts
 * const extra = {
 *   POLL_CONCURRENCY: setting.integer('PDS requests in flight', { min: 1, max: 64, default: 8 }),
 *   WATCH_TTL: setting.duration('how long a watched key stays watched, e.g. 30d', { default: 30 * 86_400_000 }),
 * };
 * ```
 */
export const setting = {
  /** Free text, optionally checked against a pattern (`hint` says what the pattern means). */
  string<O extends SettingOptions<string> & { pattern?: RegExp; hint?: string }>(
    description: string,
    options?: O,
  ): SettingSpec<SettingValue<string, O>> {
    return makeSetting(description, options, (raw) =>
      options?.pattern && !options.pattern.test(raw)
        ? { ok: false, problem: `must be ${options.hint ?? `text matching ${options.pattern}`}` }
        : { ok: true, value: raw },
    );
  },

  /** An absolute http(s) URL without credentials, query or fragment; trailing slashes are removed. */
  url<O extends SettingOptions<string>>(
    description: string,
    options?: O,
  ): SettingSpec<SettingValue<string, O>> {
    return makeSetting(description, options, parseHttpUrl);
  },

  /** An S3 bucket name (3–63 lowercase letters, digits, dots and hyphens). */
  bucketName<O extends SettingOptions<string>>(
    description: string,
    options?: O,
  ): SettingSpec<SettingValue<string, O>> {
    return makeSetting(description, options, (raw) =>
      BUCKET_NAME.test(raw) && !raw.includes('..')
        ? { ok: true, value: raw }
        : { ok: false, problem: 'must be an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)' },
    );
  },

  /** A whole number within `[min, max]` (min defaults to 1). */
  integer<O extends SettingOptions<number> & { min?: number; max?: number }>(
    description: string,
    options?: O,
  ): SettingSpec<SettingValue<number, O>> {
    const min = options?.min ?? 1;
    const max = options?.max ?? Number.MAX_SAFE_INTEGER;
    const expected =
      max === Number.MAX_SAFE_INTEGER
        ? min === 1
          ? 'a positive integer'
          : min === 0
            ? 'a non-negative integer'
            : `an integer of at least ${min}`
        : `an integer from ${min} to ${max}`;
    return makeSetting(description, options, (raw) => {
      const value = /^[-+]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
      return isIntegerInRange(value, { min, max })
        ? { ok: true, value }
        : { ok: false, problem: `must be ${expected}` };
    });
  },

  /** `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`, any case). */
  boolean<O extends SettingOptions<boolean>>(
    description: string,
    options?: O,
  ): SettingSpec<SettingValue<boolean, O>> {
    return makeSetting(description, options, (raw) => {
      const text = raw.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(text)) return { ok: true, value: true };
      if (['false', '0', 'no', 'off'].includes(text)) return { ok: true, value: false };
      return { ok: false, problem: 'must be true or false' };
    });
  },

  /** One of a fixed set of words (exact match). */
  oneOf<const V extends readonly [string, ...string[]], O extends SettingOptions<V[number]>>(
    values: V,
    description: string,
    options?: O,
  ): SettingSpec<SettingValue<V[number], O>> {
    return makeSetting(description, options, (raw) =>
      (values as readonly string[]).includes(raw)
        ? { ok: true, value: raw as V[number] }
        : { ok: false, problem: `must be one of ${values.join(', ')}` },
    );
  },

  /** A duration in milliseconds: a plain number of ms or a number with a unit (`500ms`, `30s`, `15m`, `6h`, `30d`). */
  duration<O extends SettingOptions<number>>(
    description: string,
    options?: O,
  ): SettingSpec<SettingValue<number, O>> {
    return makeSetting(description, options, (raw) => {
      const match = DURATION.exec(raw);
      const value = match ? Number(match[1]) * DURATION_UNITS_MS[(match[2] ?? 'ms') as 'ms'] : Number.NaN;
      return isIntegerInRange(value, { min: 1 })
        ? { ok: true, value }
        : { ok: false, problem: 'must be a positive duration such as 500ms, 30s, 15m, 6h or 30d' };
    });
  },
};

/** A map of variable names to their specs. */
export type SettingSpecs = { readonly [name: string]: SettingSpec<unknown> };

/** The values the specs produce, by variable name. */
export type SettingValues<S extends SettingSpecs> = {
  -readonly [K in keyof S]: S[K] extends SettingSpec<infer T> ? T : never;
};
