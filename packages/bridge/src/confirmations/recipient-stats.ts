/**
 * Per recipient and day, what the ledger's transitions add up to: how many entries entered each
 * state, how many were published and how many of those a business confirmation (a CIC) answered, and
 * how long publication took to become SYNCHRONISED, as a histogram of fixed buckets (so days merge and
 * p50/p95 come out of any range of them). The Recipients page of the console, `GET
 * /confirmations/recipients` and `pds bridge recipients` read these instead of the ledger, so what they
 * cost follows the recipients and the days asked for, never the number of entries.
 *
 * A recipient is a communication channel and who answers there: `_`, the channel's first recipient
 * (the entry a publication creates, named by whichever recipient answers first: for a channel with one
 * recipient, that recipient), or the GLN of a further recipient the channel's confirmations named
 * (docs/confirmations.md, "Recipients"). An entry's transitions all count under the recipient of its
 * state key, so an entry's publication and its answer are counted in the same place.
 *
 * Counted once: the ledger calls {@link recordRecipientStats} with an entry's outbox (`pending`)
 * before it clears it, so a transition is offered again after any crash; each day's document keeps
 * the short ids of the transitions it counted and a transition already there changes nothing. The day
 * is the UTC day the ledger recorded the transition, so every offer of one transition lands in the
 * same document. Documents are written with the store's conditional read–modify–write.
 */
import { createHash } from 'node:crypto';
import { mapAll } from '../core/index.ts';
import type { StateStore } from '../state/index.ts';
import type { ConfirmationEntry, PendingChange } from './entry.ts';
import { confirmationEventId } from './events.ts';
import { FIRST_RECIPIENT, RECIPIENT_STATS_PREFIX, recipientDayKey, recipientStatsKey } from './keys.ts';

/**
 * Upper bounds (ms) of the buckets of the publication → SYNCHRONISED histogram: 1, 5, 15, 30 minutes;
 * 1, 2, 4, 8, 12 hours; 1, 2, 3, 5, 7, 14 days. A last bucket holds what took longer. Fixed, so any
 * two histograms add bucket by bucket.
 */
export const LATENCY_BUCKETS_MS: readonly number[] = Object.freeze(
  [1, 5, 15, 30, 60, 120, 240, 480, 720, 1440, 2880, 4320, 7200, 10080, 20160].map((m) => m * 60_000),
);

/** States an entry waits for an answer in: a confirmation out of one of them answers a publication. */
const WAITING_STATES: readonly string[] = ['AWAITING', 'OVERDUE'];

/** Publication → SYNCHRONISED times: a count per bucket of {@link LATENCY_BUCKETS_MS} (and one beyond), the longest. */
export interface LatencyHistogram {
  /** `LATENCY_BUCKETS_MS.length + 1` counts; the last is everything above the last bound. */
  buckets: number[];
  count: number;
  maxMs: number;
}

/** What a recipient's transitions added up to, over one day or several. */
export interface RecipientCounts {
  /** Transitions into each state. */
  transitions: Record<string, number>;
  /** Transitions caused by a publication (the entry AWAITING an answer). */
  published: number;
  /** Business confirmations (CICs) that answered an entry AWAITING or OVERDUE. */
  answered: number;
  synchronised: LatencyHistogram;
}

/** `confirmation-stats/days/<channel>/<recipient>/<day>.json`. */
export interface RecipientDay extends RecipientCounts {
  channelId: string;
  recipient: string;
  day: string;
  /** GLNs the entries counted here were named with (for `_`: who answered first; a few at most). */
  recipientGlns: string[];
  /** Short ids of the transitions counted (see the module comment). */
  counted: string[];
}

/** `confirmation-stats/recipients/<channel>/<recipient>.json`. */
export interface RecipientRecord {
  channelId: string;
  recipient: string;
  recipientGlns: string[];
  /** First and last UTC day with a transition counted. */
  firstDay: string;
  lastDay: string;
}

/** The recipient of a further entry whose confirmation named a target market but no GLN. */
export const NO_GLN = '-';

