/**
 * The publish stage of the supplier-review poller, per key: the built events go to the sink under the
 * poison-item rule (../poison.ts), then the accepted ones to the confirmation ledger, before the
 * key's progress is recorded (shards.ts).
 */
import { errorFields, errorSummary, type Log } from '../../core/index.ts';
import { describeRefusal, publishPassingRefused } from '../poison.ts';
import type { Accepted, Built, KeyBatch, KeyContext } from './types.ts';

/**
 * The built events published. Events SQS refuses as invalid: recorded for a retry, or, at the
 * failure limit, sent again without the message (one more round).
 */
export async function publishReviewEvents(
  batch: KeyBatch,
  built: Built[],
  context: KeyContext,
): Promise<{
  accepted: Accepted[];
  failed: Array<{ fingerprint: string; reason: string }>;
  publishError: Error | undefined;
}> {
  const { primaryKey, failedRuns } = batch;
  const failed: Array<{ fingerprint: string; reason: string }> = built
    .filter((item) => !item.ok)
    .map((item) => ({ fingerprint: item.fingerprint, reason: errorSummary(item.error) }));
  const sent = await publishPassingRefused<Accepted>(
    context.sink,
    built
      .filter((item): item is Accepted => item.ok)
      .map((item) => ({
        item,
        event: item.event,
        passed: item.passed === true,
        failedRuns: failedRuns(item.fingerprint),
      })),
    context.failureLimit,
    (item, messageError) => {
      const passed: Accepted = {
        ok: true,
        fingerprint: item.fingerprint,
        event: batch.passedEvent(item.fingerprint, messageError),
        passed: true,
      };
      return { item: passed, event: passed.event, passed: true, failedRuns: failedRuns(item.fingerprint) };
    },
  );
  for (const { item, failure } of sent.refused) {
    failed.push({ fingerprint: item.fingerprint, reason: describeRefusal(failure) });
    context.logger.warn(
      'SQS refused the event of a supplier review as invalid; it is tried again on the next run',
      {
        primaryKey,
        messagingAssetId: item.event.data.messagingAssetId,
        failedRuns: failedRuns(item.fingerprint),
        failureLimit: context.failureLimit,
        reason: describeRefusal(failure),
      },
    );
  }
  return { accepted: sent.accepted, failed, publishError: sent.error };
}

/** The accepted reviews recorded in the confirmation ledger, if there is one; the error if not. */
export async function recordConfirmations(
  primaryKey: string,
  accepted: Accepted[],
  context: KeyContext,
): Promise<{ error: unknown } | undefined> {
  const { confirmations } = context.deps;
  if (accepted.length === 0 || !confirmations) return undefined;
  try {
    await confirmations.recordReviews(accepted.map((item) => item.event));
    return undefined;
  } catch (error) {
    context.logger.warn(
      'The confirmation ledger could not record the reviews; they are polled again on the next run',
      {
        primaryKey,
        ...errorFields(error),
      },
    );
    return { error };
  }
}

/** Reviews emitted without their message (passed at the failure limit) or with unparsable XML. */
export function logPassedAndUnparsed(primaryKey: string, accepted: Accepted[], logger: Log): void {
  for (const item of accepted) {
    if (item.passed) {
      logger.error(
        'Supplier review failed on consecutive runs; emitted with messageError and passed. Fetch its message from the PDS by messagingAssetId if it is needed.',
        {
          primaryKey,
          messagingAssetId: item.event.data.messagingAssetId,
          failedRuns: item.event.data.messageError?.failedRuns,
          reason: item.event.data.messageError?.message,
        },
      );
    }
    if (item.event.data.parseError) {
      logger.warn(
        'The message of a supplier review is not valid XML; emitted with parseError and the raw text',
        {
          primaryKey,
          messagingAssetId: item.event.data.messagingAssetId,
        },
      );
    }
  }
}
