/**
 * The poison-item rule of both pollers: an item (a messaging asset, a supplier review) that fails on
 * `failureLimit` consecutive runs is emitted without its message, with `messageError` saying why and
 * how many runs failed, and passed, instead of being tried for ever while everything it holds up
 * waits. A run in which the item succeeds forgets its failures.
 *
 * What counts as the item's failure: its XML could not be fetched (a failure of one item, not of the
 * PDS as a whole: a page whose every fetch failed for a PDS-wide reason records nothing), its event
 * could not be built or serialised, SQS refused its event as the sender's fault, or the confirmation
 * ledger could not apply it for a reason of its own ({@link isItemFault}). A failure SQS does not
 * blame on the event (throttling, an outage, a whole request refused for permissions or a missing
 * queue), or a store outage, never counts: the event is sent again and nothing is passed.
 */
import { InvalidRecipientError } from '../confirmations/errors.ts';
import { BridgeError, boundedText, isIntegerInRange } from '../core/index.ts';
import type { MessageFetchError } from '../events/data/index.ts';
import {
  type CloudEvent,
  EventPublishError,
  type EventPublishFailure,
  type EventSink,
} from '../events/index.ts';
import { PdsHttpError } from '../pds/index.ts';
import { StateKeyError, StateValueError } from '../state/index.ts';

/** Consecutive failed runs after which an item is passed; `POLL_FAILURE_LIMIT`. */
export const DEFAULT_FAILURE_LIMIT = 5;

/**
 * True when an item that failed `failedRuns` runs in a row (this one included) is to be passed.
 *
 * @example
 * if (reachesFailureLimit((entry?.attempts ?? 0) + 1, options.failureLimit)) emitAsFailed(asset);
 */
export function reachesFailureLimit(failedRuns: number, failureLimit = DEFAULT_FAILURE_LIMIT): boolean {
  return failedRuns >= failureLimit;
}

/** Checks a failure limit option once, with the fix in the message. */
export function checkedFailureLimit(value: number | undefined): number {
  const limit = value ?? DEFAULT_FAILURE_LIMIT;
  if (!isIntegerInRange(limit, { min: 1 })) {
    throw new RangeError(
      `failureLimit must be a positive integer (consecutive failed runs before an item is passed), got ${String(value)}`,
    );
  }
  return limit;
}

/**
 * The `messageError` of an item passed after `failedRuns` failed runs because its message could not be
 * fetched.
 *
 * @example
 * messageErrorOfFetch(new PdsServerError(500, request, 'boom'), 5); // { name: 'PdsServerError', message: …, status: 500, failedRuns: 5 }
 */
export function messageErrorOfFetch(error: unknown, failedRuns: number): MessageFetchError {
  const name = error instanceof Error && error.name ? error.name : 'Error';
  const text = boundedText(error instanceof Error ? error.message : String(error));
  return {
    name,
    message: `${text || 'unknown error'} (failed on ${failedRuns} consecutive runs; passed without its message)`,
    ...(error instanceof PdsHttpError ? { status: error.status } : {}),
    failedRuns,
  };
}

/**
 * The `messageError` of an item passed after `failedRuns` failed runs because SQS refused its event.
 *
 * @example
 * messageErrorOfRefusal({ code: 'InvalidMessageContents', reason: 'Invalid characters found', … }, 5);
 */
export function messageErrorOfRefusal(failure: EventPublishFailure, failedRuns: number): MessageFetchError {
  return {
    name: failure.code || 'EventRefused',
    message: `SQS refused the event with its message: ${boundedText(failure.reason) || 'no reason given'} (failed on ${failedRuns} consecutive runs; passed without its message)`,
    failedRuns,
  };
}

/**
 * The `messageError` that passes an item whose message could not be fetched, when this failure is its
 * `failureLimit`th in a row (`failedRuns` counts this run); `undefined` below the limit: try it again.
 *
 * @example
 * const messageError = passedFetchError(error, failedRuns, failureLimit);
 * if (messageError) emitWithout(asset, messageError); else recordForRetry(asset);
 */
export function passedFetchError(
  error: unknown,
  failedRuns: number,
  failureLimit: number,
): MessageFetchError | undefined {
  return reachesFailureLimit(failedRuns, failureLimit) ? messageErrorOfFetch(error, failedRuns) : undefined;
}

