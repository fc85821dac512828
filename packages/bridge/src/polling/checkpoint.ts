/**
 * The messaging-asset poller's checkpoint: which listed assets are done, and how the record moves once
 * a page of events was accepted. messaging-assets.ts stores it under `checkpointKey('messaging-assets')`
 * with conditional writes.
 *
 * What the record says (version 2):
 * - `emitted`: exactly the ids that are done, as ranges (id-ranges.ts): their event SQS accepted, or
 *   they were passed with `messageError` (poison.ts), or a first run `now` found them listed. Nothing
 *   else is done, so an asset that shows up late, at any distance below the newest or out of order,
 *   is new until its event is accepted, and then never again. No window, no guess about id order.
 * - `retry`: ids whose fetch failed or whose event SQS refused as invalid, with what the listing said
 *   about them; `attempts` counts the consecutive runs that failed (the poison rule passes an id at
 *   `POLL_FAILURE_LIMIT`). At most `maxRetry` entries; beyond that the oldest leave the list and are
 *   taken as new again by a later run that reads them (a whole listing, or the audit).
 * - `legacyFloor`: only in a checkpoint carried over from version 1 (floor + seen window). Version 1
 *   promised that every id at or below its floor was done; that promise holds for the ids listed when
 *   the first version-2 run reads the whole listing: they join `emitted` then and the field goes.
 * - `listing`: where the last read of the listing ended, for PDSs that honour paging (listing.ts).
 * - `listedAt`: when the last run that read the listing to its end started: the audit does not count
 *   an asset created after it as a gap (the poller has not had a chance to see it yet).
 * - `inFlight`: the assets a run is fetching and parsing, written before that work starts and emptied
 *   when the run ends. A run that finds it not empty knows the run before it died mid-page (out of
 *   memory, a timeout): each of those assets counts one failed run (`interrupted`), so an asset that
 *   kills the process is passed by the poison rule like any other failure instead of stopping every
 *   later run (messaging-assets.ts does not fetch it again once it reached the limit).
 */

import { once } from '../core/lazy.ts';
import * as z from '../core/zod.ts';
import type { MessagingAssetSummary } from '../pds/index.ts';
import { CheckpointFormatError } from './errors.ts';
import { IdRanges } from './id-ranges.ts';

/** One asset whose fetch failed (or whose event SQS refused as invalid), kept for the next runs. */
export interface RetryEntry {
  id: number;
  /** What the listing said, so a run that reads only the listing's new part can still fetch it. */
  createdAt?: number;
  primaryKey?: string;
  /** Consecutive failed runs so far. */
  attempts: number;
  /** ISO time of the first failure. */
  firstFailedAt: string;
  /** Message of the latest failure (for operators reading the checkpoint). */
  lastError: string;
  /** Set when the latest failure was a run that died while handling the asset (`inFlight`). */
  interrupted?: true;
}

/** An asset a run is working on, with what the listing said about it (as in {@link RetryEntry}). */
export interface InFlightEntry {
  id: number;
  createdAt?: number;
  primaryKey?: string;
}

/** Whether the PDS pages the listing, as listing.ts found out. */
export type ListingPaging = 'unknown' | 'honoured' | 'ignored';

/** Where the last read ended: `offset` entries were listed, the last of them `lastId`, the first `firstId`. */
export interface ListingPosition {
  offset: number;
  lastId: number;
  firstId: number;
}

export interface ListingState {
  paging: ListingPaging;
  position: ListingPosition | null;
}

/** The checkpoint as the poller works with it. */
export interface MessagingAssetCheckpoint {
  version: 2;
  emitted: IdRanges;
  /** Highest id whose event was accepted, for operators. */
  highestId: number | null;
  retry: RetryEntry[];
  legacyFloor: number | null;
  listing: ListingState;
  /** ISO time at which the last run that read the whole (or the rest of the) listing started. */
  listedAt: string | null;
  /** Assets being fetched and parsed by the run that wrote it; empty between runs. */
  inFlight: InFlightEntry[];
  /** ISO time of the last write. */
  updatedAt: string;
}

/** What to do when no checkpoint exists: `now` records the current listing as done, `backlog` emits it. */
export type FirstRun = 'now' | 'backlog';

/** Default cap of the retry list. */
export const DEFAULT_MAX_RETRY = 1000;

/**
 * An empty checkpoint: nothing done yet. A first run `now` adds what it lists to `emitted`.
 *
 * @example
 * initialCheckpoint(new Date()).emitted.size; // 0
 */
export function initialCheckpoint(now: Date): MessagingAssetCheckpoint {
  return {
    version: 2,
    emitted: new IdRanges(),
    highestId: null,
    retry: [],
    legacyFloor: null,
    listing: { paging: 'unknown', position: null },
    listedAt: null,
    inFlight: [],
    updatedAt: now.toISOString(),
  };
}

