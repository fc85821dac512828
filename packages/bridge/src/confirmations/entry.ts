/**
 * One entry of the confirmation ledger and the rule that gives its state, without any I/O.
 *
 * An entry is one published item at one recipient: (primary key, communication channel), and once a
 * confirmation names them, the recipient's GLN and the target market. It keeps the *facts* heard
 * about it (each publication, each CatalogueItemConfirmation, each supplier review without a readable
 * confirmation), each under an id that is the same however often the fact is read. The state is a
 * function of those facts and the clock alone ({@link stateOf}):
 *
 * - the fact with the latest own time wins: a message's creation time, a publication's time, never
 *   the time the bridge read it, so an older CIC read after a newer one changes nothing;
 * - an answer counts for a publication when it was created after the bridge accepted the request
 *   (`requestedAt`) less {@link ANSWER_CLOCK_SKEW_MS}: the answer's time is the recipient's clock,
 *   the publication's the bridge's, and neither may make the other's answer look older than it is;
 * - a publication is AWAITING; once its deadline passes with no answer created after it, OVERDUE;
 * - on equal times an answer wins over a publication (it cannot be older than what it answers).
 *
 * So duplicates and replays change nothing (the fact is there already), arrival order does not
 * matter, and every writer that applies the same facts computes the same state. A change of state is
 * appended to `history` and queued in `pending` (the outbox of `pds.confirmation.changed`) in the
 * same conditional write; ./ledger.ts publishes and clears it.
 */
import type {
  ConfirmationChangedData,
  ConfirmationCorrectiveAction,
  ConfirmationEntryKey,
  ConfirmationReason,
} from '../events/data/index.ts';

export const AWAITING = 'AWAITING';
export const OVERDUE = 'OVERDUE';
/** The data pool or the Global Registry refused the publication before it reached the recipient. */
export const REFUSED_BY_DATA_POOL = 'REFUSED_BY_DATA_POOL';
/**
 * A CIC in state REVIEW whose every corrective action is WARNING (GS1's warning pattern, status
 * CIC999): the recipient notes something but will synchronise, so it is not listed with the REVIEWs
 * that block (docs/confirmations.md, "States").
 */
export const REVIEW_WARNING = 'REVIEW_WARNING';

/**
 * How far the clocks behind an answer and a publication may disagree: an answer created up to this
 * long before the bridge accepted the publication request still counts for that publication
 * (docs/confirmations.md, "Order"). Five minutes covers a PDS or recipient clock minutes behind;
 * an answer to the earlier publication written in the same five minutes is taken for the new one.
 */
export const ANSWER_CLOCK_SKEW_MS = 5 * 60_000;

/** Facts kept per entry; older ones are dropped (their ids stay in `seen` a while longer). */
export const MAX_FACTS = 100;
/** Fact ids remembered against replays. */
export const MAX_SEEN = 500;
/** Transitions kept in `history`. */
export const MAX_HISTORY = 100;
/** Publications kept per entry (and carried by each event), the latest. */
export const MAX_PUBLICATIONS = 50;

export type FactKind = 'publication' | 'confirmation' | 'review' | 'refusal';

/** Something heard about the entry. */
export interface Fact {
  /**
   * Stable: `publication:<id>`, `asset:<messagingAssetId>:<gtin>:<gln>:<tm>`, `review:<id>`,
   * `refusal:<messagingAssetId>`.
   */
  id: string;
  kind: FactKind;
  /** AWAITING for a publication; REFUSED_BY_DATA_POOL for a refusal; the CIC state or the review status otherwise. */
  state: string;
  /** The fact's own time (ISO): message creation, publication. Orders the facts. */
  at: string;
  publicationId?: string;
  /**
   * A publication's: when the bridge accepted the request (before it was sent to the PDS), on the
   * bridge's clock; answers created from this time (less the skew) count for it. Absent: `at`.
   */
  requestedAt?: string;
  messagingAssetId?: number;
  reviewId?: string;
  /** The CIC's statuses as corrective actions (empty when it gave none). */
  correctiveActions?: ConfirmationCorrectiveAction[];
  gtin?: string;
  recipientGln?: string;
  targetMarket?: string;
  /** Why: a refusal's error, a confirmation's long description. */
  reason?: ConfirmationReason;
}

/** One resend request an entry heard, and the republication it triggered (REPUBLISH_ON_RESEND_REQUEST, ./resend.ts). */
export interface ResendRequestLink {
  /** The messaging asset that carried the request. */
  messagingAssetId: number;
  /** The GLN of the recipient who asked, when the request names it. */
  recipientGln?: string;
  /** The request's own creation time, when it gives one. */
  requestedAt?: string;
  /** The publication submitted for it. */
  publicationId: string;
  /** When the bridge recorded the link. */
  recordedAt: string;
}

export interface Transition {
  /** When the bridge recorded it. */
  recordedAt: string;
  previousState?: string;
  state: string;
  /** The fact's own time, or the deadline for OVERDUE. */
  since: string;
  cause: ConfirmationChangedData['cause'];
  factId: string;
  messagingAssetId?: number;
  reviewId?: string;
  /** The `pds.confirmation.changed` event id of this transition. */
  eventId?: string;
}

