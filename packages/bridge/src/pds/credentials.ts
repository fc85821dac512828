/**
 * Where the PDS credentials come from: a Secrets Manager secret in production
 * (`PDS_CREDENTIALS_SECRET_ID`, JSON `{"username","password"}`, cached), or `PDS_USERNAME` /
 * `PDS_PASSWORD` for local and development use. Errors name the missing variable or field, never a value.
 */
import { ConfigError } from '../core/index.ts';
import type { PdsCredentials } from './transport.ts';

/** Reads a secret as parsed JSON. Matches Powertools' `getSecret(id, { transform: 'json', maxAge })`. */
export type SecretReader = (
  secretId: string,
  options: { transform: 'json'; maxAge: number },
) => Promise<unknown>;

export interface ResolveCredentialsOptions {
  /** Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** How long a fetched secret is reused, in seconds. Default 300: rotation is picked up within 5 minutes. */
  maxAgeSeconds?: number;
  /** Default: Powertools `getSecret` (Secrets Manager, cached per container). Injectable for tests. */
  getSecret?: SecretReader;
}

const DEFAULT_MAX_AGE_SECONDS = 300;

/** The IAM action on the secret (PDS_CREDENTIALS_SECRET_ID) that Powertools' `getSecret` calls. */
export const SECRET_CREDENTIALS_ACTIONS = Object.freeze(['secretsmanager:GetSecretValue'] as const);

/** The three credential variables, each `undefined` when unset. */
export interface CredentialVariables {
  readonly PDS_USERNAME?: string | undefined;
  readonly PDS_PASSWORD?: string | undefined;
  readonly PDS_CREDENTIALS_SECRET_ID?: string | undefined;
}

/** Where the credentials come from, or which variables are missing. */
export type CredentialChoice =
  | { readonly kind: 'secret'; readonly secretId: string }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'missing'; readonly missing: readonly ('PDS_USERNAME' | 'PDS_PASSWORD')[] };

/**
 * The credential decision, made here only (the configuration and {@link resolveCredentials} both ask
 * it): the secret wins over the variables; without it both PDS_USERNAME and PDS_PASSWORD are needed.
 *
 * @example
 * ```ts
 * chooseCredentials({ PDS_USERNAME: 'demo', PDS_PASSWORD: 'demo' }); // { kind: 'basic', ... }
 * chooseCredentials({ PDS_PASSWORD: 'demo' }); // { kind: 'missing', missing: ['PDS_USERNAME'] }
 * ```
 */
export function chooseCredentials(variables: CredentialVariables): CredentialChoice {
  const { PDS_USERNAME: username, PDS_PASSWORD: password, PDS_CREDENTIALS_SECRET_ID: secretId } = variables;
  if (secretId !== undefined) return { kind: 'secret', secretId };
  if (username === undefined || password === undefined) {
    const missing = (['PDS_USERNAME', 'PDS_PASSWORD'] as const).filter(
      (name) => variables[name] === undefined,
    );
    return { kind: 'missing', missing };
  }
  return { kind: 'basic', username, password };
}

/**
 * Resolves the credentials. When `PDS_CREDENTIALS_SECRET_ID` is set the secret wins over the variables.
 *
 * @throws ConfigError naming the missing variables, the unreadable secret or its missing fields
 * @example
 * ```ts
 * const credentials = await resolveCredentials(); // { username, password }
 * const pds = createPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials });
 * ```
 */
export async function resolveCredentials(options: ResolveCredentialsOptions = {}): Promise<PdsCredentials> {
  const env = options.env ?? process.env;
  const choice = chooseCredentials({
    PDS_USERNAME: env.PDS_USERNAME || undefined,
    PDS_PASSWORD: env.PDS_PASSWORD || undefined,
    PDS_CREDENTIALS_SECRET_ID: env.PDS_CREDENTIALS_SECRET_ID?.trim() || undefined,
  });
  if (choice.kind === 'secret') return readSecretCredentials(choice.secretId, options);
  if (choice.kind === 'missing') {
    const { missing } = choice;
    throw new ConfigError(
      `PDS credentials are not configured: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing; ` +
        'set PDS_USERNAME and PDS_PASSWORD, or PDS_CREDENTIALS_SECRET_ID to a Secrets Manager secret holding {"username","password"}',
    );
  }
  return { username: choice.username, password: choice.password };
}

/**
 * The credentials stored in a Secrets Manager secret as JSON `{"username","password"}`, cached for
 * `maxAgeSeconds`.
 *
 * @throws ConfigError naming the unreadable secret or its missing fields
 * @example
 * ```ts
 * const credentials = await readSecretCredentials('pds-bridge/prod/pds-credentials');
 * ```
 */
export async function readSecretCredentials(
  secretId: string,
  options: Omit<ResolveCredentialsOptions, 'env'> = {},
): Promise<PdsCredentials> {
  const read = options.getSecret ?? powertoolsGetSecret;
  return credentialsFromSecret(secretId, await fetchSecret(read, secretId, options.maxAgeSeconds));
}

async function powertoolsGetSecret(secretId: string, options: { transform: 'json'; maxAge: number }) {
  // Loaded only when a secret is configured: local runs need no AWS SDK.
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  return getSecret(secretId, options);
}

async function fetchSecret(read: SecretReader, secretId: string, maxAgeSeconds?: number): Promise<unknown> {
  const maxAge = maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
  try {
    return await read(secretId, { transform: 'json', maxAge });
  } catch (error) {
    if (error instanceof Error && error.name === 'TransformParameterError') {
      // No cause: the JSON parser's message quotes the secret's text.
      throw new ConfigError(
        `the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID) is not valid JSON; store {"username": "...", "password": "..."}`,
      );
    }
    const reason = error instanceof Error ? error.name : 'unknown error';
    throw new ConfigError(
      `could not read the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID): ${reason}; check the secret id, the region and the secretsmanager:GetSecretValue permission`,
      { cause: error },
    );
  }
}

function credentialsFromSecret(secretId: string, value: unknown): PdsCredentials {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(
      `the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID) is not a JSON object; store {"username": "...", "password": "..."}`,
    );
  }
  const record = value as Record<string, unknown>;
  const bad = ['username', 'password'].filter(
    (field) => typeof record[field] !== 'string' || record[field] === '',
  );
  if (bad.length > 0) {
    throw new ConfigError(
      `the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID) lacks a non-empty string ${bad.map((f) => `"${f}"`).join(' and ')}; store {"username": "...", "password": "..."}`,
    );
  }
  return { username: record.username as string, password: record.password as string };
}