/** GLNs kept per recipient document: `_` names a handful in practice; more would only grow the document. */
const MAX_GLNS = 20;

export function emptyHistogram(): LatencyHistogram {
  return { buckets: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0), count: 0, maxMs: 0 };
}

export function emptyCounts(): RecipientCounts {
  return { transitions: {}, published: 0, answered: 0, synchronised: emptyHistogram() };
}

/** Adds `more` into `total` (days merge bucket by bucket). */
export function addCounts(total: RecipientCounts, more: RecipientCounts): RecipientCounts {
  for (const [state, count] of Object.entries(more.transitions)) {
    total.transitions[state] = (total.transitions[state] ?? 0) + count;
  }
  total.published += more.published;
  total.answered += more.answered;
  more.synchronised.buckets.forEach((count, at) => {
    total.synchronised.buckets[at] = (total.synchronised.buckets[at] ?? 0) + count;
  });
  total.synchronised.count += more.synchronised.count;
  total.synchronised.maxMs = Math.max(total.synchronised.maxMs, more.synchronised.maxMs);
  return total;
}

/**
 * The time below which `quantile` of the histogram's values fall, as the upper bound of the bucket
 * that reaches it (the longest time seen, for the last bucket); `undefined` when it is empty.
 *
 * @example
 * ```ts
 * latencyQuantile(day.synchronised, 0.95); // e.g. 14_400_000: 95 % within 4 hours
 * ```
 */
export function latencyQuantile(histogram: LatencyHistogram, quantile: number): number | undefined {
  if (histogram.count === 0) return undefined;
  const rank = Math.max(1, Math.ceil(quantile * histogram.count));
  let seen = 0;
  for (const [at, count] of histogram.buckets.entries()) {
    seen += count;
    if (seen >= rank) return Math.min(LATENCY_BUCKETS_MS[at] ?? histogram.maxMs, histogram.maxMs);
  }
  return histogram.maxMs;
}

/** The recipient an entry's transitions count under: `_` for the channel's first entry, else its GLN. */
export function recipientOfEntry(stateKey: string, entry: Pick<ConfirmationEntry, 'key'>): string {
  if (stateKey.endsWith(`/${FIRST_RECIPIENT}.json`)) return FIRST_RECIPIENT;
  return entry.key.recipientGln ?? NO_GLN;
}

/** A short, stable id of one transition (72 bits of the hash of its event id). */
function countedId(stateKey: string, change: PendingChange): string {
  const eventId = confirmationEventId(stateKey, change.factId, change.data);
  return createHash('sha256').update(eventId).digest().subarray(0, 9).toString('base64url');
}

/** The UTC day the ledger recorded a transition (its history), else the day of its fact. */
function dayOf(entry: ConfirmationEntry, stateKey: string, change: PendingChange): string | undefined {
  const eventId = confirmationEventId(stateKey, change.factId, change.data);
  const recorded = entry.history.findLast((transition) => transition.eventId === eventId)?.recordedAt;
  for (const at of [recorded, change.data.since]) {
    const time = at === undefined ? Number.NaN : Date.parse(at);
    if (!Number.isNaN(time)) return new Date(time).toISOString().slice(0, 10);
  }
  return undefined;
}

/** Publication → SYNCHRONISED of a transition: from the latest publication at or before the answer. */
function synchronisedAfterMs(change: PendingChange): number | undefined {
  if (change.data.state !== 'SYNCHRONISED') return undefined;
  const answeredAt = Date.parse(change.data.since);
  const published = change.data.publications
    .map((publication) => Date.parse(publication.publishedAt))
    .filter((at) => !Number.isNaN(at) && at <= answeredAt);
  if (Number.isNaN(answeredAt) || published.length === 0) return undefined;
  return answeredAt - Math.max(...published);
}

