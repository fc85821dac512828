/**
 * The configuration's view of the PDS credentials: the decision itself is packages/bridge/src/pds/credentials.ts's
 * `chooseCredentials`; this words its answer as configuration problems and hides the password.
 */
import { chooseCredentials } from '../pds/index.ts';
import type { PdsCredentialSource } from './base.ts';

/**
 * Where the credentials come from, or `undefined` after pushing the problem onto `problems`.
 * The password is not enumerable, so it stays out of logs and JSON.
 *
 * @example
 * ```ts
 * credentialSourceOf({ PDS_CREDENTIALS_SECRET_ID: 'pds/prod' }, problems); // { kind: 'secret', secretId: 'pds/prod' }
 * ```
 */
export function credentialSourceOf(
  values: Record<string, unknown>,
  problems: string[],
): PdsCredentialSource | undefined {
  const choice = chooseCredentials({
    PDS_USERNAME: values.PDS_USERNAME as string | undefined,
    PDS_PASSWORD: values.PDS_PASSWORD as string | undefined,
    PDS_CREDENTIALS_SECRET_ID: values.PDS_CREDENTIALS_SECRET_ID as string | undefined,
  });
  if (choice.kind === 'secret') return Object.freeze({ kind: 'secret', secretId: choice.secretId });
  if (choice.kind === 'missing') {
    problems.push(MISSING[choice.missing.length > 1 ? 'both' : (choice.missing[0] ?? 'both')]);
    return undefined;
  }
  const source = { kind: 'basic' as const, username: choice.username };
  Object.defineProperty(source, 'password', { value: choice.password, enumerable: false });
  return Object.freeze(source as PdsCredentialSource);
}

const MISSING = {
  both: 'PDS credentials are missing: set PDS_USERNAME and PDS_PASSWORD (local and development) or PDS_CREDENTIALS_SECRET_ID (production: a Secrets Manager secret holding {"username","password"})',
  PDS_USERNAME: 'PDS_USERNAME is required when PDS_PASSWORD is set (the PDS user)',
  PDS_PASSWORD: 'PDS_PASSWORD is required when PDS_USERNAME is set (the password of PDS_USERNAME)',
} as const;
