/**
 * REPUBLISH_ON_RESEND_REQUEST on the ledger (./resend.ts says why and how exactly once): what the
 * messaging-asset poller's ledger does with a recipient's resend request.
 */
import type { Log, Metrics } from '../core/index.ts';
import type { CloudEvent } from '../events/index.ts';
import type { StateStore } from '../state/index.ts';
import type { ConfirmationEntry } from './entry.ts';
import { confirmationItemPrefix } from './keys.ts';
import { emptyLedgerReport, type LedgerReport, type Republisher } from './ports.ts';
import { readEntries } from './read.ts';
import {
  isResendRequest,
  resendChannel,
  resendIdempotencyKey,
  resendRequestedKeys,
  withResendLink,
} from './resend.ts';

/** What {@link republishOnResendRequest} reads, submits and reports with. */
export interface ResendRepublishDependencies {
  store: StateStore;
  /** Absent: REPUBLISH_ON_RESEND_REQUEST is off and nothing is republished. */
  republisher?: Republisher | undefined;
  now: () => Date;
  log: Log;
  metrics?: Metrics | undefined;
}

/**
 * REPUBLISH_ON_RESEND_REQUEST: submits a republication of the items the resend request names that
 * the bridge published, one per channel, through the durable publication path with a key derived
 * from the messaging asset (so a re-read request is a replay, never a second publication), then
 * links it on each entry of those items at that channel. An item the bridge did not publish, or
 * whose channel cannot be told for sure, is counted unmatched and left to the event.
 */
export async function republishOnResendRequest(
  deps: ResendRepublishDependencies,
  event: CloudEvent<'pds.messaging-asset.received'>,
): Promise<LedgerReport> {
  const report = emptyLedgerReport();
  const republisher = deps.republisher;
  const gdsn = event.data.gdsn;
  if (republisher === undefined || gdsn === undefined || !isResendRequest(gdsn)) return report;
  const { messagingAssetId } = event.data;
  const recipientGln = gdsn.recipientGln ?? gdsn.senderGln;
  const keys = resendRequestedKeys(gdsn, event.data.primaryKey);
  if (keys.length === 0) report.unmatched++;
  const byChannel = new Map<string, { primaryKeys: string[]; stateKeys: string[] }>();
  for (const primaryKey of keys) {
    const entries = await readEntries(deps.store, confirmationItemPrefix(primaryKey));
    const channel = resendChannel(entries, recipientGln);
    if (channel === undefined) {
      report.unmatched++;
      continue;
    }
    const group = byChannel.get(channel) ?? { primaryKeys: [], stateKeys: [] };
    group.primaryKeys.push(primaryKey);
    group.stateKeys.push(
      ...entries.filter(({ entry }) => entry.key.channelId === channel).map(({ stateKey }) => stateKey),
    );
    byChannel.set(channel, group);
  }
  for (const [channelId, group] of byChannel) {
    const idempotencyKey = resendIdempotencyKey(messagingAssetId, channelId);
    const submitted = await republisher.republish({
      primaryKeys: group.primaryKeys,
      channelId,
      idempotencyKey,
    });
    const { publicationId } = submitted;
    deps.log.info('Resend request: republication submitted', {
      messagingAssetId,
      channelId,
      publicationId,
      replayed: submitted.replayed,
      primaryKeys: group.primaryKeys,
    });
    if (!submitted.replayed) deps.metrics?.addMetric('RepublicationsOnResendRequest', 'Count', 1);
    const link = {
      messagingAssetId,
      ...(recipientGln ? { recipientGln } : {}),
      ...(gdsn.creationDateTime ? { requestedAt: gdsn.creationDateTime } : {}),
      publicationId,
      recordedAt: deps.now().toISOString(),
    };
    for (const stateKey of group.stateKeys) {
      const result = await deps.store.mutate<ConfirmationEntry>(
        stateKey,
        (current) => (current ? withResendLink(current, link) : undefined),
        { maxAttempts: 20 },
      );
      if (result.written) report.entriesWritten++;
    }
  }
  return report;
}
