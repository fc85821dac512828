/**
 * `pds bridge check --stage qa` as an operator runs it after a deploy, against moto (CloudFormation,
 * SQS, CloudWatch, EventBridge Scheduler) with the stage's resources created by the templates' names,
 * and the stage's HTTP API served on 127.0.0.1 (the API of packages/bridge behind the local SigV4
 * verifier, the simulator as its PDS). Everything passes first; then one thing at a time is broken (a
 * message in a DLQ, an alarm in ALARM, a disabled schedule, the PDS refusing the bridge's credentials,
 * a missing queue) and the ✗ line, its fix and the exit code are asserted.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { DeleteQueueCommand, PurgeQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApi } from '../../packages/bridge/src/api/index.ts';
import { createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { runCli } from '../../packages/cli/src/main.ts';
import { QUEUE_ROLES, SCHEDULE_NAMES } from '../../packages/cli/src/ops/target.ts';
import {
  type RunningHttpAdapter,
  sigV4Authorizer,
  startHttpAdapter,
} from '../../packages/local/src/gateway/index.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { capturingIo } from '../helpers/cli-io.ts';
import { compileCacheEnv, setEnv } from '../helpers/env.ts';
import { FAKE_CREDENTIALS } from '../helpers/fauxqs.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { RecordingQueue } from '../helpers/publications.ts';
import { TEST_API_SETTINGS } from '../helpers/publications-api.ts';

const BIN = path.resolve(import.meta.dirname, '../../packages/cli/bin/pds.mjs');
const STAGE = 'qa';
const TOKEN = 'local-token';

describeOnMoto('pds bridge check', () => {
  let aws: MotoServer;
  let sim: RunningSimulator;
  let api: RunningHttpAdapter;
  let cloudwatch: CloudWatchClient;
  let scheduler: SchedulerClient;
  let restoreEnv: () => void;
  /** The password the api function reads from its secret (a test changes it). */
  let pdsPassword: string;

  const schedule = (name: string, state: 'ENABLED' | 'DISABLED'): CreateScheduleCommandInput => ({
    Name: `pds-bridge-${STAGE}-${name}`,
    ScheduleExpression: 'rate(5 minutes)',
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: state,
    Target: {
      Arn: `arn:aws:lambda:us-east-1:123456789012:function:pds-bridge-${STAGE}-${name}`,
      RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
    },
  });

  beforeAll(async () => {
    // prepare: the stage's queues, as deploy/*.yml name them
    aws = await startMoto({
      queues: [
        ...QUEUE_ROLES.map((role) => ({
          name: `pds-bridge-${STAGE}-${role}`,
          dlq: { name: `pds-bridge-${STAGE}-${role}-dlq`, maxReceiveCount: 5 },
        })),
        `pds-bridge-${STAGE}-poller-schedule-dlq`,
        `pds-bridge-${STAGE}-poller-failed-runs`,
      ],
    });
    const client = { endpoint: aws.endpoint, region: aws.region, credentials: FAKE_CREDENTIALS };
    cloudwatch = new CloudWatchClient(client);
    scheduler = new SchedulerClient(client);

    // the stage's API: the bridge's routes, the PDS credentials its own (never the operator's)
    sim = await startSimulator({});
    pdsPassword = sim.password;
    const apiOfBridge = createApi({
      store: new MemoryStateStore(),
      queue: new RecordingQueue(),
      pds: async () =>
        createPdsClient({
          baseUrl: sim.url,
          credentials: { username: sim.username, password: pdsPassword },
          retry: { maxAttempts: 1 },
        }),
      settings: { ...TEST_API_SETTINGS, auth: { mode: 'bearer', token: TOKEN } },
      version: '9.9.9',
    });
    api = await startHttpAdapter({
      handler: (event) => apiOfBridge.handle(event),
      decorateEvent: sigV4Authorizer({
        credentials: FAKE_CREDENTIALS,
        region: aws.region,
        token: TOKEN,
        log: () => undefined,
      }),
    });

    // the stack (its alarm topic) with the outputs osls writes
    await createStack(STAGE, api.url);

    // alarms notifying the stage's topic, and one of stage qa-eu, whose name starts alike, in ALARM
    const alarm = async (name: string, topicStage: string) =>
      cloudwatch.send(
        new PutMetricAlarmCommand({
          AlarmName: `pds-bridge-${name}`,
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Statistic: 'Sum',
          Period: 60,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          AlarmActions: [`arn:aws:sns:us-east-1:123456789012:pds-bridge-${topicStage}-alarms`],
        }),
      );
    await alarm(`${STAGE}-ingest-errors`, STAGE);
    await alarm(`${STAGE}-ingest-dlq-not-empty`, STAGE);
    await alarm(`${STAGE}-eu-ingest-errors`, `${STAGE}-eu`);
    await cloudwatch.send(
      new SetAlarmStateCommand({
        AlarmName: `pds-bridge-${STAGE}-eu-ingest-errors`,
        StateValue: 'ALARM',
        StateReason: 'another stage',
      }),
    );
    for (const name of SCHEDULE_NAMES)
      await scheduler.send(new CreateScheduleCommand(schedule(name, 'ENABLED')));
    // the age SQS publishes of the ingest queue's oldest message
    await cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'AWS/SQS',
        MetricData: [
          {
            MetricName: 'ApproximateAgeOfOldestMessage',
            Dimensions: [{ Name: 'QueueName', Value: `pds-bridge-${STAGE}-ingest` }],
            // a minute ago, as SQS publishes it: a datapoint of this very second may fall after the window
            Timestamp: new Date(Date.now() - 60_000),
            Value: 42,
          },
        ],
      }),
    );
    restoreEnv = setEnv({ ...aws.env, AWS_PROFILE: undefined });
  }, 60_000);

  afterAll(async () => {
    restoreEnv?.();
    cloudwatch?.destroy();
    scheduler?.destroy();
    await api?.close();
    await sim?.close();
    await aws?.close();
  });

  /** The stage's stack as osls names it: its alarm topic, and the outputs the check reads. */
  async function createStack(stage: string, apiUrl: string) {
    const cloudformation = new CloudFormationClient({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: FAKE_CREDENTIALS,
    });
    await cloudformation.send(
      new CreateStackCommand({
        StackName: `pds-bridge-${stage}`,
        TemplateBody: JSON.stringify({
          Resources: {
            AlarmTopic: { Type: 'AWS::SNS::Topic', Properties: { TopicName: `pds-bridge-${stage}-alarms` } },
          },
          Outputs: {
            ApiUrl: { Value: apiUrl },
            StateBucketName: { Value: `pds-bridge-state-123456789012-us-east-1-${stage}` },
          },
        }),
      }),
    );
    cloudformation.destroy();
  }

  /** `pds bridge check` in this process, as on a terminal. */
  async function check(args: string[] = ['--stage', STAGE]) {
    const run = capturingIo({ tty: true });
    const code = await runCli(['bridge', 'check', ...args], run.io);
    return { code, out: run.stdout(), err: run.stderr() };
  }

  it('passes every check of a whole stage, and says so in JSON with exit code 0 from the command line', async () => {
    // act: the real binary, as an operator runs it
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, 'bridge', 'check', '--stage', STAGE, '--json'],
        { env: { ...compileCacheEnv(), ...aws.env }, timeout: 60_000 },
        (error, out) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout: out }),
      );
    });

    // assess
    const report = JSON.parse(stdout) as {
      ok: boolean;
      lines: Array<{ check: string; ok: boolean; detail: string }>;
    };
    expect(report.lines.filter((line) => !line.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(code).toBe(0);
    expect(report.lines.map((line) => line.check)).toEqual([
      'stack',
      'api',
      'pds',
      ...QUEUE_ROLES.map((role) => `queue ${role}`),
      'queue poller-schedule',
      'queue poller-failed-runs',
      'alarms',
      ...SCHEDULE_NAMES.map((name) => `schedule ${name}`),
    ]);
    const detail = (name: string) => report.lines.find((line) => line.check === name)?.detail;
    expect(detail('stack')).toBe('pds-bridge-qa is CREATE_COMPLETE; outputs ApiUrl, StateBucketName found');
    expect(detail('api')).toBe('GET /health answered 200 (version 9.9.9)');
    expect(detail('pds')).toMatch(
      /^the api function reached the PDS with its own credentials in \d+ ms \(\d+ communication channels\)$/,
    );
    expect(detail('queue ingest')).toBe('0 waiting, 0 in flight, oldest 42 s; dead-letter queue empty');
    // the other stage's alarm in ALARM is not this stage's
    expect(detail('alarms')).toMatch(/^2 alarms: /);
  }, 60_000);

  it('fails on a message in a dead-letter queue and names the redrive', async () => {
    const dlq = aws.queueUrls[`pds-bridge-${STAGE}-ingest-dlq`];
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: '{}' }));
    try {
      const { code, out } = await check();

      expect(out).toContain(
        '✗ queue ingest: 0 waiting, 0 in flight, oldest 42 s; 1 message(s) in its dead-letter queue pds-bridge-qa-ingest-dlq',
      );
      expect(out).toContain('→ pds bridge redrive ingest --stage qa shows why');
      expect(out).toContain('✓ queue publications:');
      expect(out).toMatch(/stage qa \(us-east-1\): 1 of \d+ checks failed$/m);
      expect(code).toBe(1);
    } finally {
      await aws.sqs.send(new PurgeQueueCommand({ QueueUrl: dlq }));
    }
  }, 30_000);

  it('fails on an alarm of the stage in ALARM, with its reason', async () => {
    await cloudwatch.send(
      new SetAlarmStateCommand({
        AlarmName: `pds-bridge-${STAGE}-ingest-errors`,
        StateValue: 'ALARM',
        StateReason: 'Threshold Crossed: 1 datapoint [3.0] was >= the threshold (1.0)',
      }),
    );
    try {
      const { code, out } = await check();

      expect(out).toContain('✗ alarms: 2 alarms: ');
      expect(out).toContain(
        '✗ alarm pds-bridge-qa-ingest-errors: in ALARM: Threshold Crossed: 1 datapoint [3.0] was >= the threshold (1.0)',
      );
      expect(out).not.toContain('pds-bridge-qa-eu-ingest-errors');
      expect(code).toBe(1);
    } finally {
      await cloudwatch.send(
        new SetAlarmStateCommand({
          AlarmName: `pds-bridge-${STAGE}-ingest-errors`,
          StateValue: 'OK',
          StateReason: 'fixed',
        }),
      );
    }
  }, 30_000);

  it('fails on a disabled schedule: its poller does not run', async () => {
    await scheduler.send(new UpdateScheduleCommand(schedule('poll-supplier-reviews', 'DISABLED')));
    try {
      const { code, out } = await check();

      expect(out).toContain(
        '✗ schedule poll-supplier-reviews: pds-bridge-qa-poll-supplier-reviews is DISABLED: its poller does not run',
      );
      expect(out).toContain(
        '✓ schedule poll-messaging-assets: pds-bridge-qa-poll-messaging-assets is ENABLED',
      );
      expect(code).toBe(1);
    } finally {
      await scheduler.send(new UpdateScheduleCommand(schedule('poll-supplier-reviews', 'ENABLED')));
    }
  }, 30_000);

  it("fails when the PDS refuses the bridge's own credentials, naming the secret to fix", async () => {
    pdsPassword = 'not-the-password';
    try {
      const { code, out } = await check();

      expect(out).toContain('✗ pds: GET /health/pds answered 502');
      expect(out).toContain("→ the PDS refused the bridge's credentials");
      expect(out).toContain('pds-bridge/qa/pds-credentials');
      expect(out).toContain('✓ api: GET /health answered 200');
      expect(code).toBe(1);
    } finally {
      pdsPassword = sim.password;
    }
  }, 30_000);

  it('fails on a missing queue, naming it', async () => {
    // last: a deleted queue stays deleted
    await aws.sqs.send(
      new DeleteQueueCommand({ QueueUrl: aws.queueUrls[`pds-bridge-${STAGE}-publications`] }),
    );

    const { code, out } = await check();

    expect(out).toContain('✗ queue publications: there is no queue pds-bridge-qa-publications');
    expect(out).toContain('→ deploy the stage again (npx osls deploy --stage qa)');
    expect(code).toBe(1);
  }, 30_000);

  it('ends within its deadline when the API accepts connections and never answers', async () => {
    // prepare: stage qb, whose API hangs
    const hanging = createServer(() => undefined);
    hanging.listen(0, '127.0.0.1');
    await once(hanging, 'listening');
    const { port } = hanging.address() as AddressInfo;
    await createStack('qb', `http://127.0.0.1:${port}`);
    try {
      // act
      const started = Date.now();
      const { code, out } = await check(['--stage', 'qb', '--timeout', '1']);

      // assess
      expect(out).toContain('✗ api: could not check: TimeoutError');
      expect(out).toContain('✗ pds: could not check: TimeoutError');
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(code).toBe(1);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  }, 30_000);

  it('refuses to run without a deployed stage (exit code 2)', async () => {
    const { code, err } = await check([]);

    expect(err).toContain('name the deployed stage: --stage STAGE');
    expect(code).toBe(2);
  });
});
