/**
 * Configuration from the environment, validated once at cold start.
 *
 * Every variable is described by a {@link SettingSpec}: a function that reads the raw text and a
 * description that goes into error messages. `loadConfig` checks the base variables of
 * ../shared/DESIGN.md plus whatever a function declares (its own tuning variables, the optional base
 * variables it cannot run without, the event types it emits) and throws one {@link ConfigError}
 * naming every bad or missing variable, so an operator fixes the environment in one go.
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
/** The variables a configuration is read from: `process.env`, or a stack's or a test's own. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** One or more configuration variables are missing or invalid; `problems` lists each. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      `Invalid configuration: ${problems.join('; ')}. Fix the function's environment (serverless.yml or the local stack) and start again.`,
    );
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

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
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: `must be an http(s) URL, not ${url.protocol.slice(0, -1)}` };
  }
  if (url.username || url.password) {
    return { ok: false, problem: 'must not contain credentials; give them in their own variables' };
  }
  if (url.search || url.hash) {
    return { ok: false, problem: 'must not contain a query or fragment' };
  }
  return { ok: true, value: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
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
      return Number.isSafeInteger(value) && value >= min && value <= max
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
      return Number.isSafeInteger(value) && value > 0
        ? { ok: true, value }
        : { ok: false, problem: 'must be a positive duration such as 500ms, 30s, 15m, 6h or 30d' };
    });
  },
};

/** Event-type prefixes and the variable that may route that family to its own queue. */
export const EVENT_QUEUE_OVERRIDES = Object.freeze({
  'pds.ingest.': 'INGEST_EVENTS_QUEUE_URL',
  'pds.messaging-asset.': 'MESSAGING_ASSET_EVENTS_QUEUE_URL',
  'pds.supplier-review.': 'SUPPLIER_REVIEW_EVENTS_QUEUE_URL',
  'pds.publication.': 'PUBLICATION_EVENTS_QUEUE_URL',
} as const);

type EventQueueOverride = (typeof EVENT_QUEUE_OVERRIDES)[keyof typeof EVENT_QUEUE_OVERRIDES];

/** The variables of ../shared/DESIGN.md's configuration table. */
export const BASE_SETTINGS = Object.freeze({
  PDS_BASE_URL: setting.url(
    'the PDS address; /api/v1 and /v1 are appended to it, e.g. https://pds.example.com',
    {
      required: true,
    },
  ),
  PDS_USERNAME: setting.string('the PDS user, for local and development use'),
  PDS_PASSWORD: setting.string('the password of PDS_USERNAME', { secret: true }),
  PDS_CREDENTIALS_SECRET_ID: setting.string(
    'the Secrets Manager secret (name or ARN) holding {"username","password"}, for production',
  ),
  STATE_BUCKET: setting.bucketName(
    'the S3 bucket for checkpoints, idempotency records, the watch list and claim-check payloads',
  ),
  EVENTS_QUEUE_URL: setting.url('the SQS queue URL for every event type unless overridden'),
  INGEST_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.ingest.* events (overrides EVENTS_QUEUE_URL)',
  ),
  MESSAGING_ASSET_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.messaging-asset.* events (overrides EVENTS_QUEUE_URL)',
  ),
  SUPPLIER_REVIEW_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.supplier-review.* events (overrides EVENTS_QUEUE_URL)',
  ),
  PUBLICATION_EVENTS_QUEUE_URL: setting.url(
    'the SQS queue URL for pds.publication.* events (overrides EVENTS_QUEUE_URL)',
  ),
  PUBLICATION_QUEUE_URL: setting.url(
    'the internal SQS queue URL between the api and publish-worker functions',
  ),
  AWS_REGION: setting.string('the AWS region, e.g. eu-central-1', {
    pattern: /^[a-z]{2,}(-[a-z0-9]+)+$/,
    hint: 'an AWS region name such as eu-central-1',
  }),
  AWS_ENDPOINT_URL: setting.url('an endpoint for every AWS service, e.g. a local emulator'),
  AWS_ENDPOINT_URL_S3: setting.url('an endpoint for S3, e.g. a local emulator'),
  AWS_ENDPOINT_URL_SQS: setting.url('an endpoint for SQS, e.g. a local emulator'),
});

/** A map of variable names to their specs. */
export type SettingSpecs = { readonly [name: string]: SettingSpec<unknown> };

/** The values the specs produce, by variable name. */
export type SettingValues<S extends SettingSpecs> = {
  -readonly [K in keyof S]: S[K] extends SettingSpec<infer T> ? T : never;
};