/** Counts one transition into `counts`. */
function countTransition(counts: RecipientCounts, change: PendingChange): void {
  const { state, cause, previousState } = change.data;
  counts.transitions[state] = (counts.transitions[state] ?? 0) + 1;
  if (cause === 'publication') counts.published += 1;
  if (cause === 'confirmation' && previousState !== undefined && WAITING_STATES.includes(previousState)) {
    counts.answered += 1;
  }
  const latency = synchronisedAfterMs(change);
  if (latency !== undefined) {
    const bucket = LATENCY_BUCKETS_MS.findIndex((bound) => latency <= bound);
    const at = bucket === -1 ? LATENCY_BUCKETS_MS.length : bucket;
    counts.synchronised.buckets[at] = (counts.synchronised.buckets[at] ?? 0) + 1;
    counts.synchronised.count += 1;
    counts.synchronised.maxMs = Math.max(counts.synchronised.maxMs, latency);
  }
}

/** The day's document with the changes it has not counted yet; `undefined` when it counted them all. */
function withChanges(
  current: RecipientDay | undefined,
  base: Pick<RecipientDay, 'channelId' | 'recipient' | 'day'>,
  changes: ReadonlyArray<{ id: string; change: PendingChange; gln?: string | undefined }>,
): RecipientDay | undefined {
  const counted = new Set(current?.counted ?? []);
  const fresh = changes.filter(({ id }) => !counted.has(id));
  if (fresh.length === 0) return undefined;
  const next: RecipientDay = current
    ? structuredClone(current)
    : { ...base, ...emptyCounts(), recipientGlns: [], counted: [] };
  for (const { id, change, gln } of fresh) {
    countTransition(next, change);
    next.counted.push(id);
    if (gln && !next.recipientGlns.includes(gln) && next.recipientGlns.length < MAX_GLNS) {
      next.recipientGlns.push(gln);
    }
  }
  return next;
}

/**
 * Counts the entry's outbox into its recipient's day documents, each transition once however often it
 * is offered, and keeps the recipient's record (first and last day, GLNs) up to date. Call it before
 * the outbox is cleared; a failure leaves the outbox in place, so the next offer counts what is missing.
 *
 * @example
 * ```ts
 * await recordRecipientStats(store, 'confirmations/K/gdsn-de/_.json', entry);
 * ```
 */
export async function recordRecipientStats(
  store: StateStore,
  stateKey: string,
  entry: ConfirmationEntry,
): Promise<void> {
  const recipient = recipientOfEntry(stateKey, entry);
  const byDay = new Map<string, Array<{ id: string; change: PendingChange; gln?: string | undefined }>>();
  for (const change of entry.pending) {
    const day = dayOf(entry, stateKey, change);
    if (day === undefined) continue;
    const changes = byDay.get(day) ?? [];
    changes.push({ id: countedId(stateKey, change), change, gln: change.data.entry.recipientGln });
    byDay.set(day, changes);
  }
  const { channelId } = entry.key;
  await mapAll([...byDay], 4, async ([day, changes]) => {
    // The recipient's record changes only with a new day or a new GLN: read it only then.
    let widens = false;
    const result = await store.mutate<RecipientDay>(
      recipientDayKey(channelId, recipient, day),
      (current) => {
        const next = withChanges(current, { channelId, recipient, day }, changes);
        widens = next !== undefined && next.recipientGlns.length !== (current?.recipientGlns.length ?? -1);
        return next;
      },
      { maxAttempts: 30 },
    );
    if (result.written && result.value && widens) await recordRecipient(store, result.value);
  });
}

/** Widens the recipient's record to the day's (written only when something is new). */
async function recordRecipient(store: StateStore, day: RecipientDay): Promise<void> {
  await store.mutate<RecipientRecord>(
    recipientStatsKey(day.channelId, day.recipient),
    (current) => {
      const glns = [...(current?.recipientGlns ?? [])];
      for (const gln of day.recipientGlns) if (!glns.includes(gln) && glns.length < MAX_GLNS) glns.push(gln);
      const next: RecipientRecord = {
        channelId: day.channelId,
        recipient: day.recipient,
        recipientGlns: glns,
        firstDay: current && current.firstDay < day.day ? current.firstDay : day.day,
        lastDay: current && current.lastDay > day.day ? current.lastDay : day.day,
      };
      return next;
    },
    { maxAttempts: 30 },
  );
}