/** What is stored per entry (`confirmations/<primaryKey>/<channelId>/<recipient>.json`). */
export interface ConfirmationEntry {
  key: ConfirmationEntryKey;
  state: string;
  /** The time of the fact behind the state (or the deadline, for OVERDUE). */
  since: string;
  /** AWAITING turns OVERDUE at this time (the latest publication plus CONFIRMATION_DEADLINE_HOURS). */
  deadline: string;
  publications: Array<{ publicationId: string; publishedAt: string }>;
  correctiveActions: ConfirmationCorrectiveAction[];
  /** Why the entry is in its state, when the answer behind it said (absent in entries written before). */
  reason?: ConfirmationReason;
  facts: Fact[];
  /** Ids of facts already applied, newest last, so a replay of a dropped fact stays a no-op. */
  seen: string[];
  history: Transition[];
  /** Transitions whose event is not yet known to be published (the outbox). */
  pending: PendingChange[];
  /**
   * The recipient's resend requests about this entry, each with the republication it triggered
   * (REPUBLISH_ON_RESEND_REQUEST; ./resend.ts). Absent until the first one.
   */
  resendRequests?: ResendRequestLink[];
  createdAt: string;
  updatedAt: string;
}

/** A transition waiting in the outbox: its event's data and the fact that caused it (part of its id). */
export interface PendingChange {
  factId: string;
  data: ConfirmationChangedData;
}

const RANK: Record<FactKind, number> = { publication: 0, review: 1, refusal: 2, confirmation: 3 };

/**
 * The time a fact is ordered by: its own, but a publication's is when its request was accepted less
 * the skew, so an answer from a clock behind the bridge's, or one written while the PDS was still
 * answering the publish call, is not older than the publication it answers.
 */
function orderTime(fact: Fact): number {
  if (fact.kind !== 'publication') return Date.parse(fact.at);
  return Date.parse(fact.requestedAt ?? fact.at) - ANSWER_CLOCK_SKEW_MS;
}

