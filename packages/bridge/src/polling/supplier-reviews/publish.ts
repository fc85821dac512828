/**
 * The publish stage of the supplier-review poller, per key: the built events go to the sink under the
 * poison-item rule (../poison.ts), then the accepted ones to the confirmation ledger, before the
 * key's progress is recorded (shards.ts).
 */
import { errorFields, errorSummary, type Log } from '../../core/index.ts';
import { applyIsolatingPoison, describeRefusal, publishPassingRefused } from '../poison.ts';
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

/**
 * The accepted reviews recorded in the confirmation ledger, if there is one. A review the ledger
 * cannot apply for a reason of its own (../poison.ts, `isItemFault`) is handed back in `failed` for
 * a retry, or passed without the ledger at the failure limit; any other failure is handed back as
 * `error` (the key's reviews come again on the next run).
 */
export async function recordConfirmations(
  batch: KeyBatch,
  accepted: Accepted[],
  context: KeyContext,
): Promise<{ error: unknown } | { failed: Array<{ fingerprint: string; reason: string }> }> {
  const { confirmations } = context.deps;
  const { primaryKey } = batch;
  if (accepted.length === 0 || !confirmations) return { failed: [] };
  try {
    const applied = await applyIsolatingPoison(
      accepted,
      (items) => confirmations.recordReviews(items.map((item) => item.event)),
      (item) => batch.failedRuns(item.fingerprint),
      context.failureLimit,
    );
    for (const { item, error, failedRuns } of applied.passed) {
      context.logger.error(
        'The confirmation ledger could not apply a supplier review on consecutive runs; passed without the ledger (its event was sent)',
        {
          primaryKey,
          messagingAssetId: item.event.data.messagingAssetId,
          failedRuns,
          reason: errorSummary(error),
        },
      );
    }
    return {
      failed: applied.failed.map(({ item, error, failedRuns }) => {
        const reason = `the confirmation ledger could not apply it: ${errorSummary(error)}`;
        context.logger.warn(
          'The confirmation ledger could not apply a supplier review; it is tried again on the next run',
          { primaryKey, messagingAssetId: item.event.data.messagingAssetId, failedRuns, reason },
        );
        return { fingerprint: item.fingerprint, reason };
      }),
    };
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