/**
 * True when the asset is done: in the record, or at or below a carried-over version-1 floor.
 *
 * @example
 * isDone(checkpoint, 42); // false: emit it
 */
export function isDone(checkpoint: MessagingAssetCheckpoint, id: number): boolean {
  if (checkpoint.emitted.has(id)) return true;
  if (checkpoint.legacyFloor === null || id > checkpoint.legacyFloor) return false;
  return !retryIdsOf(checkpoint.retry).has(id);
}

/** The ids of a retry list, built once per list (a whole listing asks for every entry). */
const retryIds = new WeakMap<readonly RetryEntry[], Set<number>>();
function retryIdsOf(retry: readonly RetryEntry[]): Set<number> {
  let ids = retryIds.get(retry);
  if (!ids) {
    ids = new Set(retry.map((entry) => entry.id));
    retryIds.set(retry, ids);
  }
  return ids;
}

/** The outcome of one page, as recorded. */
export interface PageOutcome {
  /** Ids whose event SQS accepted. */
  emitted: readonly number[];
  /** Assets whose fetch failed (or whose event was refused), with the reason. */
  failed: ReadonlyArray<{ asset: MessagingAssetSummary; reason: string; interrupted?: boolean }>;
  /** Retry entries to drop because their asset is no longer listed. */
  gone?: readonly number[];
}

export interface AdvanceOptions {
  maxRetry?: number;
  now: Date;
}

/** The next checkpoint, and the retry entries that left the list because it was full. */
export interface Advanced {
  checkpoint: MessagingAssetCheckpoint;
  abandoned: RetryEntry[];
}

/**
 * Records a page: accepted ids join `emitted` and leave `retry`, failed ids join `retry`; both leave
 * `inFlight`.
 *
 * @example
 * advanceCheckpoint(checkpoint, { emitted: [101, 102], failed: [{ asset, reason: '503' }] }, { now: new Date() });
 */
export function advanceCheckpoint(
  checkpoint: MessagingAssetCheckpoint,
  outcome: PageOutcome,
  options: AdvanceOptions,
): Advanced {
  const maxRetry = options.maxRetry ?? DEFAULT_MAX_RETRY;
  const now = options.now.toISOString();
  const emitted = checkpoint.emitted.clone();
  for (const id of outcome.emitted) emitted.add(id);
  const accepted = new Set(outcome.emitted);
  const gone = new Set(outcome.gone ?? []);

  const retryById = new Map(
    checkpoint.retry
      .filter((entry) => !accepted.has(entry.id) && !gone.has(entry.id))
      .map((entry) => [entry.id, entry]),
  );
  for (const { asset, reason, interrupted } of outcome.failed) {
    const previous = retryById.get(asset.id);
    retryById.set(asset.id, {
      id: asset.id,
      ...(Number.isSafeInteger(asset.createdAt) ? { createdAt: asset.createdAt } : {}),
      ...(typeof asset.primaryKey === 'string' ? { primaryKey: asset.primaryKey } : {}),
      attempts: (previous?.attempts ?? 0) + 1,
      firstFailedAt: previous?.firstFailedAt ?? now,
      lastError: reason.slice(0, 300),
      ...(interrupted ? { interrupted: true as const } : {}),
    });
  }
  const handled = new Set([...accepted, ...outcome.failed.map(({ asset }) => asset.id)]);
  const inFlight = checkpoint.inFlight.filter((entry) => !handled.has(entry.id));
  let retry = [...retryById.values()].sort((a, b) => a.id - b.id);
  let abandoned: RetryEntry[] = [];
  if (retry.length > maxRetry) {
    // The oldest failures leave first; they are not in `emitted`, so a later read takes them as new.
    retry.sort((a, b) => a.firstFailedAt.localeCompare(b.firstFailedAt) || a.id - b.id);
    abandoned = retry.slice(0, retry.length - maxRetry);
    retry = retry.slice(retry.length - maxRetry).sort((a, b) => a.id - b.id);
  }

  const highestId = outcome.emitted.reduce<number | null>(
    (max, id) => (max === null || id > max ? id : max),
    checkpoint.highestId,
  );
  return {
    checkpoint: { ...checkpoint, emitted, highestId, retry, inFlight, updatedAt: now },
    abandoned,
  };
}

/** The JSON the state bucket holds: the checkpoint with its emitted ranges flattened. */
export interface StoredCheckpoint extends Omit<MessagingAssetCheckpoint, 'emitted' | 'inFlight'> {
  /** Left out when empty. */
  inFlight?: InFlightEntry[];
  /** `[start, length, gap, length, ...]` (id-ranges.ts). */
  emitted: number[];
  /** Ids in `emitted`, for operators reading the file. */
  emittedCount: number;
}

