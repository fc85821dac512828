/**
 * `pds bridge --stage NAME` as an operator runs it against a deployed stack: a subprocess with the
 * AWS SDK's usual environment (here pointed at the S3+SQS emulator), resources found by the names the
 * templates give them, the state bucket derived from the account in the events queue's URL.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import {
  GetSecretValueCommand,
  ListSecretsCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { keepEvent, recordDelivery } from '../../packages/bridge/src/webhooks/deliveries.ts';
import { compileCacheEnv } from '../helpers/env.ts';
import { type AwsEmulator, FAKE_CREDENTIALS, startAwsEmulator } from '../helpers/fauxqs.ts';
import { type MotoServer, startMoto } from '../helpers/moto.ts';
import { dropEvent } from '../helpers/webhook-events.ts';

const BIN = path.resolve(import.meta.dirname, '../../packages/cli/bin/pds.mjs');
/** deploy/core.yml's name for stage `qa` in the emulator's account and region. */
const STATE_BUCKET = 'pds-bridge-state-000000000000-us-east-1-qa';

let aws: AwsEmulator;
/** Secrets Manager for the webhook commands, started by the test that needs it. */
let secretsBackend: MotoServer | undefined;

function pds(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...compileCacheEnv(), ...aws.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  const roles = [
    'ingest',
    'publications',
    'review-poll',
    'events',
    'messaging-asset-events',
    'supplier-review-events',
    'webhooks',
    'webhooks-slow',
  ];
  aws = await startAwsEmulator({
    buckets: [STATE_BUCKET],
    queues: [
      ...roles.map((role) => ({
        name: `pds-bridge-qa-${role}`,
        dlq: { name: `pds-bridge-qa-${role}-dlq`, maxReceiveCount: 5 },
      })),
      'pds-bridge-qa-poller-schedule-dlq',
      'pds-bridge-qa-poller-failed-runs',
    ],
  });
  await watch(new S3StateStore({ client: aws.s3, bucket: STATE_BUCKET }), ['04012345678901'], {
    ttlMs: 86_400_000,
    source: 'operator',
  });
}, 60_000);

afterAll(async () => {
  await aws?.close();
  await secretsBackend?.close();
});

