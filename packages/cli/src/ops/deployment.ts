/**
 * What `pds bridge check` asks of a deployed stage beyond its queues (./ports.ts): the CloudFormation
 * stack, the CloudWatch alarms and queue ages, the EventBridge Scheduler schedules, and the HTTP API.
 * The AWS adapter is ./aws/deployment.ts; the checks (./check.ts) never load the AWS SDK.
 */

/** A CloudFormation stack as DescribeStacks reports it. */
export interface StackFacts {
  readonly status: string;
  readonly statusReason?: string;
  /** Output key → value. */
  readonly outputs: Readonly<Record<string, string>>;
}

/** One CloudWatch alarm (metric or composite). */
export interface AlarmFacts {
  readonly name: string;
  /** `OK`, `ALARM` or `INSUFFICIENT_DATA`. */
  readonly state: string;
  readonly reason?: string;
  /** The ARNs it notifies on ALARM: the bridge's alarms notify the stage's topic `pds-bridge-<stage>-alarms`. */
  readonly actions: readonly string[];
}

/** An HTTP answer: its status and its body as text (at most a few KiB are kept). */
export interface HttpAnswerFacts {
  readonly status: number;
  readonly body: string;
}

export interface DeploymentProbe {
  /** The stack, or `undefined` when there is none of that name. */
  stack(name: string): Promise<StackFacts | undefined>;
  /** Every alarm whose name starts with `prefix`. */
  alarms(prefix: string): Promise<AlarmFacts[]>;
  /** A schedule's state (`ENABLED`, `DISABLED`), or `undefined` when there is none of that name. */
  scheduleState(name: string): Promise<string | undefined>;
  /**
   * The age in seconds of each queue's oldest message, from the `AWS/SQS` `ApproximateAgeOfOldestMessage`
   * metric of the last minutes (SQS itself does not tell it); a queue without data is left out.
   */
  oldestMessageAges(queueNames: readonly string[]): Promise<Map<string, number>>;
  /** GET `url`; `signed` signs it with SigV4 for `execute-api` with the caller's AWS credentials. */
  get(url: string, options: { signed: boolean }): Promise<HttpAnswerFacts>;
}
