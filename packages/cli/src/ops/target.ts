/**
 * Which deployment of the bridge an operator's command talks to, and the names of its resources.
 * The names follow the templates (deploy/*.yml): queue `pds-bridge-<stage>-<role>`, its dead-letter
 * queue `pds-bridge-<stage>-<role>-dlq`, state bucket `pds-bridge-state-<account>-<region>-<stage>`.
 * The local stack (`npm start`) uses the same queue names with the stage `local` and names its buckets
 * in its stack file (packages/cli/src/stack-file.ts). Pure: nothing here talks to AWS.
 */

/** The queues that have a dead-letter queue to redrive into them, by the role the templates name them after. */
export const QUEUE_ROLES = [
  'ingest',
  'publications',
  'review-poll',
  'events',
  'messaging-asset-events',
  'supplier-review-events',
  'webhooks',
  'webhooks-slow',
] as const;
export type QueueRole = (typeof QUEUE_ROLES)[number];

/** A dead-letter queue with no source queue: EventBridge Scheduler's failed poller invocations (not in the local stack). */
export const SCHEDULE_DLQ_ROLE = 'poller-schedule';

/**
 * The pollers' on-failure destination (`pds-bridge-<stage>-poller-failed-runs`, deployed stacks only):
 * a record per scheduled run that failed, with its error. Like the schedule's DLQ it has no source queue.
 */
export const FAILED_RUNS_ROLE = 'poller-failed-runs';

/**
 * The EventBridge Scheduler schedules deploy/pollers.yml creates (`pds-bridge-<stage>-<name>`, default
 * group): the two pollers and the messaging assets' daily audit.
 */
export const SCHEDULE_NAMES = [
  'poll-messaging-assets',
  'audit-messaging-assets',
  'poll-supplier-reviews',
] as const;

/** The CloudFormation stack osls deploys a stage as (`<service>-<stage>`). */
export function stackName(stage: string): string {
  return `pds-bridge-${stage}`;
}

/**
 * The name of a resource of the stage that follows the `pds-bridge-<stage>-<name>` pattern: a schedule,
 * an alarm, the alarm topic (`alarms`).
 */
export function stageResourceName(stage: string, name: string): string {
  return `pds-bridge-${stage}-${name}`;
}

/** The stage of the local stack (`npm start`), whose queue names follow the deployed ones. */
export const LOCAL_STAGE = 'local';

/** Where the commands connect. */
export interface BridgeTarget {
  /** `local` for the local stack. */
  readonly stage: string;
  /** The state bucket; for a deployed stage it may be derived once the account id is known. */
  readonly stateBucket?: string;
  /** AWS SDK settings of the local stack's emulator; absent for AWS (the usual credential chain). */
  readonly emulator?: {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
  /** Where the local stack's facts came from, for messages. */
  readonly stackFile?: string;
  /** The local stack's folder of webhook secrets; a deployed stage's are in Secrets Manager. */
  readonly webhookSecretsDir?: string;
  /** The ingest's INGEST_PREFIX / INGEST_SUFFIXES, when known (the local stack's file; else the environment). */
  readonly ingestFilters?: { prefix?: string; suffixes?: string[] };
}

/** Stage names the templates accept: they become part of bucket names. */
const STAGE = /^[a-z0-9][a-z0-9-]{0,20}$/;

/** True for a stage name the templates can have deployed. */
export function isStageName(text: string): boolean {
  return STAGE.test(text);
}

/**
 * The name of a queue of the stage.
 *
 * @example
 * ```ts
 * queueName('prod', 'ingest'); // 'pds-bridge-prod-ingest'
 * queueName('prod', 'ingest', { deadLetter: true }); // 'pds-bridge-prod-ingest-dlq'
 * ```
 */
export function queueName(stage: string, role: string, options: { deadLetter?: boolean } = {}): string {
  return stageResourceName(stage, `${role}${options.deadLetter ? '-dlq' : ''}`);
}

/** The state bucket as deploy/core.yml names it. */
export function deployedStateBucket(account: string, region: string, stage: string): string {
  return `pds-bridge-state-${account}-${region}-${stage}`;
}

/** The account id inside an SQS queue URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
export function accountOfQueueUrl(url: string): string | undefined {
  return /\/(\d{12})\/[^/]+$/.exec(url)?.[1];
}

/** What a `QUEUE` argument of `redrive` names: a source queue and its dead-letter queue. */
export interface RedrivePair {
  role: string;
  /** Undefined for the schedule's dead-letter queue, which has no source. */
  source?: string;
  deadLetter: string;
}

/**
 * Reads a `QUEUE` argument: a role (`ingest`), a queue name (`pds-bridge-prod-ingest`) or its
 * dead-letter queue's name (`pds-bridge-prod-ingest-dlq`); always the pair.
 *
 * @returns undefined when it names no queue of the stage
 */
export function redrivePair(stage: string, text: string): RedrivePair | undefined {
  if (text === FAILED_RUNS_ROLE || text === queueName(stage, FAILED_RUNS_ROLE)) {
    return { role: FAILED_RUNS_ROLE, deadLetter: queueName(stage, FAILED_RUNS_ROLE) };
  }
  const roles: string[] = [...QUEUE_ROLES, SCHEDULE_DLQ_ROLE];
  const role = roles.find(
    (each) =>
      text === each ||
      text === `${each}-dlq` ||
      text === queueName(stage, each) ||
      text === queueName(stage, each, { deadLetter: true }),
  );
  if (role === undefined) return undefined;
  const deadLetter = queueName(stage, role, { deadLetter: true });
  return role === SCHEDULE_DLQ_ROLE
    ? { role, deadLetter }
    : { role, source: queueName(stage, role), deadLetter };
}