describe('pds bridge --stage', () => {
  it("finds the stage's queues and state bucket by the template's names", async () => {
    // prepare: a failed scheduler invocation in the schedule's DLQ, with the attributes the scheduler sets
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.queueUrls['pds-bridge-qa-poller-schedule-dlq'],
        MessageBody: '{}',
        MessageAttributes: {
          ERROR_CODE: { DataType: 'String', StringValue: 'AWS.Lambda.ResourceNotFoundException' },
          ERROR_MESSAGE: { DataType: 'String', StringValue: 'Function not found' },
        },
      }),
    );

    // act
    const status = await pds(['bridge', 'status', '--stage', 'qa']);
    const schedule = await pds(['bridge', 'redrive', 'poller-schedule'], { PDS_BRIDGE_STAGE: 'qa' });
    const refused = await pds(['bridge', 'redrive', 'poller-schedule', '--apply', '--stage', 'qa']);

    // assess
    expect(status.stderr).toBe('');
    const parsed = JSON.parse(status.stdout) as {
      stage: string;
      stateBucket: string;
      watchList: { keys: number };
      queues: Array<{ role: string; exists: boolean; deadLetter?: { exists: boolean; visible?: number } }>;
    };
    expect(parsed).toMatchObject({ stage: 'qa', stateBucket: STATE_BUCKET, watchList: { keys: 1 } });
    expect(parsed.queues.every((queue) => queue.role === 'poller-schedule' || queue.exists)).toBe(true);
    expect(parsed.queues.find((queue) => queue.role === 'poller-schedule')?.deadLetter).toEqual(
      expect.objectContaining({ exists: true, visible: 1 }),
    );
    expect(JSON.parse(schedule.stdout)).toMatchObject({
      count: 1,
      reasons: [{ count: 1, reason: 'scheduler: AWS.Lambda.ResourceNotFoundException: Function not found' }],
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('has no source queue');
  });

  it("groups a DLQ sample by what the records say: a publication's last error, an event's type", async () => {
    // prepare: a publication the worker kept failing on, and an event a consumer failed on
    const store = new S3StateStore({ client: aws.s3, bucket: STATE_BUCKET });
    await store.create('publications/p-1.json', {
      publicationId: 'p-1',
      status: 'publishing',
      request: { primaryKeys: ['04012345678901'], destinations: [] },
      attempts: 3,
      lastError: { reason: 'PDS answered 503', retryable: true, at: '2026-05-04T10:00:00.000Z' },
    });
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.queueUrls['pds-bridge-qa-publications-dlq'],
        MessageBody: JSON.stringify({ publicationId: 'p-1' }),
      }),
    );
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.queueUrls['pds-bridge-qa-events-dlq'],
        MessageBody: '{"specversion":"1.0"}',
        MessageAttributes: { type: { DataType: 'String', StringValue: 'pds.ingest.completed' } },
      }),
    );

    // act
    const publications = await pds(['bridge', 'redrive', 'publications', '--stage', 'qa']);
    const events = await pds(['bridge', 'redrive', 'pds-bridge-qa-events-dlq', '--stage', 'qa']);

    // assess
    expect(JSON.parse(publications.stdout)).toMatchObject({
      count: 1,
      reasons: [{ count: 1, reason: 'publication publishing: PDS answered 503' }],
    });
    expect(JSON.parse(events.stdout)).toMatchObject({
      source: 'pds-bridge-qa-events',
      reasons: [{ count: 1, reason: 'event pds.ingest.completed failed in its consumer' }],
    });
  });

  it("explains a webhook lane's DLQ by each task's delivery log", async () => {
    // prepare: two delivery tasks in the slow lane's DLQ, one attempted (503), one never attempted
    const store = new S3StateStore({ client: aws.s3, bucket: STATE_BUCKET });
    await recordDelivery(
      store,
      { endpointId: 'ep_1', eventId: 'evt-1', eventType: 'pds.ingest.completed' },
      {
        status: 'pending',
        attempt: { at: '2026-05-04T10:00:00.000Z', attempt: 2, status: 503, latencyMs: 12, response: 'busy' },
        now: new Date('2026-05-04T10:00:00.000Z'),
      },
    );
    for (const eventId of ['evt-1', 'evt-2'])
      await aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: aws.queueUrls['pds-bridge-qa-webhooks-slow-dlq'],
          MessageBody: JSON.stringify({ kind: 'deliver', endpointId: 'ep_1', eventId, attempt: 1 }),
        }),
      );

    // act
    const slow = await pds(['bridge', 'redrive', 'webhooks-slow', '--stage', 'qa']);

    // assess
    const answer = JSON.parse(slow.stdout) as { source: string; reasons: Array<{ reason: string }> };
    expect(answer.source).toBe('pds-bridge-qa-webhooks-slow');
    expect(answer.reasons.map((each) => each.reason).sort()).toEqual([
      'webhook delivery of evt-1 to ep_1: pending, last attempt 503 busy',
      'webhook delivery of evt-2 to ep_1: never attempted (redriving delivers it)',
    ]);
  });

  it("explains the pollers' failed runs by the error each run ended with, and moves none back", async () => {
    // prepare: the record Lambda sends to an on-failure destination
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.queueUrls['pds-bridge-qa-poller-failed-runs'],
        MessageBody: JSON.stringify({
          version: '1.0',
          timestamp: '2026-05-04T10:00:00.000Z',
          requestContext: {
            requestId: 'r-1',
            functionArn:
              'arn:aws:lambda:us-east-1:000000000000:function:pds-bridge-qa-poll-messaging-assets:$LATEST',
            condition: 'RetriesExhausted',
            approximateInvokeCount: 1,
          },
          requestPayload: {},
          responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
          responsePayload: { errorType: 'PollIncompleteError', errorMessage: 'Messaging-asset poll stopped' },
        }),
      }),
    );

    // act
    const failedRuns = await pds(['bridge', 'redrive', 'poller-failed-runs', '--stage', 'qa']);
    const status = JSON.parse((await pds(['bridge', 'status', '--stage', 'qa'])).stdout) as {
      queues: Array<{ role: string; deadLetter?: { visible?: number } }>;
    };
    const refused = await pds(['bridge', 'redrive', 'poller-failed-runs', '--stage', 'qa', '--apply']);

    // assess
    expect(JSON.parse(failedRuns.stdout)).toMatchObject({
      count: 1,
      reasons: [
        {
          count: 1,
          reason:
            'failed run of pds-bridge-qa-poll-messaging-assets: PollIncompleteError: Messaging-asset poll stopped',
        },
      ],
    });
    expect(status.queues.find((queue) => queue.role === 'poller-failed-runs')?.deadLetter?.visible).toBe(1);
    expect(refused.code).toBe(2);
  });

  it("checks webhook URLs as the deployed stage does whatever the shell says, keeps the secret in the stage's Secrets Manager, and answers a replay's bounds and skipped events", async () => {
    // prepare: an endpoint the flag lets in (as an operator testing against a local receiver would)
    // that takes publication events only, and a kept ingest event; Secrets Manager on moto (the
    // emulator has none)
    const store = new S3StateStore({ client: aws.s3, bucket: STATE_BUCKET });
    await keepEvent(store, dropEvent(1, { time: new Date().toISOString() }));
    secretsBackend = await startMoto();
    const secretsManager = new SecretsManagerClient({
      endpoint: secretsBackend.endpoint,
      region: secretsBackend.region,
      credentials: FAKE_CREDENTIALS,
    });
    const created = await pds(
      [
        'bridge',
        'webhooks',
        'create',
        'http://127.0.0.1:9/hook',
        '--url-policy',
        'any',
        '--event-type',
        'pds.publication.completed',
        '--stage',
        'qa',
      ],
      { AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsBackend.endpoint },
    );
    const { endpoint, secret } = JSON.parse(created.stdout) as { endpoint: { id: string }; secret: string };
    const endpointId = endpoint.id;

    // act
    const refused = await pds(['bridge', 'webhooks', 'create', 'http://127.0.0.1:9/other', '--stage', 'qa'], {
      WEBHOOK_URL_POLICY: 'any',
    });
    const tooOld = await pds(['bridge', 'webhooks', 'replay', endpointId, '--since', '60d', '--stage', 'qa']);
    const byId = await pds([
      'bridge',
      'webhooks',
      'replay',
      endpointId,
      '--event-id',
      'evt-1',
      '--stage',
      'qa',
    ]);

    // assess
    expect(created.code, created.stderr).toBe(0);
    const listed = await secretsManager.send(new ListSecretsCommand({}));
    const names = (listed.SecretList ?? []).map((each) => each.Name);
    expect(names).toEqual([expect.stringMatching(new RegExp(`^pds-bridge/qa/webhooks/${endpointId}/s_`))]);
    const stored = await secretsManager.send(new GetSecretValueCommand({ SecretId: names[0] }));
    expect(stored.SecretString).toBe(secret);
    secretsManager.destroy();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not https; a deployed bridge delivers only over https');
    expect(tooOld.code).toBe(2);
    expect(tooOld.stderr).toMatch(/give a since no earlier than/);
    expect(byId.code, byId.stderr).toBe(0);
    expect(JSON.parse(byId.stdout)).toEqual({
      queued: [],
      skipped: [{ eventId: 'evt-1', reason: expect.stringContaining('the endpoint does not take it') }],
    });
  });

  it('says which stage has no queues, as a configuration error', async () => {
    const run = await pds(['bridge', 'status', '--stage', 'nosuch']);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Cannot find the state bucket of stage 'nosuch'");
  });
});
