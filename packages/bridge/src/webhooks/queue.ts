/**
 * The port deliveries are queued through (the SQS adapter is ./sqs/queue.ts). One task is one event
 * for one endpoint; the queue groups tasks by endpoint so that one endpoint's backlog never holds up
 * another's (SQS fair queues: the endpoint id is the message group).
 */

export interface DeliveryTask {
  readonly kind: 'deliver';
  readonly endpointId: string;
  readonly eventId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Not to be attempted before this time (ISO); the queue delays at most 15 min per hop. */
  readonly notBefore?: string;
  /** Sent by a replay (recorded on the attempt). */
  readonly replay?: boolean;
  /**
   * When the task was queued (ISO): at dispatch, a retry or a replay; kept while it waits. A delivery
   * the log records as done since then (by a replay, or by the task a replay overtook) is not sent
   * again. Absent on tasks queued before it existed.
   */
  readonly queuedAt?: string;
}

export interface DeliveryQueue {
  /** Queues the tasks, each visible after `delaySeconds` (0–900). */
  enqueue(tasks: readonly DeliveryTask[], delaySeconds?: number): Promise<void>;
}

/** Longest delay one SQS message can carry. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
