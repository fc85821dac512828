/**
 * `redrive QUEUE`: what is in a dead-letter queue and why (a dry run), then moving it back to its
 * source queue at a capped rate. Why a message failed is read from what the bridge recorded about it:
 *
 * - EventBridge Scheduler's messages carry `ERROR_CODE` / `ERROR_MESSAGE` attributes;
 * - a Lambda on-failure destination record (the pollers' failed runs): its `errorType` and `errorMessage`;
 * - an S3 notification (ingest): the progress record of each write it names (`lastError`, status);
 * - a publication message `{publicationId}`: the publication record (`lastError`, `error`, status);
 * - an event (the event queues' DLQs): its type; the consumer that failed on it holds the reason;
 * - a review-poll chunk: the keys it names.
 */

import { parseJson } from '@pds-bridge/bridge/core';
import { ingestProgressKey } from '@pds-bridge/bridge/ingest/keys.ts';
import type { IngestProgressRecord } from '@pds-bridge/bridge/ingest/progress.ts';
import { parseS3NotificationBody } from '@pds-bridge/bridge/ingest/s3-event.ts';
import { readPublication } from '@pds-bridge/bridge/publications/records.ts';
import type { StateStore } from '@pds-bridge/bridge/state';
import { getDelivery } from '@pds-bridge/bridge/webhooks';
import { OperatorTargetError } from './errors.ts';
import type { MoveResult, OperatorQueues, PeekedMessage } from './ports.ts';
import type { RedrivePair } from './target.ts';

/** One group of sampled messages that failed for the same reason. */
export interface ReasonGroup {
  reason: string;
  count: number;
  /** A message id of the group, to find it. */
  example: string;
}

export interface RedrivePlan {
  role: string;
  deadLetter: string;
  /** Where `--apply` moves the messages; absent for the schedule DLQ. */
  source?: string;
  /** Messages in the dead-letter queue (approximate, as SQS counts). */
  count: number;
  /** Messages looked at for the reasons. */
  sampled: number;
  /** When the oldest sampled message was first sent. */
  oldest?: string;
  reasons: ReasonGroup[];
}

export interface RedrivePlanOptions {
  /** Messages looked at. Default 50. */
  sample?: number;
}

/**
 * The dry run: count, oldest and a sample of reasons, grouped. The sampled messages stay in the queue.
 *
 * @example
 * ```ts
 * const plan = await planRedrive(queues, store, redrivePair('prod', 'ingest')!);
 * plan.reasons[0]; // { reason: 'no progress record: …', count: 3, example: '…' }
 * ```
 */
