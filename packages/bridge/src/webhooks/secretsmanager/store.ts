/**
 * The secret store on AWS Secrets Manager (deployed): one secret per name under a stage prefix
 * (`pds-bridge/<stage>/webhooks/…`, WEBHOOK_SECRETS_PREFIX), created once, never updated, deleted
 * with no recovery window. The IAM actions of its calls are {@link SECRET_STORE_ACTIONS}.
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { awsCallMayPass } from '../../core/index.ts';
import { WebhookError } from '../errors.ts';
import type { SecretStore } from '../secret-store.ts';

/** The IAM action of each primitive (packages/bridge/src/webhooks/permissions.ts grants them per role). */
export const SECRET_STORE_ACTIONS = Object.freeze({
  read: ['secretsmanager:GetSecretValue'],
  create: ['secretsmanager:CreateSecret'],
  delete: ['secretsmanager:DeleteSecret'],
} as const);

export interface SecretsManagerSecretStoreOptions {
  readonly client: SecretsManagerClient;
  /** Put before every name: `pds-bridge/<stage>/` (the stage's prefix its roles are granted on). */
  readonly prefix: string;
}

/**
 * @example
 * ```ts
 * const secrets = new SecretsManagerSecretStore({ client: new SecretsManagerClient({}), prefix: 'pds-bridge/prod/' });
 * await secrets.create('webhooks/signing-key', '{"privateKey":"whsk_…","publicKey":"whpk_…"}');
 * ```
 */
export class SecretsManagerSecretStore implements SecretStore {
  readonly #client: SecretsManagerClient;
  readonly #prefix: string;

  constructor(options: SecretsManagerSecretStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix;
  }

  async read(name: string): Promise<string | undefined> {
    try {
      const answer = await this.#client.send(new GetSecretValueCommand({ SecretId: this.#prefix + name }));
      return answer.SecretString;
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return undefined;
      throw unavailableOrAsIs('read', name, error);
    }
  }

  async create(name: string, value: string): Promise<boolean> {
    try {
      await this.#client.send(
        new CreateSecretCommand({
          Name: this.#prefix + name,
          SecretString: value,
          Description: 'pds-bridge webhooks (docs/webhooks.md, "What is stored where"); written once',
        }),
      );
      return true;
    } catch (error) {
      if (errorName(error) === 'ResourceExistsException') return false;
      throw unavailableOrAsIs('create', name, error);
    }
  }

  async delete(name: string): Promise<void> {
    try {
      await this.#client.send(
        new DeleteSecretCommand({ SecretId: this.#prefix + name, ForceDeleteWithoutRecovery: true }),
      );
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw unavailableOrAsIs('delete', name, error);
    }
  }
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/**
 * A failure that passes (throttling, a 5xx, no answer) as `WEBHOOK_SECRET_UNAVAILABLE`, which the API
 * answers 503 with Retry-After and a delivery batch leaves to SQS to try again; any other error (access
 * denied, a bad request) as it is, so the 500 and the log name it.
 */
function unavailableOrAsIs(operation: string, name: string, error: unknown): unknown {
  const metadata = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata;
  // Only the SDK's own failures: an error without its $metadata is ours, and stays a 500.
  if (metadata === undefined || !awsCallMayPass(error)) return error;
  const status = metadata.httpStatusCode;
  const why = `${errorName(error) ?? 'Error'}${status ? ` (${status})` : ''}`;
  return new WebhookError(
    'WEBHOOK_SECRET_UNAVAILABLE',
    `The secret store (AWS Secrets Manager) did not answer the ${operation} of ${name}: ${why}; try again shortly`,
    { retryable: true, cause: error },
  );
}

let cachedClient: SecretsManagerClient | undefined;

/**
 * The process-wide Secrets Manager client (AWS_ENDPOINT_URL_SECRETS_MANAGER or AWS_ENDPOINT_URL reach
 * an emulator), created on first use.
 */
export function secretsManagerClient(): SecretsManagerClient {
  cachedClient ??= new SecretsManagerClient({ requestHandler: { connectionTimeout: 5_000 } });
  return cachedClient;
}