/**
 * The `messageError` that passes an item whose event SQS refused, when this refusal is its
 * `failureLimit`th failure in a row (`failedRuns` counts this run); `undefined` below the limit.
 *
 * @example
 * const messageError = passedRefusalError(failure, failedRuns, failureLimit);
 */
function passedRefusalError(
  failure: EventPublishFailure,
  failedRuns: number,
  failureLimit: number,
): MessageFetchError | undefined {
  return reachesFailureLimit(failedRuns, failureLimit)
    ? messageErrorOfRefusal(failure, failedRuns)
    : undefined;
}

/** One line naming an SQS refusal, for retry records and logs. */
export function describeRefusal(failure: EventPublishFailure): string {
  return `SQS refused the event: ${failure.code}: ${failure.reason}`;
}

/** What SQS did with each item of one publish. */
interface PublishedEach<T> {
  accepted: T[];
  /**
   * This event itself refused as the sender's fault: sending it again cannot help. A whole request
   * refused (permissions, a missing queue) is not the event's fault: its items are `unaccepted`.
   */
  refused: Array<{ item: T; failure: EventPublishFailure }>;
  /** Not accepted for a reason of SQS's own (throttling, an outage): send again later. */
  unaccepted: T[];
  /** The publisher's error when anything was unaccepted, for logs and the run's outcome. */
  error?: EventPublishError;
}

/**
 * Publishes the events of `items` and sorts the items by what SQS did with each; errors other than
 * {@link EventPublishError} (a bug, a misconfiguration) are thrown.
 *
 * @example
 * const { accepted, refused, unaccepted } = await publishEach(sink, ready, (item) => item.event);
 */
async function publishEach<T>(
  sink: EventSink,
  items: readonly T[],
  eventOf: (item: T) => CloudEvent,
): Promise<PublishedEach<T>> {
  if (items.length === 0) return { accepted: [], refused: [], unaccepted: [] };
  try {
    await sink.publish(items.map(eventOf));
    return { accepted: [...items], refused: [], unaccepted: [] };
  } catch (error) {
    if (!(error instanceof EventPublishError)) throw error;
    const published = new Set(error.publishedIds);
    const failures = new Map(error.failures.map((failure) => [failure.eventId, failure]));
    const sorted: PublishedEach<T> = { accepted: [], refused: [], unaccepted: [] };
    for (const item of items) {
      const id = eventOf(item).id;
      const failure = failures.get(id);
      if (published.has(id) && failure === undefined) sorted.accepted.push(item);
      else if (failure?.senderFault && !failure.requestFailed) sorted.refused.push({ item, failure });
      else sorted.unaccepted.push(item);
    }
    if (sorted.unaccepted.length > 0) sorted.error = error;
    return sorted;
  }
}

/** An item to publish as the poison-item rule sees it: a plain value, no callbacks. */
export interface Outgoing<T> {
  item: T;
  event: CloudEvent;
  /** True for an item already passed without its message: refused again, it is retried, not passed again. */
  passed: boolean;
  /** The item's consecutive failed runs, this one included. */
  failedRuns: number;
}

/** What SQS did with the items of {@link publishPassingRefused}, over all its rounds. */
export interface PublishedPassingRefused<T> {
  /** Accepted, in the order SQS accepted them; passed items are the ones `passed` built. */
  accepted: T[];
  /** Refused as invalid below the failure limit, or refused again once passed: tried on the next run. */
  refused: Array<{ item: T; failure: EventPublishFailure }>;
  /** Not accepted for a reason of SQS's own (throttling, an outage): send again later. */
  unaccepted: T[];
  /** The publisher's last error when anything was unaccepted. */
  error: EventPublishError | undefined;
}

/**
 * Publishes the events of `outgoing` under the poison-item rule for refusals: an item whose event SQS
 * refuses as invalid on its `failureLimit`th failed run is passed (`pass` gives its event without the
 * message, sent in one more round); below the limit it is `refused`, for a retry on the next run.
 *
 * @example
 * ```ts
 * const sent = await publishPassingRefused(
 *   sink,
 *   built.map((item) => ({ item, event: item.event, passed: item.passed, failedRuns: failedRuns(item) })),
 *   failureLimit,
 *   (item, messageError) => passedOutgoing(item, messageError),
 * );
 * ```
 */