/**
 * The checkpoint as stored.
 *
 * @example
 * await store.update(key, storedCheckpoint(checkpoint), etag);
 */
export function storedCheckpoint(checkpoint: MessagingAssetCheckpoint): StoredCheckpoint {
  return {
    version: 2,
    emitted: checkpoint.emitted.encode(),
    emittedCount: checkpoint.emitted.size,
    highestId: checkpoint.highestId,
    retry: checkpoint.retry,
    legacyFloor: checkpoint.legacyFloor,
    listing: checkpoint.listing,
    listedAt: checkpoint.listedAt,
    ...(checkpoint.inFlight.length === 0 ? {} : { inFlight: checkpoint.inFlight }),
    updatedAt: checkpoint.updatedAt,
  };
}

const retryEntrySchema = once(() =>
  z.object({
    id: z.number().check(z.int()),
    createdAt: z.optional(z.number().check(z.int())),
    primaryKey: z.optional(z.string()),
    attempts: z.number().check(z.int(), z.gte(0)),
    firstFailedAt: z.string(),
    lastError: z.string(),
    interrupted: z.optional(z.literal(true)),
  }),
);

const inFlightEntrySchema = once(() =>
  z.object({
    id: z.number().check(z.int()),
    createdAt: z.optional(z.number().check(z.int())),
    primaryKey: z.optional(z.string()),
  }),
);

/** Version 1 (floor + seen window), carried over by {@link parseCheckpoint}. */
const versionOneSchema = once(() =>
  z.object({
    version: z.literal(1),
    floor: z.nullable(z.number().check(z.int())),
    highestId: z.nullable(z.number().check(z.int())),
    seen: z.array(z.number().check(z.int())),
    retry: z.array(retryEntrySchema()),
    updatedAt: z.string(),
  }),
);

const positionSchema = once(() =>
  z.object({
    offset: z.number().check(z.int(), z.gte(0)),
    lastId: z.number().check(z.int()),
    firstId: z.number().check(z.int()),
  }),
);

const versionTwoSchema = once(() =>
  z.object({
    version: z.literal(2),
    emitted: z.array(z.number()),
    emittedCount: z.optional(z.number().check(z.int(), z.gte(0))),
    highestId: z.nullable(z.number().check(z.int())),
    retry: z.array(retryEntrySchema()),
    legacyFloor: z.nullable(z.number().check(z.int())),
    listing: z.object({
      paging: z.enum(['unknown', 'honoured', 'ignored']),
      position: z.nullable(positionSchema()),
    }),
    listedAt: z.nullable(z.string()),
    inFlight: z.optional(z.array(inFlightEntrySchema())),
    updatedAt: z.string(),
  }),
);

/**
 * Checks a stored value and returns it as a checkpoint, carrying a version-1 checkpoint over; throws
 * {@link CheckpointFormatError} otherwise.
 *
 * Version 1 said: every id at or below `floor` is done, the ids in `seen` (above it) were emitted, the
 * ids in `retry` wait (the floor may have passed them). So `seen` joins `emitted`, `retry` stays, and
 * `floor` becomes `legacyFloor` until the next whole read of the listing turns it into the ids listed
 * at or below it (see the module comment): ids that were not listed then are not taken as done.
 *
 * @example
 * const checkpoint = parseCheckpoint((await store.get(key))?.value, key);
 */
export function parseCheckpoint(value: unknown, key: string): MessagingAssetCheckpoint {
  const version = (value as { version?: unknown } | null)?.version;
  if (version === 1) {
    const parsed = versionOneSchema().safeParse(value);
    if (!parsed.success) throw formatError(key, parsed.error);
    const old = parsed.data;
    const emitted = new IdRanges();
    const waiting = new Set(old.retry.map((entry) => entry.id));
    for (const id of old.seen) if (!waiting.has(id)) emitted.add(id);
    return {
      version: 2,
      emitted,
      highestId: old.highestId,
      retry: old.retry,
      legacyFloor: old.floor,
      listing: { paging: 'unknown', position: null },
      listedAt: null,
      inFlight: [],
      updatedAt: old.updatedAt,
    };
  }
  const parsed = versionTwoSchema().safeParse(value);
  if (!parsed.success) throw formatError(key, parsed.error);
  let emitted: IdRanges;
  try {
    emitted = IdRanges.decode(parsed.data.emitted);
  } catch (error) {
    throw new CheckpointFormatError(key, `emitted: ${(error as Error).message}`);
  }
  const { emittedCount: _count, inFlight, ...rest } = parsed.data;
  return { ...rest, inFlight: inFlight ?? [], emitted };
}

function formatError(key: string, error: z.core.$ZodError): CheckpointFormatError {
  return new CheckpointFormatError(key, z.prettifyError(error).replace(/\n/g, ' '));
}
