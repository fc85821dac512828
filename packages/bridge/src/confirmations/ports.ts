/**
 * What the publish worker and the pollers call to keep the confirmation ledger (no SDK). The
 * implementation is ./ledger.ts on the StateStore; tests may pass a recording one.
 */
import type { Log, Metrics } from '../core/index.ts';
import type { CloudEvent, EventSink } from '../events/index.ts';
import type { Destination } from '../pds/index.ts';
import type { StateStore } from '../state/index.ts';
import type { ChannelDirectory } from './channel-directory.ts';

/** A publication the PDS accepted: every (key, communication channel) becomes an entry. */
export interface PublishedItems {
  publicationId: string;
  /** ISO time the PDS accepted the publication. */
  publishedAt: string;
  /**
   * ISO time the bridge accepted the publication request, before anything was sent to the PDS: an
   * answer created after it (less ANSWER_CLOCK_SKEW_MS) counts for this publication (./entry.ts).
   */
  requestedAt?: string;
  primaryKeys: readonly string[];
  destinations: readonly Destination[];
}

/** What one call did, for metrics and logs. */
export interface LedgerReport {
  /** Entries written (a new fact or a new state). */
  entriesWritten: number;
  /** State changes recorded, by new state. */
  transitions: Record<string, number>;
  /** Events published (`pds.confirmation.changed`), repeats of a crashed attempt included. */
  eventsPublished: number;
  /**
   * Answers applied to no entry: naming none the ledger could tell for sure, not believed from their
   * sender (`untrusted`), or naming a recipient that cannot be keyed (`invalid`). Kept in the raw
   * events only.
   */
  unmatched: number;
  /** Of `unmatched`: messages whose sender may not speak for the entry (./trust.ts). */
  untrusted: number;
  /** Of `unmatched`: confirmations whose recipient GLN or target market is malformed (./identifiers.ts). */
  invalid: number;
}

export interface ConfirmationRecorder {
  /** Called once the PDS accepted a publication (the publish worker, before the completed event). */
  recordPublication(published: PublishedItems): Promise<LedgerReport>;
  /** Called with the review events SQS accepted (the review poller and its fan-out workers). */
  recordReviews(events: ReadonlyArray<CloudEvent<'pds.supplier-review.received'>>): Promise<LedgerReport>;
  /** Called with the messaging-asset events SQS accepted (the messaging-asset poller). */
  recordMessagingAssets(
    events: ReadonlyArray<CloudEvent<'pds.messaging-asset.received'>>,
  ): Promise<LedgerReport>;
}

/**
 * How the ledger submits a resend request's republication (REPUBLISH_ON_RESEND_REQUEST): the
 * publication path (packages/bridge/src/publications/republish.ts), so the ledger never calls the PDS itself.
 */
export interface Republisher {
  /**
   * Submits a publication of `primaryKeys` to the communication channel, once per `idempotencyKey`
   * (a second call answers the first one's id with `replayed`).
   */
  republish(input: {
    primaryKeys: readonly string[];
    channelId: string;
    idempotencyKey: string;
  }): Promise<{ publicationId: string; replayed: boolean }>;
}

export function emptyLedgerReport(): LedgerReport {
  return { entriesWritten: 0, transitions: {}, eventsPublished: 0, unmatched: 0, untrusted: 0, invalid: 0 };
}

/** Adds `more` into `total`. */
export function addLedgerReport(total: LedgerReport, more: LedgerReport): LedgerReport {
  total.entriesWritten += more.entriesWritten;
  total.eventsPublished += more.eventsPublished;
  total.unmatched += more.unmatched;
  total.untrusted += more.untrusted;
  total.invalid += more.invalid;
  for (const [state, count] of Object.entries(more.transitions)) {
    total.transitions[state] = (total.transitions[state] ?? 0) + count;
  }
  return total;
}

/** What the confirmation ledger (./ledger.ts) is built with. */
export interface LedgerDependencies {
  store: StateStore;
  sink: EventSink;
  /** CONFIRMATION_DEADLINE_HOURS in milliseconds. */
  deadlineMs: number;
  now?: () => Date;
  log?: Log;
  metrics?: Metrics;
  /** CloudEvents `source`; default `urn:pds-bridge`. */
  source?: string;
  /** Entries worked on at once. Default 8. */
  concurrency?: number;
  /**
   * CONFIRMATION_RETENTION_DAYS in milliseconds: settled entries (SYNCHRONISED, ACCEPTED) get an
   * expiry marker this long after they settled (./expiry.ts deletes them). Unset: they never expire.
   */
  retentionMs?: number;
  /**
   * REPUBLISH_ON_RESEND_REQUEST: the publication path a resend request's republication is submitted
   * through (./resend.ts, packages/bridge/src/publications/republish.ts). Unset (the default): a resend request is
   * only its event.
   */
  republisher?: Republisher;
  /**
   * Who speaks for each channel (./channel-directory.ts): its data pool and the Global Registry, whose
   * refusals and relayed confirmations are believed, and the recipients it leads to. Unset: nobody
   * beyond what the entries learnt (refusals are never applied; confirmations are believed from
   * their recipient alone).
   */
  channels?: ChannelDirectory;
}