export async function publishPassingRefused<T>(
  sink: EventSink,
  outgoing: readonly Outgoing<T>[],
  failureLimit: number,
  pass: (item: T, messageError: MessageFetchError) => Outgoing<T>,
): Promise<PublishedPassingRefused<T>> {
  const result: PublishedPassingRefused<T> = { accepted: [], refused: [], unaccepted: [], error: undefined };
  for (let round: readonly Outgoing<T>[] = outgoing; round.length > 0; ) {
    const sent = await publishEach(sink, round, (each) => each.event);
    const next: Outgoing<T>[] = [];
    result.accepted.push(...sent.accepted.map((each) => each.item));
    result.unaccepted.push(...sent.unaccepted.map((each) => each.item));
    result.error = sent.error ?? result.error;
    for (const { item, failure } of sent.refused) {
      // A refused messageError event is small and plain; should SQS refuse even that, retry it.
      const messageError = item.passed
        ? undefined
        : passedRefusalError(failure, item.failedRuns, failureLimit);
      if (messageError) next.push(pass(item.item, messageError));
      else result.refused.push({ item: item.item, failure });
    }
    round = next;
  }
  return result;
}

/**
 * True when applying an item to the confirmation ledger failed for a reason of the item's own, so
 * that trying it again cannot help and must not hold up the poller: a key or a value the item made
 * that the store refuses, a recipient that cannot be keyed, code that broke on its data (TypeError,
 * RangeError), or a `pds.confirmation.changed` event refused as invalid. A store outage, a retryable
 * error, a configuration problem and any other error are not the item's: the run stops and the item
 * comes again, as before.
 *
 * @example
 * isItemFault(new StateKeyError(key, 'longer than 1,024 bytes')); // true
 * isItemFault(new StateStoreError(key, 'S3 is unavailable', true)); // false
 */
export function isItemFault(error: unknown): boolean {
  if (error instanceof EventPublishError) {
    return error.failures.length > 0 && error.failures.every((one) => one.senderFault && !one.requestFailed);
  }
  if (error instanceof StateKeyError || error instanceof StateValueError) return true;
  if (error instanceof InvalidRecipientError) return true;
  if (error instanceof BridgeError) return false;
  return error instanceof TypeError || error instanceof RangeError;
}

/** What {@link applyIsolatingPoison} did with the items whose application failed for their own reason. */
export interface AppliedIsolatingPoison<T> {
  /** Below the failure limit: not recorded as done, tried again on the next run. */
  failed: Array<{ item: T; error: unknown; failedRuns: number }>;
  /** At the failure limit: recorded as done without the ledger, with the error to log. */
  passed: Array<{ item: T; error: unknown; failedRuns: number }>;
}

/**
 * Applies `items` to the ledger with `apply`, all at once; when that fails for an item's own reason
 * ({@link isItemFault}) each item is applied alone (the ledger applies a fact once, so applying
 * again is safe) to find which ones fail. Those go to `failed`, or, on their `failureLimit`th failed
 * run (`failedRuns` counts this one), to `passed`. Any other failure is thrown: the run stops.
 *
 * @example
 * ```ts
 * const { failed, passed } = await applyIsolatingPoison(events, (some) => ledger.recordReviews(some), runsOf, 5);
 * ```
 */
export async function applyIsolatingPoison<T>(
  items: readonly T[],
  apply: (items: readonly T[]) => Promise<unknown>,
  failedRuns: (item: T) => number,
  failureLimit: number,
): Promise<AppliedIsolatingPoison<T>> {
  const result: AppliedIsolatingPoison<T> = { failed: [], passed: [] };
  if (items.length === 0) return result;
  try {
    await apply(items);
    return result;
  } catch (error) {
    if (!isItemFault(error)) throw error;
  }
  // One at a time: the order the batch had (a resend request sees the ones before it).
  for (const item of items) {
    try {
      await apply([item]);
    } catch (error) {
      if (!isItemFault(error)) throw error;
      const runs = failedRuns(item);
      (reachesFailureLimit(runs, failureLimit) ? result.passed : result.failed).push({
        item,
        error,
        failedRuns: runs,
      });
    }
  }
  return result;
}
