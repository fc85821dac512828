/**
 * The AWS adapter of {@link DeploymentProbe}: CloudFormation DescribeStacks, CloudWatch DescribeAlarms and
 * GetMetricData, EventBridge Scheduler GetSchedule, and GET requests to the stage's HTTP API (signed with
 * SigV4 for `execute-api` where asked). Every call has a deadline: the SDK clients a connect and a
 * request timeout and two attempts, an HTTP request one timeout from connect to last byte. Only the
 * operators' command line loads this file; no Lambda bundle does.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { CloudWatchQueueAges } from '../cloudwatch/queue-ages.ts';
import type { AlarmFacts, DeploymentProbe, HttpAnswerFacts, StackFacts } from '../deployment.ts';
import { OperatorTargetError } from '../errors.ts';

/** Default deadline of one call (AWS or HTTP), ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;
/** Fail fast on an unreachable endpoint. */
const CONNECTION_TIMEOUT_MS = 5_000;
/** Bytes of an HTTP answer kept: enough for a problem's detail. */
const MAX_BODY_CHARS = 4_096;

const MISSING_STACK = /does not exist/i;
const MISSING_SCHEDULE = /ResourceNotFound/;

export interface AwsDeploymentProbeOptions {
  /** Deadline of each call, ms (default {@link DEFAULT_CALL_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** The probe, the region it looks in, and `close()` for its clients' sockets. */
export interface AwsDeployment {
  readonly probe: DeploymentProbe;
  readonly region: string;
  close(): void;
}

/**
 * Builds the probe on the usual credential chain and region (AWS_PROFILE, AWS_REGION, …; the SDK's
 * AWS_ENDPOINT_URL* reach an emulator). Throws an {@link OperatorTargetError} when no credentials can be
 * found, so the command stops with one line naming the fix instead of failing every check.
 *
 * @example
 * ```ts
 * const { probe, close } = await connectAwsDeployment();
 * try { console.log(await probe.stack('pds-bridge-prod')); } finally { close(); }
 * ```
 */
export async function connectAwsDeployment(options: AwsDeploymentProbeOptions = {}): Promise<AwsDeployment> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const settings = {
    maxAttempts: 2,
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: timeoutMs },
  };
  const cloudformation = new CloudFormationClient(settings);
  const cloudwatch = new CloudWatchClient(settings);
  const scheduler = new SchedulerClient(settings);
  const close = () => {
    cloudformation.destroy();
    cloudwatch.destroy();
    scheduler.destroy();
  };
  try {
    const region = await cloudformation.config.region();
    await cloudformation.config.credentials().catch((error: unknown) => {
      throw new OperatorTargetError(
        `No AWS credentials found (${(error as Error).message}): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
      );
    });
    const signer = new SignatureV4({
      credentials: cloudformation.config.credentials,
      region,
      service: 'execute-api',
      sha256: Sha256,
    });
    const queueAges = new CloudWatchQueueAges({ cloudwatch });
    const probe: DeploymentProbe = {
      stack: (name) => describeStack(cloudformation, name),
      alarms: (prefix) => describeAlarms(cloudwatch, prefix),
      scheduleState: (name) => scheduleState(scheduler, name),
      oldestMessageAges: async (names) =>
        new Map([...(await queueAges.ages(names))].map(([name, age]) => [name, age.seconds])),
      get: (url, { signed }) => httpGet(url, signed ? signer : undefined, timeoutMs),
    };
    return { probe, region, close };
  } catch (error) {
    close();
    throw error;
  }
}

async function describeStack(client: CloudFormationClient, name: string): Promise<StackFacts | undefined> {
  try {
    const { Stacks: stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: name }));
    const stack = stacks[0];
    if (!stack) return undefined;
    const outputs: Record<string, string> = {};
    for (const output of stack.Outputs ?? []) {
      if (output.OutputKey && output.OutputValue !== undefined)
        outputs[output.OutputKey] = output.OutputValue;
    }
    return {
      status: stack.StackStatus ?? 'UNKNOWN',
      ...(stack.StackStatusReason ? { statusReason: stack.StackStatusReason } : {}),
      outputs,
    };
  } catch (error) {
    if (MISSING_STACK.test((error as Error).message)) return undefined;
    throw error;
  }
}

async function describeAlarms(client: CloudWatchClient, prefix: string): Promise<AlarmFacts[]> {
  const alarms: AlarmFacts[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new DescribeAlarmsCommand({
        AlarmNamePrefix: prefix,
        AlarmTypes: ['MetricAlarm', 'CompositeAlarm'],
        ...(token ? { NextToken: token } : {}),
      }),
    );
    for (const alarm of [...(page.MetricAlarms ?? []), ...(page.CompositeAlarms ?? [])]) {
      alarms.push({
        name: alarm.AlarmName ?? '',
        state: alarm.StateValue ?? 'UNKNOWN',
        ...(alarm.StateReason ? { reason: alarm.StateReason } : {}),
        actions: alarm.AlarmActions ?? [],
      });
    }
    token = page.NextToken;
  } while (token);
  return alarms;
}

async function scheduleState(client: SchedulerClient, name: string): Promise<string | undefined> {
  try {
    return (await client.send(new GetScheduleCommand({ Name: name }))).State ?? 'UNKNOWN';
  } catch (error) {
    if (MISSING_SCHEDULE.test((error as Error).name) || MISSING_SCHEDULE.test((error as Error).message)) {
      return undefined;
    }
    throw error;
  }
}

async function httpGet(
  target: string,
  signer: SignatureV4 | undefined,
  timeoutMs: number,
): Promise<HttpAnswerFacts> {
  const url = new URL(target);
  let headers: Record<string, string> = {};
  if (signer) {
    const signed = await signer.sign({
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { host: url.host },
    });
    headers = signed.headers;
  }
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  const body = await response.text();
  return { status: response.status, body: body.slice(0, MAX_BODY_CHARS) };
}
