/**
 * The PDS transport's options checked once, up front, each with one error naming the fix.
 */
import { ConfigError, checkBaseUrl, checkDurationMs, checkInteger } from '../core/index.ts';
import type { PdsCredentials } from './request.ts';

export function parseBaseUrl(baseUrl: string): URL {
  const checked = checkBaseUrl(baseUrl);
  if (checked.ok) return checked.url;
  switch (checked.kind) {
    case 'invalid':
      throw new ConfigError(
        'PDS_BASE_URL is not a valid URL; set it to the PDS address, e.g. https://pds.example.com',
      );
    case 'protocol':
      throw new ConfigError(`PDS_BASE_URL must use http or https, not ${checked.protocol}`);
    case 'credentials':
      throw new ConfigError(
        'PDS_BASE_URL must not carry credentials; set PDS_USERNAME / PDS_PASSWORD or PDS_CREDENTIALS_SECRET_ID',
      );
    case 'query':
      throw new ConfigError('PDS_BASE_URL must not carry a query or fragment; remove them');
  }
}

export function checkCredentials(credentials: PdsCredentials): PdsCredentials {
  const { username, password } = credentials ?? {};
  if (typeof username !== 'string' || username === '' || typeof password !== 'string' || password === '') {
    throw new ConfigError('PDS credentials need a non-empty username and password');
  }
  if (username.includes(':')) {
    // RFC 7617: the user-id of Basic authentication cannot contain a colon.
    throw new ConfigError("the PDS username must not contain ':' (HTTP Basic cannot carry it)");
  }
  return { username, password };
}

const configurationError = (message: string) => new ConfigError(message);

export function positiveInteger(name: string, value: number): number {
  return checkInteger(name, value, { min: 1 }, configurationError);
}

export function nonNegative(name: string, value: number): number {
  return checkDurationMs(name, value, configurationError);
}