/** The UTC days (YYYY-MM-DD) of the `days` days that end with `now`'s, oldest first. */
export function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, at) =>
    new Date(today - (days - 1 - at) * 86_400_000).toISOString().slice(0, 10),
  );
}

/** One recipient's days (those with nothing counted are empty), oldest first: one read per day. */
export async function readRecipientDays(
  store: StateStore,
  channelId: string,
  recipient: string,
  days: readonly string[],
): Promise<Array<{ day: string; counts: RecipientCounts }>> {
  return mapAll(days, 8, async (day) => {
    const stored = (await store.get<RecipientDay>(recipientDayKey(channelId, recipient, day)))?.value;
    return { day, counts: stored ? countsOf(stored) : emptyCounts() };
  });
}

/** The counts of a stored day (the ids and names left out). */
function countsOf(day: RecipientDay): RecipientCounts {
  return {
    transitions: { ...day.transitions },
    published: day.published,
    answered: day.answered,
    synchronised: {
      buckets: [...day.synchronised.buckets],
      count: day.synchronised.count,
      maxMs: day.synchronised.maxMs,
    },
  };
}

/** One recipient's record, or `undefined` when the stats never counted a transition of it. */
export async function readRecipient(
  store: StateStore,
  channelId: string,
  recipient: string,
): Promise<RecipientRecord | undefined> {
  return (await store.get<RecipientRecord>(recipientStatsKey(channelId, recipient)))?.value;
}

/**
 * A page of recipients in key order (channel, then recipient), from after `after` (a key of the
 * previous page), and the position of the next page. One listing request per page, plus one read
 * per recipient on it.
 */
export async function listRecipients(
  store: StateStore,
  options: { limit: number; after?: string | undefined },
): Promise<{ recipients: RecipientRecord[]; next?: string }> {
  const keys: string[] = [];
  let more = false;
  for await (const key of store.list(
    RECIPIENT_STATS_PREFIX,
    options.after === undefined ? {} : { startAfter: options.after },
  )) {
    if (keys.length === options.limit) {
      more = true;
      break;
    }
    keys.push(key);
  }
  const records = await mapAll(keys, 8, async (key) => (await store.get<RecipientRecord>(key))?.value);
  const recipients = records.filter((record): record is RecipientRecord => record !== undefined);
  return more ? { recipients, next: keys.at(-1) as string } : { recipients };
}

/**
 * The figures of counts as the API and `pds bridge recipients` show them: p50/p95 from the histogram, the share of publications
 * no business confirmation answered.
 *
 * @example
 * ```ts
 * recipientFigures(emptyCounts()).unansweredShare; // null: nothing was published
 * ```
 */
export function recipientFigures(counts: RecipientCounts) {
  const { synchronised } = counts;
  return {
    transitions: counts.transitions,
    published: counts.published,
    answered: counts.answered,
    unansweredShare:
      counts.published === 0 ? null : Math.max(0, counts.published - counts.answered) / counts.published,
    synchronised: {
      count: synchronised.count,
      p50Ms: latencyQuantile(synchronised, 0.5) ?? null,
      p95Ms: latencyQuantile(synchronised, 0.95) ?? null,
      maxMs: synchronised.count === 0 ? null : synchronised.maxMs,
      bucketBoundsMs: [...LATENCY_BUCKETS_MS],
      buckets: synchronised.buckets,
    },
  };
}

/** A recipient's record, its counts per day of `days` and over all of them: one read per day. */
export async function recipientOver(store: StateStore, record: RecipientRecord, days: readonly string[]) {
  const series = await readRecipientDays(store, record.channelId, record.recipient, days);
  return {
    record,
    series,
    totals: series.reduce((total, day) => addCounts(total, day.counts), emptyCounts()),
  };
}
