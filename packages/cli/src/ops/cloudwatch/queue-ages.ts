/**
 * The CloudWatch adapter of {@link QueueAgeSource}: SQS's own `ApproximateAgeOfOldestMessage` metric
 * (namespace `AWS/SQS`, dimension `QueueName`) read with one GetMetricData call for every queue asked
 * about, with the operator's credentials (`cloudwatch:GetMetricData`). Nothing is received from the
 * queues, so no message is disturbed. SQS publishes the metric once a minute while a queue is active;
 * a queue with no figure in the window is left out (the caller says "no recent figure").
 */
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import type { QueueAge, QueueAgeSource } from '../ports.ts';

/** The IAM action an operator needs for queue ages (docs/cli.md, "Permissions"). */
export const QUEUE_AGE_ACTIONS = ['cloudwatch:GetMetricData'] as const;

export interface CloudWatchQueueAgesOptions {
  cloudwatch: CloudWatchClient;
  /** How far back a figure still counts, ms. Default 15 minutes. */
  windowMs?: number;
  /** Clock, epoch ms. Default Date.now. */
  now?: () => number;
}

/** SQS publishes its metrics at one-minute resolution. */
const PERIOD_SECONDS = 60;
const DEFAULT_WINDOW_MS = 15 * 60_000;

export class CloudWatchQueueAges implements QueueAgeSource {
  readonly available = true;
  readonly label: string;
  readonly #cloudwatch: CloudWatchClient;
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(options: CloudWatchQueueAgesOptions) {
    this.#cloudwatch = options.cloudwatch;
    this.#windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    this.label = `age: CloudWatch AWS/SQS ApproximateAgeOfOldestMessage, the latest one-minute maximum of the last ${Math.round(this.#windowMs / 60_000)} minutes`;
  }

  async ages(names: readonly string[]): Promise<ReadonlyMap<string, QueueAge>> {
    const ages = new Map<string, QueueAge>();
    // GetMetricData takes at most 500 queries a call.
    for (let start = 0; start < names.length; start += 500) {
      const batch = names.slice(start, start + 500);
      for (const [index, age] of await this.#latest(batch)) ages.set(batch[index] as string, age);
    }
    return ages;
  }

  /** The latest figure of each queue of `names`, by its index. */
  async #latest(names: readonly string[]): Promise<Map<number, QueueAge>> {
    // Aligned to the period, as CloudWatch advises (and rounds to): each point is one whole minute.
    const period = PERIOD_SECONDS * 1000;
    const end = Math.ceil(this.#now() / period) * period;
    const start = Math.floor((end - this.#windowMs) / period) * period;
    const queries: MetricDataQuery[] = names.map((name, index) => ({
      Id: `q${index}`,
      MetricStat: {
        Metric: {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: [{ Name: 'QueueName', Value: name }],
        },
        Period: PERIOD_SECONDS,
        Stat: 'Maximum',
      },
      ReturnData: true,
    }));
    const latest = new Map<number, QueueAge>();
    let nextToken: string | undefined;
    do {
      const answer = await this.#cloudwatch.send(
        new GetMetricDataCommand({
          MetricDataQueries: queries,
          StartTime: new Date(start),
          EndTime: new Date(end),
          ScanBy: 'TimestampDescending',
          ...(nextToken ? { NextToken: nextToken } : {}),
        }),
      );
      for (const result of answer.MetricDataResults ?? []) {
        const index = Number(result.Id?.slice(1));
        const newest = newestPoint(result.Timestamps ?? [], result.Values ?? []);
        const known = latest.get(index);
        if (newest && (!known || newest.at > known.at)) latest.set(index, newest);
      }
      nextToken = answer.NextToken;
    } while (nextToken);
    return latest;
  }
}

/** The newest of a result's points (whatever order the service returned them in). */
function newestPoint(timestamps: readonly Date[], values: readonly number[]): QueueAge | undefined {
  let newest: QueueAge | undefined;
  timestamps.forEach((timestamp, index) => {
    const value = values[index];
    if (value === undefined || !Number.isFinite(value)) return;
    const at = timestamp.toISOString();
    if (!newest || at > newest.at) newest = { seconds: value, at };
  });
  return newest;
}

/**
 * The source of a deployed stage, with the usual credential chain and region.
 *
 * @example
 * ```ts
 * const ages = cloudWatchQueueAges();
 * (await ages.source.ages(['pds-bridge-prod-ingest'])).get('pds-bridge-prod-ingest')?.seconds;
 * ages.close();
 * ```
 */
export function cloudWatchQueueAges(): { source: QueueAgeSource; close(): void } {
  const cloudwatch = new CloudWatchClient({});
  return { source: new CloudWatchQueueAges({ cloudwatch }), close: () => cloudwatch.destroy() };
}