/** Values of the base variables. */
export type BaseSettings = SettingValues<typeof BASE_SETTINGS>;

/**
 * Where the PDS credentials come from: PDS_CREDENTIALS_SECRET_ID when set (it wins over the variables),
 * else PDS_USERNAME and PDS_PASSWORD. `password` is not enumerable, so it stays out of logs and JSON.
 */
export type PdsCredentialSource =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'secret'; readonly secretId: string };

/** The validated, frozen configuration of one function. */
export interface Config<S = BaseSettings> {
  /** PDS_BASE_URL without trailing slash. */
  readonly pdsBaseUrl: string;
  readonly pdsCredentials: PdsCredentialSource;
  /** Every variable by name; optional ones are `undefined` when unset. Secrets are not enumerable. */
  readonly settings: Readonly<S>;
}

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
  return specs[name]?.description ?? 'see ../shared/DESIGN.md';
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

  const credentials = resolveCredentials(values, problems);

  for (const name of options.require ?? []) {
    const key = String(name);
    if (!Object.hasOwn(specs, key)) {
      throw new Error(`Cannot require ${key}: it is neither a base variable nor declared in settings`);
    }
    if (values[key] === undefined && rawValue(env, key) === undefined) {
      problems.push(`${key} is required by this function (${describe(specs, key)})`);
    }
  }

  for (const eventType of new Set(options.eventTypes ?? [])) {
    const override = eventQueueOverrideFor(eventType);
    if (values.EVENTS_QUEUE_URL === undefined && (override === undefined || values[override] === undefined)) {
      problems.push(missingEventQueue(eventType, override));
    }
  }

  if (problems.length > 0 || credentials === undefined) {
    throw new ConfigError(problems);
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

function resolveCredentials(
  values: Record<string, unknown>,
  problems: string[],
): PdsCredentialSource | undefined {
  const username = values.PDS_USERNAME as string | undefined;
  const password = values.PDS_PASSWORD as string | undefined;
  const secretId = values.PDS_CREDENTIALS_SECRET_ID as string | undefined;
  // The secret wins over the variables, as lib/pds/credentials.ts resolves them.
  if (secretId !== undefined) return Object.freeze({ kind: 'secret', secretId });
  if (username === undefined && password === undefined) {
    problems.push(
      'PDS credentials are missing: set PDS_USERNAME and PDS_PASSWORD (local and development) or PDS_CREDENTIALS_SECRET_ID (production: a Secrets Manager secret holding {"username","password"})',
    );
    return undefined;
  }
  if (username === undefined) {
    problems.push('PDS_USERNAME is required when PDS_PASSWORD is set (the PDS user)');
    return undefined;
  }
  if (password === undefined) {
    problems.push('PDS_PASSWORD is required when PDS_USERNAME is set (the password of PDS_USERNAME)');
    return undefined;
  }
  const source = { kind: 'basic' as const, username };
  Object.defineProperty(source, 'password', { value: password, enumerable: false });
  return Object.freeze(source as PdsCredentialSource);
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
    throw new ConfigError([`${name} is required by this function (${describe(specs, name)})`]);
  }
  return value as NonNullable<S[K]>;
}

/**
 * The override variable for an event type's family (`pds.ingest.completed` → `INGEST_EVENTS_QUEUE_URL`),
 * or `undefined` for a type outside the known families.
 */
export function eventQueueOverrideFor(eventType: string): EventQueueOverride | undefined {
  for (const [prefix, variable] of Object.entries(EVENT_QUEUE_OVERRIDES)) {
    if (eventType.startsWith(prefix)) return variable;
  }
  return undefined;
}

function missingEventQueue(eventType: string, override: EventQueueOverride | undefined): string {
  return `EVENTS_QUEUE_URL${override ? ` or ${override}` : ''} is required to send ${eventType} events (the SQS queue URL for events)`;
}

/**
 * The queue an event type goes to: its family's override when set, else EVENTS_QUEUE_URL.
 * Throws a {@link ConfigError} naming both variables when neither is set.
 *
 * @example
 * ```ts
 * eventQueueUrlFor(config, 'pds.ingest.completed'); // INGEST_EVENTS_QUEUE_URL ?? EVENTS_QUEUE_URL
 * ```
 */
export function eventQueueUrlFor(config: Config<Partial<BaseSettings>>, eventType: string): string {
  const override = eventQueueOverrideFor(eventType);
  const url = (override && config.settings[override]) || config.settings.EVENTS_QUEUE_URL;
  if (!url) throw new ConfigError([missingEventQueue(eventType, override)]);
  return url;
}
