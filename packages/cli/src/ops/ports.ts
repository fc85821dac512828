/**
 * What the operators' commands need from a queue service: depths, a look at messages without
 * consuming them, and moving messages from a dead-letter queue back to its source. The adapter is
 * ./sqs/queues.ts; the logic (./status.ts, ./redrive.ts) never loads the AWS SDK.
 */

/** The approximate counts SQS reports for one queue. */
export interface QueueDepth {
  readonly name: string;
  readonly url: string;
  /** Messages available for retrieval. */
  readonly visible: number;
  /** Messages received by a consumer and not yet deleted. */
  readonly inFlight: number;
  /** Messages not yet visible (delayed). */
  readonly delayed: number;
}

/** A message looked at (it stays in its queue). */
export interface PeekedMessage {
  readonly messageId: string;
  readonly body: string;
  /** String message attributes. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Epoch ms at which it was first sent to the queue it came from (SQS `SentTimestamp`). */
  readonly sentAt?: number;
  /** How often it was received, this look included. */
  readonly receiveCount?: number;
}

/** How messages were moved. */
export type MoveResult =
  /** An SQS message move task was started; it runs on in SQS at the given rate. */
  | { readonly method: 'move-task'; readonly taskHandle: string }
  /** The messages were received, sent to the destination and deleted, one by one. */
  | { readonly method: 'copy'; readonly moved: number };

export interface MoveOptions {
  /** Messages per second at most. */
  readonly perSecond: number;
  /** Stop after this many (copy only; a move task moves what is there). */
  readonly max?: number;
}

export interface OperatorQueues {
  /** The depth of a queue, or `undefined` when no queue has that name. */
  depth(name: string): Promise<QueueDepth | undefined>;
  /**
   * Up to `max` messages of a queue, each made visible again at once. Every look counts as a receive
   * (`ApproximateReceiveCount`), so only look at queues no consumer reads with a redrive policy: DLQs.
   */
  peek(name: string, max: number): Promise<PeekedMessage[]>;
  /** Moves the messages of `from` back to `to` at most `perSecond` a second. */
  move(from: string, to: string, options: MoveOptions): Promise<MoveResult>;
}

/** The age of a queue's oldest message as a source measured it. */
export interface QueueAge {
  /** Seconds. */
  readonly seconds: number;
  /** When the figure was measured (ISO 8601). */
  readonly at: string;
}

/**
 * Where the ages of the queues' oldest messages come from. SQS has no queue attribute for it and a
 * receive would disturb the messages (receive counts, visibility), so a source reads a measurement
 * taken elsewhere: CloudWatch's `ApproximateAgeOfOldestMessage` for a deployed stage (./cloudwatch/),
 * nothing for the local emulator, which keeps no such figure ({@link NO_QUEUE_AGES}).
 */
export interface QueueAgeSource {
  /** Where the figures come from, shown beside them; or why there are none. */
  readonly label: string;
  /** False when the source can tell no age at all. */
  readonly available: boolean;
  /** The latest age of each named queue that has a recent figure; a queue without one is left out. */
  ages(names: readonly string[]): Promise<ReadonlyMap<string, QueueAge>>;
}

/** The local stack's source: its emulator measures no ages, and none is invented. */
export const NO_QUEUE_AGES: QueueAgeSource = {
  label: 'age: not available locally (the local emulator keeps no CloudWatch metrics)',
  available: false,
  ages: async () => new Map(),
};
