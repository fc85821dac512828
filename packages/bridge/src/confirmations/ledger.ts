/**
 * The confirmation ledger on the StateStore: did each recipient synchronise what the bridge published?
 *
 * Entries (./entry.ts) live at `confirmations/<primaryKey>/<channelId>/<recipient>.json`
 * (./keys.ts). A publication creates the channel's first entry (`_`) for each key and
 * COMMUNICATION_CHANNEL destination (IN_PLATFORM ones are no trading partners: ./recipients.ts). The
 * first recipient a channel's confirmations name (GLN and target market) is recorded on that entry; a
 * confirmation naming another one gets its own entry, which starts with the first entry's publications.
 *
 * Every write is a conditional read–modify–write (`StateStore.mutate`) whose function only computes,
 * so writers racing on one entry (the review poller, its fan-out workers, the messaging-asset poller,
 * the publish worker, the deadline check) each re-read and re-apply their facts: no fact and no
 * transition is lost, and a fact already applied changes nothing. A transition is written together
 * with its event into the entry's outbox (`pending`); the event is published after the write and the
 * outbox cleared after that, so a crash in between publishes it again later with the same id.
 *
 * Only entries the bridge created by publishing are kept up: reviews and confirmations about items
 * or channels it did not publish to are left to the raw events.
 */
import { type Log, mapAll, silentLog } from '../core/index.ts';
import type { ConfirmationEntryKey } from '../events/data/index.ts';
import type { CloudEvent } from '../events/index.ts';
import type { CicSummary } from '../xml/index.ts';
import {
  applyFacts,
  type ConfirmationEntry,
  type Fact,
  type PendingChange,
  REFUSED_BY_DATA_POOL,
} from './entry.ts';
import { ConfirmationIndex } from './entry-index.ts';
import { confirmationChangedEvent, confirmationEventId, pendingId } from './events.ts';
import {
  cicMatchesItem,
  confirmationFact,
  gtin14,
  publicationFact,
  refusalFact,
  refusedKeys,
  reviewFact,
} from './facts.ts';
import {
  confirmationChannelPrefix,
  confirmationDeadlineKey,
  confirmationItemPrefix,
  confirmationKey,
  type DeadlineMark,
} from './keys.ts';
import {
  addLedgerReport,
  type ConfirmationRecorder,
  emptyLedgerReport,
  type LedgerDependencies,
  type LedgerReport,
  type PublishedItems,
} from './ports.ts';
import { readEntries } from './read.ts';
import { recordRecipientStats } from './recipient-stats.ts';
import { communicationChannels, namesSameRecipient } from './recipients.ts';
import {
  isResendRequest,
  resendChannel,
  resendIdempotencyKey,
  resendRequestedKeys,
  withResendLink,
} from './resend.ts';

export class ConfirmationLedger implements ConfirmationRecorder {
  readonly #deps: LedgerDependencies;
  readonly #now: () => Date;
  readonly #log: Log;
  readonly #index: ConfirmationIndex;

  constructor(deps: LedgerDependencies) {
    this.#deps = deps;
    this.#index = new ConfirmationIndex(deps.store, deps.retentionMs);
    this.#now = deps.now ?? (() => new Date());
    this.#log = deps.log ?? silentLog;
  }

