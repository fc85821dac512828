/**
 * A local stand-in for EventBridge Scheduler: invokes a handler at a fixed rate with the event
 * Scheduler sends, never overlapping itself (a run that takes longer than the rate delays the next).
 */
import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => unknown;

export interface ScheduleOptions {
  name: string;
  rateMs: number;
  handler: ScheduledHandler;
  context: () => Context;
  region?: string;
  /** Run once right away instead of after the first interval; default true. */
  runAtStart?: boolean;
  onError?: (error: unknown) => void;
}

export interface RunningSchedule {
  /** Runs the handler now (after any run in progress) and resolves with its result. */
  runNow(): Promise<unknown>;
  stop(): Promise<void>;
}

/** The event EventBridge Scheduler delivers to a Lambda target (a scheduled event with an empty detail). */
export function scheduledEvent(name: string, region = 'us-east-1', time = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: '000000000000',
    time: time.toISOString(),
    region,
    resources: [`arn:aws:scheduler:${region}:000000000000:schedule/default/${name}`],
    detail: {},
  };
}

/**
 * @example
 * ```ts
 * const schedule = startSchedule({ name: 'poll-messaging-assets', rateMs: 60_000, handler, context });
 * await schedule.stop();
 * ```
 */
export function startSchedule(options: ScheduleOptions): RunningSchedule {
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const run = (): Promise<unknown> => {
    const next = chain.then(() =>
      options.handler(scheduledEvent(options.name, options.region), options.context()),
    );
    // One run at a time: the next waits for this one, whatever its outcome.
    chain = next.catch((error: unknown) => options.onError?.(error));
    return next;
  };

  const tick = () => {
    if (stopped) return;
    void run()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.rateMs);
      });
  };

  if (options.runAtStart ?? true) tick();
  else timer = setTimeout(tick, options.rateMs);

  return {
    runNow: run,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await chain;
    },
  };
}