export async function planRedrive(
  queues: OperatorQueues,
  store: StateStore,
  pair: RedrivePair,
  options: RedrivePlanOptions = {},
): Promise<RedrivePlan> {
  const depth = await queues.depth(pair.deadLetter);
  if (depth === undefined) {
    throw new OperatorTargetError(
      `There is no queue named ${pair.deadLetter}: check the stage (--stage) and the region; the schedule DLQ exists only in deployed stacks`,
    );
  }
  const sample = depth.visible > 0 ? await queues.peek(pair.deadLetter, options.sample ?? 50) : [];
  const groups = new Map<string, ReasonGroup>();
  for (const message of sample) {
    const reason = await reasonOf(message, store);
    const group = groups.get(reason);
    if (group) group.count += 1;
    else groups.set(reason, { reason, count: 1, example: message.messageId });
  }
  const sentTimes = sample.flatMap((message) => (message.sentAt === undefined ? [] : [message.sentAt]));
  return {
    role: pair.role,
    deadLetter: pair.deadLetter,
    ...(pair.source ? { source: pair.source } : {}),
    count: depth.visible,
    sampled: sample.length,
    ...(sentTimes.length > 0 ? { oldest: new Date(Math.min(...sentTimes)).toISOString() } : {}),
    reasons: [...groups.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
  };
}

/**
 * Moves the dead-letter queue's messages back to the source queue, at most `perSecond` a second.
 *
 * @throws OperatorTargetError for the schedule DLQ, which has no source queue
 */
export async function applyRedrive(
  queues: OperatorQueues,
  pair: RedrivePair,
  options: { perSecond: number; max?: number },
): Promise<MoveResult> {
  if (!pair.source) {
    throw new OperatorTargetError(
      `${pair.deadLetter} has no source queue: its messages are poller runs that could not be made or failed (the dry run shows why); fix the cause and purge it, the next scheduled run polls again`,
    );
  }
  return queues.move(pair.deadLetter, pair.source, options);
}

/** Why one message failed, as far as the bridge's records tell. */
async function reasonOf(message: PeekedMessage, store: StateStore): Promise<string> {
  const { ERROR_CODE: code, ERROR_MESSAGE: text } = message.attributes;
  if (code || text) return `scheduler: ${[code, text].filter(Boolean).join(': ')}`;
  if (message.attributes.type) return `event ${message.attributes.type} failed in its consumer`;
  let body: unknown;
  try {
    body = parseJson(message.body);
  } catch {
    return 'unreadable message (not JSON)';
  }
  if (isObject(body) && isObject(body.requestContext) && 'responsePayload' in body) {
    return failedRunReason(body);
  }
  if (isObject(body) && typeof body.publicationId === 'string') {
    const record = (await readPublication(store, body.publicationId))?.value;
    if (!record) return 'publication message without a publication record (wrong STATE_BUCKET?)';
    const last = record.lastError?.reason ?? record.error?.reason;
    return `publication ${record.status}${last ? `: ${cut(last)}` : ''}`;
  }
  if (isObject(body) && typeof body.specversion === 'string' && typeof body.type === 'string') {
    return `event ${body.type} failed in its consumer`;
  }
  if (
    isObject(body) &&
    body.kind === 'deliver' &&
    typeof body.endpointId === 'string' &&
    typeof body.eventId === 'string'
  ) {
    return webhookTaskReason(body.endpointId, body.eventId, store);
  }
  if (isObject(body) && Array.isArray(body.keys))
    return 'review-poll chunk (the next scheduled run polls its keys again)';
  if (isObject(body) && (Array.isArray(body.Records) || body.Type === 'Notification' || body.Event)) {
    return ingestReason(message.body, store);
  }
  return 'unrecognised message';
}

/** A webhook delivery task: where its delivery stands in the delivery log. */
async function webhookTaskReason(endpointId: string, eventId: string, store: StateStore): Promise<string> {
  const record = await getDelivery(store, endpointId, eventId);
  const what = `webhook delivery of ${eventId} to ${endpointId}`;
  if (!record) return `${what}: never attempted (redriving delivers it)`;
  if (record.status === 'delivered')
    return `${what}: already delivered (redriving repeats it with the same webhook-id)`;
  const last = record.attempts.at(-1);
  const answer = last
    ? `, last attempt ${last.status ?? 'no answer'}${last.response ? ` ${cut(last.response)}` : ''}`
    : '';
  return `${what}: ${record.status}${record.reason ? ` (${cut(record.reason)})` : ''}${answer}`;
}

async function ingestReason(body: string, store: StateStore): Promise<string> {
  let notification: ReturnType<typeof parseS3NotificationBody>;
  try {
    notification = parseS3NotificationBody(body);
  } catch (error) {
    return `unreadable S3 notification: ${cut((error as Error).message)}`;
  }
  if (notification.kind === 'test') return 'S3 test event';
  const reasons = await Promise.all(
    notification.writes.map(async (write) => {
      const record = (await store.get<IngestProgressRecord>(ingestProgressKey(write)))?.value;
      if (!record) return 'ingest: no progress record (no delivery claimed the write)';
      if (record.status === 'done')
        return 'ingest: already done, the PDS accepted its import (redriving is harmless)';
      if (record.status === 'failed')
        return `ingest: already ${record.outcome ?? 'failed'} (redriving is harmless)`;
      return `ingest ${record.status}${record.lastError ? `: ${cut(record.lastError)}` : ''}`;
    }),
  );
  return [...new Set(reasons)].join('; ') || 'S3 notification of no object';
}

/** The reason of a Lambda destination record: the function and the error its invocation ended with. */
function failedRunReason(record: Record<string, unknown>): string {
  const context = record.requestContext as Record<string, unknown>;
  const functionName = String(context.functionArn ?? '').split(':')[6] ?? 'a function';
  const payload = isObject(record.responsePayload) ? record.responsePayload : {};
  const error = [payload.errorType, payload.errorMessage]
    .filter((part) => typeof part === 'string')
    .join(': ');
  return `failed run of ${functionName || 'a function'}: ${cut(error || String(context.condition ?? 'no error given'))}`;
}

function cut(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
