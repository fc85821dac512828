/**
 * The progress record of one object write in the state bucket, and the claim that makes exactly one
 * delivery work on it at a time.
 *
 * Life of a record (`ingest/<bucket>/<sha256 of key>/<write>.json`, see ./keys.ts):
 *
 * ```
 * (none) ──create, If-None-Match──▶ claimed ──▶ uploaded {gatheringKey, entryCount, importedRanges} ──▶ done
 *                                      └──────────────┴──────────────▶ failed
 * ```
 *
 * The entries themselves (path and asset key of each) are written once, beside the record
 * (./progress-entries.ts), and the record keeps only which of them were imported, as ranges of
 * indexes: each import rewrites a few hundred bytes instead of every entry, so the bytes written for
 * an archive grow with its size, not with its square. Records written before (`entries` inline, each
 * with its `imported` flag) are still read, and carried over to this layout when a delivery resumes one.
 *
 * The race rules are those of the claim primitive (packages/bridge/src/state/claim.ts): claiming is a conditional
 * create; every later change is a conditional update on the ETag this holder wrote last, so a holder
 * that lost its claim finds out at its next step instead of writing over someone else's progress. A claim carries a lease (`leaseUntil`): a delivery that finds a
 * claimed or uploaded record with a live lease backs off ({@link IngestInProgressError}, retried by
 * SQS once that lease has ended); one that finds an expired (or released) lease takes the record over and resumes from what it
 * says. Keep the lease longer than the function timeout, so a live invocation is never overtaken.
 */

import type { IngestFailureCode } from '../events/data/index.ts';
import { openMarkerKey, timeMarkerKey, writeActivityMarker } from '../state/activity-index.ts';
import { acquireClaim, advanceClaim, type Claim, type ClaimPolicy } from '../state/claim.ts';
import type { StateStore } from '../state/index.ts';
import { IngestInProgressError } from './errors.ts';
import { ingestProgressKey, type ObjectWrite } from './keys.ts';

export type IngestStatus = 'claimed' | 'uploaded' | 'done' | 'failed';

/** The activity family of ingest progress records (packages/bridge/src/state/activity-index.ts). */
export const INGEST_ACTIVITY = 'ingest';

/** Done or failed: never claimed again, and what `pds bridge replay` rebuilds events of. */
export function isFinished(record: Pick<IngestProgressRecord, 'status'>): boolean {
  return record.status === 'done' || record.status === 'failed';
}

/** One gathering entry and whether its import was accepted. */
export interface IngestEntryProgress {
  path: string;
  assetKey: string;
  imported: boolean;
}

/** What is stored per object write. */
export interface IngestProgressRecord {
  bucket: string;
  key: string;
  versionId?: string;
  etag?: string;
  sequencer?: string;
  status: IngestStatus;
  /** Who holds (or last held) the claim: invocation and message ids, for operators. */
  owner: string;
  /** Epoch ms until which the claim is held; 0 once released or finished. */
  leaseUntil: number;
  /** Claims so far, take-overs included. */
  attempts: number;
  /** Epoch ms. */
  claimedAt: number;
  /** Epoch ms of the last change. */
  updatedAt: number;
  /** Bytes uploaded (the object's Content-Length). */
  size?: number;
  gatheringKey?: string;
  /** Entries of the gathering (set with `uploaded`); stored in ingestEntriesKey(key, gatheringKey). */
  entryCount?: number;
  /** Indexes (in the entries' order) of the entries whose import the PDS accepted: `[from, to)` ranges. */
  importedRanges?: Array<[number, number]>;
  /**
   * The layout before entries moved out of the record: every entry with its flag, rewritten whole on
   * each import. Still read (and carried over when resumed); never written any more.
   */
  entries?: IngestEntryProgress[];
  /** Set with `done` (imported) or `failed` (failed, superseded). */
  outcome?: 'imported' | 'failed' | 'superseded';
  reason?: string;
  /** Set with `failed`: the `code` of the `pds.ingest.failed` event (packages/bridge/src/events/data/ingest.ts), so it can be replayed. */
  code?: IngestFailureCode;
  pdsStatus?: number;
  /** The retryable failure that made the last holder give the claim back. */
  lastError?: string;
}

/**
 * The object write a record (or an S3 event, or any write that carries more) is about, as the
 * ingest identifies it: bucket and key, and the version, ETag and sequencer where set.
 *
 * @example
 * ingestProgressKey(objectWriteOf(record)) === stateKeyTheRecordWasReadFrom; // true
 */
export function objectWriteOf(record: ObjectWrite): ObjectWrite {
  return {
    bucket: record.bucket,
    key: record.key,
    ...(record.versionId ? { versionId: record.versionId } : {}),
    ...(record.etag ? { etag: record.etag } : {}),
    ...(record.sequencer ? { sequencer: record.sequencer } : {}),
  };
}

export interface ClaimOptions {
  /** Identifies this delivery in the record. */
  owner: string;
  /** How long the claim is held; longer than the function timeout. */
  leaseMs: number;
  /** Epoch ms; defaults to Date.now. */
  now?: () => number;
}

/** A claim was taken (new or taken over), or the write was already finished by an earlier delivery. */
export type ClaimResult =
  | { kind: 'claimed'; claim: IngestClaim; takenOver: boolean }
  | { kind: 'finished'; record: IngestProgressRecord };