  async recordPublication(published: PublishedItems): Promise<LedgerReport> {
    const fact = publicationFact(published.publicationId, published.publishedAt);
    const deadline = new Date(Date.parse(published.publishedAt) + this.#deps.deadlineMs).toISOString();
    const channels = communicationChannels(published.destinations);
    const pairs = [...new Set(published.primaryKeys)].flatMap((primaryKey) =>
      channels.map((channelId) => ({ primaryKey, channelId })),
    );
    if (pairs.length === 0) return emptyLedgerReport();
    // The deadline first: an entry never waits without the check knowing when to look at it. One
    // mark per publication (created once; a repeated delivery finds it there).
    await this.#deps.store.mutate<DeadlineMark>(
      confirmationDeadlineKey(deadline, published.publicationId),
      (current) => current ?? { publicationId: published.publicationId, deadline, pairs },
    );
    const reports = await mapAll(pairs, this.#concurrency, async ({ primaryKey, channelId }) => {
      const firstKey = confirmationKey(primaryKey, channelId);
      let existed = true;
      const report = await this.#apply(firstKey, { primaryKey, channelId }, [fact], (current) => {
        existed = current !== undefined;
        return true;
      });
      // A republication resets the deadline of the channel's other recipients too. They are only
      // ever created from an existing first entry, so a first entry this call created has none.
      if (!existed) return report;
      for await (const stateKey of this.#deps.store.list(confirmationChannelPrefix(primaryKey, channelId))) {
        if (stateKey !== firstKey) addLedgerReport(report, await this.#apply(stateKey, undefined, [fact]));
      }
      return report;
    });
    return this.#total(reports);
  }

  async recordReviews(
    events: ReadonlyArray<CloudEvent<'pds.supplier-review.received'>>,
  ): Promise<LedgerReport> {
    const reports = await mapAll(events, this.#concurrency, async (event) => {
      const { review } = event.data;
      if (typeof review.channelId !== 'string' || review.channelId.length === 0) return emptyLedgerReport();
      const read = new Date(event.time);
      const { gdsn } = event.data;
      if (gdsn?.refusal) {
        // The data pool refused what was published to this channel: every recipient of it is affected.
        const fact = refusalFact(gdsn, review.messagingAssetId, read, event.id);
        return this.#applyToExisting(confirmationChannelPrefix(review.primaryKey, review.channelId), fact);
      }
      const cics = (event.data.cic ?? []).filter((cic) => cicMatchesItem(cic, review.primaryKey));
      const single = event.data.cic?.length === 1 ? event.data.cic : [];
      const answers = cics.length > 0 ? cics : single;
      if (answers.length === 0 && gdsn !== undefined && gdsn.messageType !== 'catalogueItemConfirmation') {
        // A resend request, a withdrawal, an accepted response: GDSN says nothing of where the item
        // stands at the recipient, so the review's own status is not taken for an answer.
        return emptyLedgerReport();
      }
      if (answers.length === 0) {
        const fact = reviewFact(review, event.id, read);
        return this.#apply(confirmationKey(review.primaryKey, review.channelId), undefined, [fact]);
      }
      const report = emptyLedgerReport();
      for (const cic of answers) {
        const fact = confirmationFact(cic, review.messagingAssetId, read, event.id);
        addLedgerReport(report, await this.#applyToRecipient(review.primaryKey, review.channelId, cic, fact));
      }
      return report;
    });
    return this.#total(reports);
  }

  async recordMessagingAssets(
    events: ReadonlyArray<CloudEvent<'pds.messaging-asset.received'>>,
  ): Promise<LedgerReport> {
    const withCic = events.filter(
      (event) =>
        (event.data.cic?.length ?? 0) > 0 ||
        event.data.gdsn?.refusal ||
        (this.#deps.republisher !== undefined && isResendRequest(event.data.gdsn)),
    );
    const reports = await mapAll(withCic, this.#concurrency, async (event) => {
      const report = emptyLedgerReport();
      const read = new Date(event.data.createdAt ?? event.time);
      const { gdsn } = event.data;
      if (isResendRequest(gdsn)) return this.#republishOnResendRequest(event);
      if (gdsn?.refusal) {
        const fact = refusalFact(gdsn, event.data.messagingAssetId, read);
        const keys = refusedKeys(gdsn, event.data.primaryKey);
        if (keys.length === 0) report.unmatched++;
        for (const primaryKey of keys) {
          const channel = await this.#onlyChannel(primaryKey);
          if (channel === undefined) {
            // Published to several channels (or none): which data pool refused is not known here;
            // the review poller brings the refusal with its channel.
            report.unmatched++;
            continue;
          }
          addLedgerReport(
            report,
            await this.#applyToExisting(confirmationChannelPrefix(primaryKey, channel), fact),
          );
        }
        return report;
      }
      for (const cic of event.data.cic ?? []) {
        const primaryKey = event.data.primaryKey ?? gtin14(cic.gtin);
        const target = await this.#entryNamingRecipient(primaryKey, cic);
        if (target === undefined) {
          // The review poller brings it with its channel once the review is listed.
          report.unmatched++;
          continue;
        }
        const fact = confirmationFact(cic, event.data.messagingAssetId, read);
        addLedgerReport(report, await this.#apply(target, undefined, [fact]));
      }
      return report;
    });
    return this.#total(reports);
  }

  /**
   * Re-evaluates every entry of an item at a channel at the current time: an AWAITING entry past its
   * deadline turns OVERDUE (./deadlines.ts calls it for each due deadline mark).
   */
  async refresh(primaryKey: string, channelId: string): Promise<LedgerReport> {
    const report = emptyLedgerReport();
    for await (const stateKey of this.#deps.store.list(confirmationChannelPrefix(primaryKey, channelId))) {
      addLedgerReport(report, await this.#apply(stateKey, undefined, []));
    }
    return this.#total([report]);
  }

  /**
   * REPUBLISH_ON_RESEND_REQUEST: submits a republication of the items the resend request names that
   * the bridge published, one per channel, through the durable publication path with a key derived
   * from the messaging asset (so a re-read request is a replay, never a second publication), then
   * links it on each entry of those items at that channel. An item the bridge did not publish, or
   * whose channel cannot be told for sure, is counted unmatched and left to the event.
   */
  async #republishOnResendRequest(event: CloudEvent<'pds.messaging-asset.received'>): Promise<LedgerReport> {
    const report = emptyLedgerReport();
    const republisher = this.#deps.republisher;
    const gdsn = event.data.gdsn;
    if (republisher === undefined || gdsn === undefined || !isResendRequest(gdsn)) return report;
    const { messagingAssetId } = event.data;
    const recipientGln = gdsn.recipientGln ?? gdsn.senderGln;
    const keys = resendRequestedKeys(gdsn, event.data.primaryKey);
    if (keys.length === 0) report.unmatched++;
    const byChannel = new Map<string, { primaryKeys: string[]; stateKeys: string[] }>();
    for (const primaryKey of keys) {
      const entries = await readEntries(this.#deps.store, confirmationItemPrefix(primaryKey));
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
      this.#log.info('Resend request: republication submitted', {
        messagingAssetId,
        channelId,
        publicationId,
        replayed: submitted.replayed,
        primaryKeys: group.primaryKeys,
      });
      if (!submitted.replayed) this.#deps.metrics?.addMetric('RepublicationsOnResendRequest', 'Count', 1);
      const link = {
        messagingAssetId,
        ...(recipientGln ? { recipientGln } : {}),
        ...(gdsn.creationDateTime ? { requestedAt: gdsn.creationDateTime } : {}),
        publicationId,
        recordedAt: this.#now().toISOString(),
      };
      for (const stateKey of group.stateKeys) {
        const result = await this.#deps.store.mutate<ConfirmationEntry>(
          stateKey,
          (current) => (current ? withResendLink(current, link) : undefined),
          { maxAttempts: 20 },
        );
        if (result.written) report.entriesWritten++;
      }
    }
    return report;
  }

  get #concurrency(): number {
    return this.#deps.concurrency ?? 8;
  }

  /** The one channel the item's entries are at, or `undefined` when there are none or several. */
  async #onlyChannel(primaryKey: string): Promise<string | undefined> {
    const entries = await readEntries(this.#deps.store, confirmationItemPrefix(primaryKey));
    const channels = new Set(entries.map(({ entry }) => entry.key.channelId));
    return channels.size === 1 ? [...channels][0] : undefined;
  }

  /**
   * Applies a fact to every existing entry under `prefix` (an item's, or an item's at one channel):
   * a refusal by the data pool names no recipient, so each recipient the publication went to is
   * refused. Nothing is created: an item the bridge did not publish has no entries.
   */
  async #applyToExisting(prefix: string, fact: Fact): Promise<LedgerReport> {
    const report = emptyLedgerReport();
    for await (const stateKey of this.#deps.store.list(prefix)) {
      addLedgerReport(report, await this.#apply(stateKey, undefined, [fact]));
    }
    return report;
  }

  /**
   * Applies a confirmation to the channel's entry for its recipient: the first entry while it names
   * no other recipient, else the recipient's own entry (created with the first entry's publications).
   */
  async #applyToRecipient(
    primaryKey: string,
    channelId: string,
    cic: CicSummary,
    fact: Fact,
  ): Promise<LedgerReport> {
    const firstKey = confirmationKey(primaryKey, channelId);
    let elsewhere: ConfirmationEntry | undefined;
    const report = await this.#apply(firstKey, undefined, [fact], (current) => {
      elsewhere = current && !namesSameRecipient(current.key, cic) ? current : undefined;
      return elsewhere === undefined;
    });
    if (elsewhere === undefined) return report;
    const first = elsewhere;
    const recipient = { recipientGln: cic.recipientGln, targetMarket: cic.targetMarketCountryCode };
    const publications = first.facts.filter((known) => known.kind === 'publication');
    const key: ConfirmationEntryKey = {
      primaryKey,
      channelId,
      ...(fact.gtin ? { gtin: fact.gtin } : {}),
      ...(cic.recipientGln ? { recipientGln: cic.recipientGln } : {}),
      ...(cic.targetMarketCountryCode ? { targetMarket: cic.targetMarketCountryCode } : {}),
    };
    return this.#apply(confirmationKey(primaryKey, channelId, recipient), key, [...publications, fact]);
  }

  /**
   * The one entry of this item whose recipient the confirmation names: only when every entry of the
   * item already knows its recipient (an entry that does not yet might be the one) and exactly one
   * has this GLN and target market. Otherwise nothing is guessed: the review brings the channel.
   */
  async #entryNamingRecipient(primaryKey: string, cic: CicSummary): Promise<string | undefined> {
    if (!cic.recipientGln) return undefined;
    const entries = await readEntries(this.#deps.store, confirmationItemPrefix(primaryKey));
    if (entries.some(({ entry }) => entry.key.recipientGln === undefined)) return undefined;
    const matches = entries.filter(({ entry }) => namesSameRecipient(entry.key, cic));
    return matches.length === 1 ? matches[0]?.stateKey : undefined;
  }

  /**
   * Applies facts to one entry with a conditional read–modify–write, then publishes the outbox.
   * `create` is the key of an entry a missing one is created with; without it a missing entry stays
   * missing. `accept` may refuse the entry as read (the fact belongs elsewhere).
   */
  async #apply(
    stateKey: string,
    create: ConfirmationEntryKey | undefined,
    facts: readonly Fact[],
    accept?: (current: ConfirmationEntry | undefined) => boolean,
  ): Promise<LedgerReport> {
    const report = emptyLedgerReport();
    const now = this.#now();
    const before: { state?: string; history: number; entry?: ConfirmationEntry } = { history: 0 };
    const result = await this.#deps.store.mutate<ConfirmationEntry>(
      stateKey,
      async (current, etag) => {
        before.state = current?.state;
        before.history = current?.history.length ?? 0;
        before.entry = current;
        if (accept && !accept(current)) return undefined;
        if (current === undefined && create === undefined) return undefined;
        const next = applyFacts(current, facts, {
          key: current?.key ?? (create as ConfirmationEntryKey),
          deadlineMs: this.#deps.deadlineMs,
          now,
          eventIdOf: (data, factId) => confirmationEventId(stateKey, factId, data),
        });
        // The index first: a crash after this leaves a stale marker, never a missing one.
        if (next !== undefined) await this.#index.beforeWrite(stateKey, current, next, now, etag);
        return next;
      },
      { maxAttempts: 20 },
    );
    const entry = result.value;
    if (result.written && entry) await this.#retireMarkers(stateKey, before.entry, entry, now, result.etag);
    if (result.written && entry) {
      report.entriesWritten++;
      if (entry.state !== before.state) {
        report.transitions[entry.state] = 1;
        this.#log.info('Confirmation entry changed state', {
          stateKey,
          previousState: before.state,
          state: entry.state,
        });
      }
    }
    if (entry && entry.pending.length > 0) {
      // Counted before the outbox is cleared, so a crash offers the transitions again (counted once).
      await recordRecipientStats(this.#deps.store, stateKey, entry);
      report.eventsPublished += await this.#flush(stateKey, entry.pending);
    }
    return report;
  }

  /** Retires the markers the entry lost; a failure only leaves stale markers (readers skip them). */
  async #retireMarkers(
    stateKey: string,
    previous: ConfirmationEntry | undefined,
    written: ConfirmationEntry,
    now: Date,
    writtenEtag: string | undefined,
  ): Promise<void> {
    try {
      await this.#index.afterWrite(stateKey, previous, written, now, writtenEtag);
    } catch (error) {
      this.#log.warn('Confirmation index markers left stale; readers and the next sweep retire them', {
        stateKey,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Publishes the outbox's events, then removes them from the entry (if nobody did meanwhile). */
  async #flush(stateKey: string, pending: readonly PendingChange[]): Promise<number> {
    const time = this.#now();
    const source = this.#deps.source;
    await this.#deps.sink.publish(
      pending.map((change) =>
        confirmationChangedEvent(stateKey, change.factId, change.data, { source, time }),
      ),
    );
    const sent = new Set(pending.map(pendingId));
    await this.#deps.store.mutate<ConfirmationEntry>(
      stateKey,
      (current) => {
        const kept = current?.pending.filter((change) => !sent.has(pendingId(change)));
        return current && kept && kept.length < current.pending.length
          ? { ...current, pending: kept }
          : undefined;
      },
      { maxAttempts: 20 },
    );
    return pending.length;
  }

  #total(reports: readonly LedgerReport[]): LedgerReport {
    const total = reports.reduce(addLedgerReport, emptyLedgerReport());
    const metrics = this.#deps.metrics;
    if (metrics) {
      const to = (state: string) => total.transitions[state] ?? 0;
      metrics.addMetric(
        'ConfirmationTransitions',
        'Count',
        Object.values(total.transitions).reduce((a, b) => a + b, 0),
      );
      metrics.addMetric('ConfirmationsSynchronised', 'Count', to('SYNCHRONISED') + to('ACCEPTED'));
      metrics.addMetric('ConfirmationsReview', 'Count', to('REVIEW'));
      metrics.addMetric('ConfirmationsRejected', 'Count', to('REJECTED'));
      metrics.addMetric('ConfirmationsOverdue', 'Count', to('OVERDUE'));
      metrics.addMetric('ConfirmationsRefusedByDataPool', 'Count', to(REFUSED_BY_DATA_POOL));
    }
    return total;
  }
}
