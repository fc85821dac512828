/**
 * Where the PDS credentials come from: a Secrets Manager secret in production
 * (`PDS_CREDENTIALS_SECRET_ID`, JSON `{"username","password"}`, cached), or `PDS_USERNAME` /
 * `PDS_PASSWORD` for local and development use. Errors name the missing variable or field, never a value.
 */
import { PdsConfigurationError } from './configuration-error.ts';
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

/**
 * Resolves the credentials. When `PDS_CREDENTIALS_SECRET_ID` is set the secret wins over the variables.
 *
 * @throws PdsConfigurationError naming the missing variables, the unreadable secret or its missing fields
 * @example
 * ```ts
 * const credentials = await resolveCredentials(); // { username, password }
 * const pds = createPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials });
 * ```
 */
export async function resolveCredentials(options: ResolveCredentialsOptions = {}): Promise<PdsCredentials> {
  const env = options.env ?? process.env;
  const secretId = env.PDS_CREDENTIALS_SECRET_ID?.trim();
  if (secretId) {
    const read = options.getSecret ?? powertoolsGetSecret;
    return credentialsFromSecret(secretId, await fetchSecret(read, secretId, options.maxAgeSeconds));
  }
  const missing = ['PDS_USERNAME', 'PDS_PASSWORD'].filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new PdsConfigurationError(
      `PDS credentials are not configured: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing; ` +
        'set PDS_USERNAME and PDS_PASSWORD, or PDS_CREDENTIALS_SECRET_ID to a Secrets Manager secret holding {"username","password"}',
    );
  }
  return { username: env.PDS_USERNAME as string, password: env.PDS_PASSWORD as string };
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
      throw new PdsConfigurationError(
        `the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID) is not valid JSON; store {"username": "...", "password": "..."}`,
      );
    }
    const reason = error instanceof Error ? error.name : 'unknown error';
    throw new PdsConfigurationError(
      `could not read the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID): ${reason}; check the secret id, the region and the secretsmanager:GetSecretValue permission`,
      { cause: error },
    );
  }
}

function credentialsFromSecret(secretId: string, value: unknown): PdsCredentials {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PdsConfigurationError(
      `the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID) is not a JSON object; store {"username": "...", "password": "..."}`,
    );
  }
  const record = value as Record<string, unknown>;
  const bad = ['username', 'password'].filter(
    (field) => typeof record[field] !== 'string' || record[field] === '',
  );
  if (bad.length > 0) {
    throw new PdsConfigurationError(
      `the secret ${secretId} (PDS_CREDENTIALS_SECRET_ID) lacks a non-empty string ${bad.map((f) => `"${f}"`).join(' and ')}; store {"username": "...", "password": "..."}`,
    );
  }
  return { username: record.username as string, password: record.password as string };
}
