/**
 * The webhook secrets in AWS Secrets Manager (moto_server on 127.0.0.1) beside a versioned state
 * bucket, as deployed: an endpoint registered, a signed delivery that the official standardwebhooks
 * library verifies, a rotation whose old secret verifies during the overlap only and is then gone
 * from Secrets Manager, a deletion that leaves no secret, and no version of any state bucket object
 * that holds a secret, a custom header's value or the private key.
 */
import { GetObjectCommand, ListObjectVersionsCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import {
  GetSecretValueCommand,
  ListSecretsCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/index.ts';
import {
  deleteEndpoint,
  MemoryDeliveryQueue,
  WebhookDelivery,
} from '../../packages/bridge/src/webhooks/index.ts';
import { SecretsManagerSecretStore } from '../../packages/bridge/src/webhooks/secretsmanager/store.ts';
import { FAKE_CREDENTIALS } from '../helpers/fauxqs.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { describeSecretStoreBehaviour } from '../helpers/secret-store-suite.ts';
import { dropEvent } from '../helpers/webhook-events.ts';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-receiver.ts';

const OVERLAP_MS = 1_500;

describeOnMoto('webhook secrets in Secrets Manager', () => {
  let aws: MotoServer;
  let secretsManager: SecretsManagerClient;
  let receiver: TestReceiver;
  let prefixes = 0;

  beforeAll(async () => {
    aws = await startMoto({ buckets: ['state'] });
    await aws.s3.send(
      new PutBucketVersioningCommand({ Bucket: 'state', VersioningConfiguration: { Status: 'Enabled' } }),
    );
    secretsManager = new SecretsManagerClient({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: FAKE_CREDENTIALS,
    });
    receiver = await startTestReceiver();
  });

  afterAll(async () => {
    secretsManager?.destroy();
    await receiver?.close();
    await aws?.close();
  });

  describeSecretStoreBehaviour(
    'SecretsManagerSecretStore against moto',
    () => new SecretsManagerSecretStore({ client: secretsManager, prefix: `suite-${++prefixes}/` }),
  );

  /** Every version of every object of the state bucket, as text. */
  async function everyStateVersion(): Promise<string> {
    const listed = await aws.s3.send(new ListObjectVersionsCommand({ Bucket: 'state' }));
    const texts = await Promise.all(
      (listed.Versions ?? []).map(async ({ Key, VersionId }) => {
        const object = await aws.s3.send(new GetObjectCommand({ Bucket: 'state', Key, VersionId }));
        return `${Key}\n${await object.Body?.transformToString()}`;
      }),
    );
    return texts.join('\n');
  }

  async function secretNames(prefix: string): Promise<string[]> {
    const listed = await secretsManager.send(new ListSecretsCommand({ MaxResults: 100 }));
    return (listed.SecretList ?? []).map((each) => each.Name ?? '').filter((name) => name.startsWith(prefix));
  }

  it('signs with secrets only Secrets Manager holds, rotates them with an overlap, and deletes them with the endpoint', async () => {
    // prepare
    const prefix = 'pds-bridge/test/';
    const queue = new MemoryDeliveryQueue();
    const store = new S3StateStore({ client: aws.s3, bucket: 'state' });
    const delivery = new WebhookDelivery({
      store,
      secrets: new SecretsManagerSecretStore({ client: secretsManager, prefix }),
      queue,
      policy: 'any',
      knownTypes: EVENT_TYPES,
    });
    const deliverEvent = async (n: number) => {
      await delivery.dispatch([dropEvent(n)]);
      for (const task of queue.take()) expect(await delivery.deliver(task)).toBe('delivered');
      const request = receiver.received.at(-1);
      if (!request) throw new Error('nothing was delivered');
      return request;
    };
    const verifies = (secret: string, request: Awaited<ReturnType<typeof deliverEvent>>) => {
      try {
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };

    // act: register with a custom header, deliver, rotate, deliver during and after the overlap
    const { endpoint, secret: first } = await delivery.registry.create({
      url: `${receiver.url}/hook`,
      headers: { 'X-Api-Key': 'receiver-api-key' },
    });
    const registered = await deliverEvent(1);
    const { secret: second } = await delivery.registry.rotate(endpoint.id, OVERLAP_MS);
    const overlapping = await deliverEvent(2);
    await new Promise((resolve) => setTimeout(resolve, OVERLAP_MS + 100));
    const after = await deliverEvent(3);
    const namesAfterOverlap = await secretNames(`${prefix}webhooks/${endpoint.id}/`);
    const stateVersions = await everyStateVersion();
    const { privateKey } = await delivery.secrets.signingKey();
    await deleteEndpoint(delivery.registry, store, endpoint.id);

    // assess: every delivery verified with the secrets of its time
    expect(verifies(first, registered)).toBe(true);
    expect([verifies(first, overlapping), verifies(second, overlapping)]).toEqual([true, true]);
    expect([verifies(first, after), verifies(second, after)]).toEqual([false, true]);
    expect(after.headers['x-api-key']).toBe('receiver-api-key');
    // after the overlap only the new secret and the headers are in Secrets Manager; nothing once deleted
    expect(namesAfterOverlap).toHaveLength(2);
    expect(await secretNames(`${prefix}webhooks/${endpoint.id}/`)).toEqual([]);
    for (const name of namesAfterOverlap) {
      await expect(secretsManager.send(new GetSecretValueCommand({ SecretId: name }))).rejects.toThrow();
    }
    // no version of any state bucket object holds a secret, the header's value or the private key
    for (const value of [first, second, 'receiver-api-key', privateKey])
      expect(stateVersions).not.toContain(value);
  }, 30_000);
});