function compareFacts(a: Fact, b: Fact): number {
  const byTime = orderTime(a) - orderTime(b);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
  return RANK[a.kind] - RANK[b.kind] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The state the facts give at `now`, with the fact behind it (absent for OVERDUE). */
export function stateOf(
  facts: readonly Fact[],
  deadlineMs: number,
  now: Date,
): { state: string; since: string; fact: Fact; cause: ConfirmationChangedData['cause'] } | undefined {
  const latest = [...facts].sort(compareFacts).at(-1);
  if (latest === undefined) return undefined;
  if (latest.kind === 'publication') {
    const deadline = Date.parse(latest.at) + deadlineMs;
    if (now.getTime() >= deadline) {
      return { state: OVERDUE, since: new Date(deadline).toISOString(), fact: latest, cause: 'deadline' };
    }
    return { state: AWAITING, since: latest.at, fact: latest, cause: 'publication' };
  }
  return { state: latest.state, since: latest.at, fact: latest, cause: latest.kind };
}

/** What {@link applyFacts} needs to know besides the facts. */
export interface ApplyContext {
  key: ConfirmationEntryKey;
  /** How long an entry may be AWAITING before it is OVERDUE (CONFIRMATION_DEADLINE_HOURS). */
  deadlineMs: number;
  now: Date;
  /** The event id of a transition (./events.ts), recorded in history. */
  eventIdOf: (data: ConfirmationChangedData, factId: string) => string;
}

function withKnownRecipient(key: ConfirmationEntryKey, facts: readonly Fact[]): ConfirmationEntryKey {
  const named = facts.filter((fact) => fact.kind === 'confirmation');
  const last = named.at(-1);
  const gtin = key.gtin ?? named.find((fact) => fact.gtin)?.gtin;
  return {
    ...key,
    ...(gtin ? { gtin } : {}),
    ...(key.recipientGln === undefined && last?.recipientGln ? { recipientGln: last.recipientGln } : {}),
    ...(key.targetMarket === undefined && last?.targetMarket ? { targetMarket: last.targetMarket } : {}),
  };
}

/**
 * The entry after hearing `incoming` (facts already seen are skipped), or `undefined` when nothing
 * changes. With no new fact it still re-evaluates the state at `now`: that is how AWAITING becomes
 * OVERDUE.
 */
export function applyFacts(
  current: ConfirmationEntry | undefined,
  incoming: readonly Fact[],
  context: ApplyContext,
): ConfirmationEntry | undefined {
  const { seen, fresh } = unseenFacts(current, incoming);
  if (current === undefined && fresh.length === 0) return undefined;
  const facts = withoutSupersededDetails(
    [...(current?.facts ?? []), ...fresh].sort(compareFacts).slice(-MAX_FACTS),
  );
  const publications = publicationsOf(current, facts);
  const lastPublished = publications.at(-1)?.publishedAt;
  const deadline = lastPublished
    ? new Date(Date.parse(lastPublished) + context.deadlineMs).toISOString()
    : (current?.deadline ?? context.now.toISOString());
  const evaluated = stateOf(facts, context.deadlineMs, context.now);
  if (evaluated === undefined) return undefined;
  const key = withKnownRecipient(current?.key ?? context.key, facts);
  const isAnswer = (fact: Fact) => fact.kind === 'confirmation' || fact.kind === 'refusal';
  const latestAnswer = facts.filter(isAnswer).at(-1);
  const answer = isAnswer(evaluated.fact) ? evaluated.fact : latestAnswer;
  const correctiveActions = isAnswer(evaluated.fact)
    ? (evaluated.fact.correctiveActions ?? [])
    : (latestAnswer?.correctiveActions ?? current?.correctiveActions ?? []);
  const reason = answer ? answer.reason : current?.reason;
  const at = context.now.toISOString();
  const next: ConfirmationEntry = {
    key,
    state: current?.state ?? evaluated.state,
    since: current?.since ?? evaluated.since,
    deadline,
    publications,
    correctiveActions,
    ...(reason ? { reason } : {}),
    facts,
    seen: [...seen].slice(-MAX_SEEN),
    history: current?.history ?? [],
    pending: current?.pending ?? [],
    ...(current?.resendRequests ? { resendRequests: current.resendRequests } : {}),
    createdAt: current?.createdAt ?? at,
    updatedAt: at,
  };
  if (current === undefined || evaluated.state !== current.state) {
    recordTransition(next, current, evaluated, context);
  } else if (fresh.length === 0 && current.deadline === deadline) {
    return undefined;
  }
  return next;
}

/**
 * The facts with the corrective actions and reason of every answer but the latest left out: only the
 * latest answer's are shown (an older one can never be the latest again), so an entry holds one
 * answer's texts, not {@link MAX_FACTS} of them.
 */
function withoutSupersededDetails(facts: Fact[]): Fact[] {
  let latestAnswer = -1;
  facts.forEach((fact, index) => {
    if (fact.kind === 'confirmation' || fact.kind === 'refusal') latestAnswer = index;
  });
  return facts.map((fact, index) => {
    if (index === latestAnswer || (fact.correctiveActions === undefined && fact.reason === undefined)) {
      return fact;
    }
    const { correctiveActions: _actions, reason: _reason, ...kept } = fact;
    return kept;
  });
}

/** The facts of `incoming` the entry has not seen yet, and every fact id seen with them. */
function unseenFacts(
  current: ConfirmationEntry | undefined,
  incoming: readonly Fact[],
): { seen: Set<string>; fresh: Fact[] } {
  const seen = new Set(current?.seen ?? []);
  const fresh: Fact[] = [];
  for (const fact of incoming) {
    if (!seen.has(fact.id)) {
      seen.add(fact.id);
      fresh.push(fact);
    }
  }
  return { seen, fresh };
}

/** The publications the entry keeps: older ones it no longer has the facts of, then those of `facts`. */
function publicationsOf(
  current: ConfirmationEntry | undefined,
  facts: readonly Fact[],
): ConfirmationEntry['publications'] {
  const publications = facts
    .filter((fact) => fact.kind === 'publication')
    .map((fact) => ({ publicationId: fact.publicationId ?? fact.id, publishedAt: fact.at }));
  const olderPublications = (current?.publications ?? []).filter(
    (publication) => !publications.some((kept) => kept.publicationId === publication.publicationId),
  );
  return [...olderPublications, ...publications].slice(-MAX_PUBLICATIONS);
}

/**
 * Moves `next` to the evaluated state: the transition goes into its history (with the id of the
 * event it will be sent as) and its outbox (`pending`).
 */
function recordTransition(
  next: ConfirmationEntry,
  current: ConfirmationEntry | undefined,
  evaluated: NonNullable<ReturnType<typeof stateOf>>,
  context: ApplyContext,
): void {
  const factId = evaluated.cause === 'deadline' ? `overdue:${evaluated.fact.id}` : evaluated.fact.id;
  const data: ConfirmationChangedData = {
    entry: next.key,
    ...(current === undefined ? {} : { previousState: current.state }),
    state: evaluated.state,
    since: evaluated.since,
    cause: evaluated.cause,
    publications: next.publications,
    correctiveActions: next.correctiveActions,
    ...(next.reason ? { reason: next.reason } : {}),
    ...(evaluated.fact.messagingAssetId === undefined
      ? {}
      : { messagingAssetId: evaluated.fact.messagingAssetId }),
    ...(evaluated.fact.reviewId === undefined ? {} : { reviewId: evaluated.fact.reviewId }),
  };
  next.state = evaluated.state;
  next.since = evaluated.since;
  next.history = [
    ...next.history,
    {
      recordedAt: next.updatedAt,
      ...(data.previousState === undefined ? {} : { previousState: data.previousState }),
      state: data.state,
      since: data.since,
      cause: data.cause,
      factId,
      ...(data.messagingAssetId === undefined ? {} : { messagingAssetId: data.messagingAssetId }),
      ...(data.reviewId === undefined ? {} : { reviewId: data.reviewId }),
      eventId: context.eventIdOf(data, factId),
    },
  ].slice(-MAX_HISTORY);
  next.pending = [...next.pending, { factId, data }];
}
