import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../packages/bridge/src/core/index.ts';
import { resolveCredentials, type SecretReader } from '../../packages/bridge/src/pds/credentials.ts';

const secretText = 'Very-Secret-Value-123';

describe('resolveCredentials from the environment', () => {
  it('reads PDS_USERNAME and PDS_PASSWORD', async () => {
    // Act
    const credentials = await resolveCredentials({ env: { PDS_USERNAME: 'u', PDS_PASSWORD: 'p' } });

    // Assess
    expect(credentials).toEqual({ username: 'u', password: 'p' });
  });

  it.each([
    [{}, 'PDS_USERNAME and PDS_PASSWORD are missing'],
    [{ PDS_USERNAME: 'u' }, 'PDS_PASSWORD is missing'],
    [{ PDS_PASSWORD: secretText, PDS_USERNAME: '' }, 'PDS_USERNAME is missing'],
  ])('names the missing variables in %o', async (env, message) => {
    // Act
    const error = await resolveCredentials({ env }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(message);
    expect(error.message).toContain('PDS_CREDENTIALS_SECRET_ID');
    expect(error.message).not.toContain(secretText);
  });
});

describe('resolveCredentials from Secrets Manager', () => {
  it('prefers the secret, asking for parsed JSON with the cache age', async () => {
    // Prepare
    const getSecret = vi.fn<SecretReader>(async () => ({ username: 'svc', password: secretText, note: 'x' }));

    // Act
    const credentials = await resolveCredentials({
      env: { PDS_CREDENTIALS_SECRET_ID: 'pds/creds', PDS_USERNAME: 'local', PDS_PASSWORD: 'local' },
      getSecret,
      maxAgeSeconds: 60,
    });

    // Assess
    expect(credentials).toEqual({ username: 'svc', password: secretText });
    expect(getSecret).toHaveBeenCalledWith('pds/creds', { transform: 'json', maxAge: 60 });
  });

  it.each([
    [{ username: 'svc' }, 'lacks a non-empty string "password"'],
    [{ username: '', password: 1 }, 'lacks a non-empty string "username" and "password"'],
    [['svc', secretText], 'is not a JSON object'],
    [secretText, 'is not a JSON object'],
    [undefined, 'is not a JSON object'],
  ])('names what is wrong with a secret shaped %#, never its content', async (value, message) => {
    // Act
    const error = await resolveCredentials({
      env: { PDS_CREDENTIALS_SECRET_ID: 'pds/creds' },
      getSecret: async () => value,
    }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('pds/creds');
    expect(error.message).toContain(message);
    expect(JSON.stringify(error)).not.toContain(secretText);
    expect(String(error.stack)).not.toContain(secretText);
  });
});

describe('resolveCredentials through Powertools getSecret', () => {
  const secretsManager = mockClient(SecretsManagerClient);

  beforeEach(() => {
    secretsManager.reset();
    vi.stubEnv('AWS_REGION', 'eu-west-1');
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads and caches the JSON secret', async () => {
    // Prepare
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'pds/cached' })
      .resolves({ SecretString: JSON.stringify({ username: 'svc', password: secretText }) });
    const env = { PDS_CREDENTIALS_SECRET_ID: 'pds/cached' };

    // Act
    const first = await resolveCredentials({ env });
    const second = await resolveCredentials({ env });

    // Assess
    expect(first).toEqual({ username: 'svc', password: secretText });
    expect(second).toEqual(first);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('reports a secret that is not JSON without quoting it', async () => {
    // Prepare
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'pds/plain' })
      .resolves({ SecretString: `password=${secretText}` });

    // Act
    const error = await resolveCredentials({ env: { PDS_CREDENTIALS_SECRET_ID: 'pds/plain' } }).catch(
      (e) => e,
    );

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('is not valid JSON');
    expect(error.cause).toBeUndefined();
    expect(String(error.stack)).not.toContain(secretText);
  });

  it('reports a secret it cannot read with the id and the permission to check', async () => {
    // Prepare
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'pds/denied' })
      .rejects(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }));

    // Act
    const error = await resolveCredentials({ env: { PDS_CREDENTIALS_SECRET_ID: 'pds/denied' } }).catch(
      (e) => e,
    );

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('could not read the secret pds/denied');
    expect(error.message).toContain('secretsmanager:GetSecretValue');
  });
});