/**
 * A held claim on one progress record: read what it says, advance it, or give it back.
 *
 * @example
 * ```ts
 * const result = await claimIngest(store, write, { owner: requestId, leaseMs: 16 * 60_000 });
 * if (result.kind === 'claimed') await result.claim.advance({ status: 'uploaded', gatheringKey, entries });
 * ```
 */
export class IngestClaim {
  readonly key: string;
  readonly #store: StateStore;
  readonly #now: () => number;
  #claim: Claim<IngestProgressRecord>;

  constructor(store: StateStore, key: string, record: IngestProgressRecord, etag: string, now: () => number) {
    this.#store = store;
    this.key = key;
    this.#claim = { key, record, etag };
    this.#now = now;
  }

  /** The record as this holder last wrote it. */
  get record(): Readonly<IngestProgressRecord> {
    return this.#claim.record;
  }

  /**
   * Writes `change` over the record (If-Match on the ETag this holder wrote last).
   *
   * @throws IngestInProgressError when another delivery took the record over
   */
  async advance(change: Partial<IngestProgressRecord>): Promise<void> {
    const next: IngestProgressRecord = { ...this.#claim.record, ...change, updatedAt: this.#now() };
    const finishing = isFinished(next);
    // The activity index (packages/bridge/src/state/activity-index.ts): the marker replay finds it by, before the record.
    if (finishing) {
      await writeActivityMarker(
        this.#store,
        timeMarkerKey(INGEST_ACTIVITY, this.key, next.updatedAt),
        this.key,
        next.updatedAt,
      );
    }
    const step = await advanceClaim(this.#store, this.#claim, next);
    if (step.outcome === 'lost') {
      throw new IngestInProgressError(
        this.key,
        'the claim was taken over while this delivery worked on it (its lease ran out)',
      );
    }
    this.#claim = step.claim;
    // A finished record is never claimed again: its open marker is no longer needed (status skips it anyway).
    if (finishing) await this.#store.delete(openMarkerKey(INGEST_ACTIVITY, this.key)).catch(() => undefined);
  }

  /**
   * Gives the claim back after a retryable failure so the next delivery need not wait for the lease.
   * Best effort: returns false instead of throwing when the record could not be written.
   */
  async release(lastError: string): Promise<boolean> {
    try {
      await this.advance({ leaseUntil: 0, lastError: lastError.slice(0, 1000) });
      return true;
    } catch {
      return false;
    }
  }
}

/** How a progress record carries its claim: `leaseUntil`; finished records are never claimed again. */
function progressPolicy(
  store: StateStore,
  key: string,
  write: ObjectWrite,
  options: ClaimOptions,
): ClaimPolicy<IngestProgressRecord> {
  return {
    leaseEnd: (record) => record.leaseUntil,
    claimable: (record) => !isFinished(record),
    fresh: async (at) => {
      // The activity index: the marker status finds an unfinished record by, before the record.
      await writeActivityMarker(store, openMarkerKey(INGEST_ACTIVITY, key), key, at);
      return freshRecord(write, options, at);
    },
    // Resume from what the record says: status, gathering and entries stay as the last holder left them.
    takeOver: (record, at) => ({
      ...record,
      owner: options.owner,
      leaseUntil: at + options.leaseMs,
      attempts: record.attempts + 1,
      claimedAt: at,
      updatedAt: at,
    }),
  };
}

function freshRecord(write: ObjectWrite, options: ClaimOptions, at: number): IngestProgressRecord {
  return {
    ...objectWriteOf(write),
    status: 'claimed',
    owner: options.owner,
    leaseUntil: at + options.leaseMs,
    attempts: 1,
    claimedAt: at,
    updatedAt: at,
  };
}

/**
 * Claims the progress record of `write`: creates it (If-None-Match), takes over one whose lease ran
 * out (If-Match), or reports that the write was already finished.
 *
 * @example
 * ```ts
 * const result = await claimIngest(store, write, { owner: requestId, leaseMs: 16 * 60_000 });
 * if (result.kind === 'finished') return result.record.outcome;
 * ```
 *
 * @throws IngestInProgressError when another delivery holds a live claim or wins the race for it
 */
export async function claimIngest(
  store: StateStore,
  write: ObjectWrite,
  options: ClaimOptions,
): Promise<ClaimResult> {
  const now = options.now ?? Date.now;
  const key = ingestProgressKey(write);
  const policy = progressPolicy(store, key, write, options);
  // Two rounds: a create that loses the race reads the winner's record once more.
  for (let round = 0; round < 2; round++) {
    const result = await acquireClaim(store, key, policy, { now });
    switch (result.outcome) {
      case 'acquired': {
        const { record, etag } = result.claim;
        return {
          kind: 'claimed',
          claim: new IngestClaim(store, key, record, etag, now),
          takenOver: result.takenOver,
        };
      }
      case 'settled':
        return { kind: 'finished', record: result.record };
      case 'held':
        throw new IngestInProgressError(
          key,
          `claimed by ${result.record.owner} until ${new Date(result.leaseEnd).toISOString()}`,
          result.leaseEnd,
        );
      case 'raced':
        if (result.step === 'create') continue;
        // The winner claimed just now with the same lease setting.
        throw new IngestInProgressError(
          key,
          'another delivery took over the expired claim first',
          result.leaseEnd,
        );
    }
  }
  throw new IngestInProgressError(
    key,
    'another delivery created the claim at the same moment',
    now() + options.leaseMs,
  );
}
