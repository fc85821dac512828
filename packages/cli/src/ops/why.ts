/**
 * `why`: everything the bridge recorded about one thing an operator asks about, and what to do next.
 *
 * - an S3 object (`s3://bucket/key`): every write of that key the ingest saw (its progress records,
 *   packages/bridge/src/ingest/progress.ts), each with attempts, owner, outcome, failure code and reason, gathering key
 *   and the entries whose import the PDS accepted, and the ids of the events it emitted (ids are deterministic, packages/bridge/src/events);
 * - a publication id: its record (packages/bridge/src/publications/records.ts), its event and its confirmations;
 * - a messaging-asset id: where it stands in the poller's checkpoint (packages/bridge/src/polling/checkpoint.ts).
 *
 * Reads the state store only.
 */

import { eventId } from '@pds-bridge/bridge/events';
import type { IngestFailureCode, PublicationFailureCode } from '@pds-bridge/bridge/events/data';
import { writeIdParts } from '@pds-bridge/bridge/ingest/events.ts';
import { createIngestFilter, type IngestFilterOptions } from '@pds-bridge/bridge/ingest/filters.ts';
import { ingestObjectPrefix, isIngestProgressKey } from '@pds-bridge/bridge/ingest/keys.ts';
import { type IngestProgressRecord, objectWriteOf } from '@pds-bridge/bridge/ingest/progress.ts';
import { entriesWithFlags, readGatheringProgress } from '@pds-bridge/bridge/ingest/progress-entries.ts';
import { decodeS3Key } from '@pds-bridge/bridge/ingest/s3-event.ts';
import { isDone, parseCheckpoint } from '@pds-bridge/bridge/polling/checkpoint.ts';
import { MESSAGING_ASSETS_CHECKPOINT } from '@pds-bridge/bridge/polling/messaging-assets';
import { type PublicationRecord, readPublication } from '@pds-bridge/bridge/publications/records.ts';
import { decodeKeySegment, leaseKey, type StateStore } from '@pds-bridge/bridge/state';
import type { LeaseRecord } from '@pds-bridge/bridge/state/lease.ts';
import { ENDPOINTS_PREFIX, getDelivery } from '@pds-bridge/bridge/webhooks';
import { type ConfirmationsAnswer, confirmationsOfPublication } from './confirmations.ts';
import { WhySubjectError } from './errors.ts';

/** What `why` was asked about, read from its argument. */
export type WhySubject =
  | { kind: 'object'; bucket: string; key: string; versionId?: string }
  | { kind: 'publication'; publicationId: string }
  | { kind: 'messaging-asset'; messagingAssetId: number };

/**
 * Reads `why`'s argument: `s3://bucket/key`, `publication/<id>` or `messaging-asset/<id>` (the
 * `subject` of the events), a number (a messaging asset) or any other id (a publication).
 *
 * @example
 * ```ts
 * parseWhySubject('s3://drops/in/items.csv'); // { kind: 'object', bucket: 'drops', key: 'in/items.csv' }
 * parseWhySubject('42'); // { kind: 'messaging-asset', messagingAssetId: 42 }
 * ```
 */
export function parseWhySubject(text: string, versionId?: string): WhySubject {
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(text);
  if (s3) {
    return {
      kind: 'object',
      bucket: s3[1] as string,
      key: s3[2] as string,
      ...(versionId ? { versionId } : {}),
    };
  }
  const asset = /^(?:messaging-asset\/)?(\d{1,15})$/.exec(text);
  if (asset) return { kind: 'messaging-asset', messagingAssetId: Number(asset[1]) };
  const publication = /^(?:publication\/)?([A-Za-z0-9][A-Za-z0-9._:-]{0,199})$/.exec(text);
  if (publication) return { kind: 'publication', publicationId: publication[1] as string };
  throw new WhySubjectError(text);
}

/** An event the bridge emitted (or will emit) for the subject. */
export interface EmittedEvent {
  type: string;
  id: string;
  /** Its webhook deliveries, one per endpoint that has a record of it (docs/webhooks.md). */
  deliveries?: WebhookDeliverySummary[];
}

/** One endpoint's delivery of an event: its status, attempts and the last answer. */
export interface WebhookDeliverySummary {
  endpointId: string;
  status: string;
  attempts: number;
  lastStatus?: number;
  nextAttemptAt?: string;
}

/** One write of a dropped object, as its progress record tells it. */
export interface WriteExplanation {
  versionId?: string;
  etag?: string;
  sequencer?: string;
  /**
   * `import-accepted`: the PDS accepted the import of every entry (it answers an import without a
   * body, so whether items were created is not known); `in-progress` while a delivery holds the
   * claim, `stalled` when the last one gave it back.
   */
  state: 'import-accepted' | 'failed' | 'superseded' | 'in-progress' | 'stalled';
  status: IngestProgressRecord['status'];
  attempts: number;
  owner: string;
  claimedAt: string;
  updatedAt: string;
  leaseUntil?: string;
  size?: number;
  gatheringKey?: string;
  /** `importAccepted`: the PDS accepted this entry's import request. */
  entries: Array<{ path: string; assetKey: string; importAccepted: boolean }>;
  code?: IngestFailureCode;
  reason?: string;
  pdsStatus?: number;
  lastError?: string;
  events: EmittedEvent[];
  next: string;
  /** The state-store key of the record. */
  record: string;
}

export interface ObjectExplanation {
  kind: 'object';
  bucket: string;
  /** The key the records are about: the one given, or its URL-decoded form when only that matched. */
  key: string;
  /**
   * `as-given`, or `url-decoded` when the key was given in the URL-encoded form S3 notifications and
   * consoles show (`my+items+%2Bplus.csv`) and the decoded key (`my items +plus.csv`) matched.
   */
  keyMatched: 'as-given' | 'url-decoded';
  /** What was asked, when it differs from `key`. */
  keyGiven?: string;
  versionId?: string;
  /** Oldest first. */
  writes: WriteExplanation[];
  next: string;
}

export interface PublicationExplanation {
  kind: 'publication';
  publicationId: string;
  found: boolean;
  status?: PublicationRecord['status'];
  attempts?: number;
  requestedBy?: string;
  createdAt?: string;
  updatedAt?: string;
  selectionId?: string;
  numberOfItems?: number;
  primaryKeys?: number;
  code?: PublicationFailureCode;
  reason?: string;
  pdsStatus?: number;
  lastError?: string;
  notifiedAt?: string;
  events: EmittedEvent[];
  /** Did each recipient synchronise it: the confirmation ledger's entries (./confirmations.ts). */
  confirmations?: Pick<ConfirmationsAnswer, 'summary' | 'rows'>;
  next: string;
}

export interface MessagingAssetExplanation {
  kind: 'messaging-asset';
  messagingAssetId: number;
  /** Where the id stands in the checkpoint. */
  state: 'emitted' | 'failing' | 'not-seen-yet' | 'no-checkpoint';
  attempts?: number;
  firstFailedAt?: string;
  lastError?: string;
  checkpoint?: { emitted: number; highestId: number | null; updatedAt: string };
  lastSuccessfulRun?: string;
  events: EmittedEvent[];
  next: string;
}

export type Explanation = ObjectExplanation | PublicationExplanation | MessagingAssetExplanation;

export interface WhyOptions {
  /** Epoch ms; default Date.now. */
  now?: number;
  /**
   * The ingest's INGEST_PREFIX / INGEST_SUFFIXES, when known: a key the bridge saw no write of is
   * then checked against them, and the answer names the rule that skipped it.
   */
  filters?: IngestFilterOptions;
}

/**
 * Explains one subject from the state store.
 *
 * @example
 * ```ts
 * const answer = await explain(store, parseWhySubject('s3://drops/in/items.csv'));
 * if (answer.kind === 'object') answer.writes.map((w) => w.state);
 * ```
 */
export async function explain(
  store: StateStore,
  subject: WhySubject,
  options: WhyOptions = {},
): Promise<Explanation> {
  const now = options.now ?? Date.now();
  const explanation = await (() => {
    switch (subject.kind) {
      case 'object':
        return explainObject(store, subject, now, options.filters);
      case 'publication':
        return explainPublication(store, subject.publicationId);
      case 'messaging-asset':
        return explainMessagingAsset(store, subject.messagingAssetId);
    }
  })();
  await addWebhookDeliveries(store, explanation);
  return explanation;
}

/** Every `events` list of an explanation, wherever it sits. */
function emittedEventsOf(value: unknown, found: EmittedEvent[] = []): EmittedEvent[] {
  if (Array.isArray(value)) for (const each of value) emittedEventsOf(each, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'events' && Array.isArray(inner)) found.push(...(inner as EmittedEvent[]));
      else emittedEventsOf(inner, found);
    }
  }
  return found;
}

/** Adds each event's webhook deliveries (one read per endpoint and event; none without endpoints). */
async function addWebhookDeliveries(store: StateStore, explanation: Explanation): Promise<void> {
  const events = emittedEventsOf(explanation);
  if (events.length === 0) return;
  const endpointIds: string[] = [];
  for await (const key of store.list(ENDPOINTS_PREFIX)) {
    const id = decodeKeySegment(key.slice(ENDPOINTS_PREFIX.length).replace(/\.json$/, ''));
    if (id) endpointIds.push(id);
  }
  if (endpointIds.length === 0) return;
  for (const event of events) {
    const deliveries: WebhookDeliverySummary[] = [];
    for (const endpointId of endpointIds) {
      const record = await getDelivery(store, endpointId, event.id);
      if (!record) continue;
      const last = record.attempts.at(-1);
      deliveries.push({
        endpointId,
        status: record.status,
        attempts: record.attempts.length,
        ...(last?.status !== undefined ? { lastStatus: last.status } : {}),
        ...(record.nextAttemptAt ? { nextAttemptAt: record.nextAttemptAt } : {}),
      });
    }
    if (deliveries.length > 0) event.deliveries = deliveries;
  }
}

async function explainObject(
  store: StateStore,
  subject: Extract<WhySubject, { kind: 'object' }>,
  now: number,
  filters: IngestFilterOptions | undefined,
): Promise<ObjectExplanation> {
  let key = subject.key;
  let writes = await writesOf(store, subject, key, now);
  const decoded = urlDecoded(subject.key);
  if (writes.length === 0 && decoded !== undefined) {
    const decodedWrites = await writesOf(store, subject, decoded, now);
    if (decodedWrites.length > 0) {
      key = decoded;
      writes = decodedWrites;
    }
  }
  const matched = { ...subject, key };
  return {
    kind: 'object',
    bucket: subject.bucket,
    key,
    keyMatched: key === subject.key ? 'as-given' : 'url-decoded',
    ...(key === subject.key ? {} : { keyGiven: subject.key }),
    ...(subject.versionId ? { versionId: subject.versionId } : {}),
    writes,
    next: writes.length === 0 ? noWriteSeen(matched, filters) : (writes.at(-1) as WriteExplanation).next,
  };
}

/** The writes of `key` the ingest recorded, oldest first. */
async function writesOf(
  store: StateStore,
  subject: Extract<WhySubject, { kind: 'object' }>,
  objectKey: string,
  now: number,
): Promise<WriteExplanation[]> {
  const records: Array<{ key: string; record: IngestProgressRecord }> = [];
  for await (const key of store.list(ingestObjectPrefix(subject.bucket, objectKey))) {
    // The entries stored beside each record are read with it, below.
    if (!isIngestProgressKey(key)) continue;
    const entry = await store.get<IngestProgressRecord>(key);
    // Hashed keys of two object keys never share a prefix, but check: the record names its key.
    if (entry && entry.value.key === objectKey) records.push({ key, record: entry.value });
  }
  const chosen = records
    .filter(({ record }) => subject.versionId === undefined || record.versionId === subject.versionId)
    .sort((a, b) => a.record.claimedAt - b.record.claimedAt || a.key.localeCompare(b.key));
  const writes: WriteExplanation[] = [];
  for (const { key, record } of chosen) {
    const entries = entriesWithFlags(await readGatheringProgress(store, key, record));
    writes.push(explainWrite(key, record, entries, now));
  }
  return writes;
}

/** The key decoded as S3 notifications encode it (`+` a space, `%XX` UTF-8), when that differs. */
function urlDecoded(key: string): string | undefined {
  if (!/[+%]/.test(key)) return undefined;
  try {
    const decoded = decodeS3Key(key);
    return decoded === key ? undefined : decoded;
  } catch {
    return undefined;
  }
}

function noWriteSeen(
  subject: { bucket: string; key: string; versionId?: string },
  filters: IngestFilterOptions | undefined,
): string {
  const decision = filters ? createIngestFilter(filters)(subject.key) : undefined;
  if (decision && !decision.accept) {
    return `s3://${subject.bucket}/${subject.key} is ${decision.reason}: the ingest skips such keys and records nothing of them. To ingest it, upload it again under a key the filters accept, or change INGEST_PREFIX / INGEST_SUFFIXES.`;
  }
  return `The bridge saw no write of s3://${subject.bucket}/${subject.key}${subject.versionId ? ` version ${subject.versionId}` : ''}. Check that the object is in the drop bucket and matches INGEST_PREFIX / INGEST_SUFFIXES (other keys are skipped), that its notification is not waiting in the ingest DLQ (pds bridge redrive ingest), and that the bucket's notification reaches the ingest queue (pds bridge status shows its depth).`;
}

function explainWrite(
  key: string,
  record: IngestProgressRecord,
  entries: ReturnType<typeof entriesWithFlags>,
  now: number,
): WriteExplanation {
  const write = objectWriteOf(record);
  const state: WriteExplanation['state'] =
    record.status === 'done'
      ? 'import-accepted'
      : record.status === 'failed'
        ? record.outcome === 'superseded'
          ? 'superseded'
          : 'failed'
        : record.leaseUntil > now
          ? 'in-progress'
          : 'stalled';
  const code = record.code ?? (record.outcome === 'superseded' ? 'superseded' : undefined);
  const events: EmittedEvent[] = [];
  if (state === 'import-accepted') {
    events.push({
      type: 'pds.ingest.completed',
      id: eventId('pds.ingest.completed', [...writeIdParts(write), record.gatheringKey ?? '']),
    });
  } else if (state === 'failed' || state === 'superseded') {
    events.push({ type: 'pds.ingest.failed', id: eventId('pds.ingest.failed', writeIdParts(write)) });
  }
  return {
    ...(record.versionId ? { versionId: record.versionId } : {}),
    ...(record.etag ? { etag: record.etag } : {}),
    ...(record.sequencer ? { sequencer: record.sequencer } : {}),
    state,
    status: record.status,
    attempts: record.attempts,
    owner: record.owner,
    claimedAt: iso(record.claimedAt),
    updatedAt: iso(record.updatedAt),
    ...(state === 'in-progress' ? { leaseUntil: iso(record.leaseUntil) } : {}),
    ...(record.size !== undefined ? { size: record.size } : {}),
    ...(record.gatheringKey ? { gatheringKey: record.gatheringKey } : {}),
    entries: entries.map(({ path, assetKey, imported }) => ({ path, assetKey, importAccepted: imported })),
    ...(code ? { code } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
    ...(record.pdsStatus !== undefined ? { pdsStatus: record.pdsStatus } : {}),
    ...(record.lastError && state !== 'import-accepted' ? { lastError: record.lastError } : {}),
    events,
    next: nextForWrite(state, code, record),
    record: key,
  };
}

/** What an operator does about a write in this state; see docs/operations.md. */
function nextForWrite(
  state: WriteExplanation['state'],
  code: IngestFailureCode | undefined,
  record: IngestProgressRecord,
): string {
  switch (state) {
    case 'import-accepted':
      return 'Nothing to redo: the PDS accepted the import of every entry and pds.ingest.completed was sent. Whether items were created is not reported (the PDS answers an import without a body): to know, look an item of the file up in the PDS (pds reviews PRIMARY_KEY answers not found for an item that does not exist). A consumer that lost the event gets it again with pds bridge replay (same id).';
    case 'in-progress':
      return `Wait: ${record.owner} is working on it until ${iso(record.leaseUntil)} (status ${record.status}).`;
    case 'stalled':
      return `A delivery stopped before the end${record.lastError ? ` (${record.lastError})` : ''}; SQS delivers the notification again and the next delivery resumes from status ${record.status}. If it is in the ingest DLQ instead, fix the cause and run pds bridge redrive ingest --apply.`;
    case 'superseded':
      return 'Nothing: the object was replaced by a newer upload before this one was read; the newer write is ingested through its own notification (listed after this one).';
    case 'failed':
      return nextForCode(code, record);
  }
}

function nextForCode(code: IngestFailureCode | undefined, record: IngestProgressRecord): string {
  switch (code) {
    case 'gone':
      return 'The object was deleted before it was read: upload it again to ingest it.';
    case 'archived':
      return 'The object is in an archive storage class: restore it, then copy it onto itself (a new write) to ingest it.';
    case 'no-entries':
      return 'The PDS found nothing to import (an empty archive?): fix the file and upload it again.';
    case 'unreadable':
      return 'The file is not what the PDS imports (the reason names the file or ZIP member, the place and the fix); nothing of it was imported. Fix it and upload it again (a new write).';
    case 'rejected':
      return `The PDS refused the file${record.pdsStatus ? ` (HTTP ${record.pdsStatus})` : ''}: fix what the reason names and upload the file again (a new write; the failed one is never retried).`;
    case 'unauthorized':
      return 'The PDS refused the bridge credentials: fix the secret (PdsCredentialsSecretArn), then upload the file again.';
    case 'invalid-answer':
      return 'The PDS answered something the bridge cannot use: report it to the PDS owner with the reason, then upload the file again.';
    case 'internal':
      return 'The bridge refused to send the request it built: report it as a bug with the reason.';
    default:
      return 'Read the reason; upload the file again once its cause is fixed.';
  }
}

async function explainPublication(store: StateStore, publicationId: string): Promise<PublicationExplanation> {
  const entry = await readPublication(store, publicationId);
  if (!entry) {
    return {
      kind: 'publication',
      publicationId,
      found: false,
      events: [],
      next: 'No such publication: check the id (POST /publications answered it) and the stage; records are kept in the state bucket under publications/.',
    };
  }
  const record = entry.value;
  const events: EmittedEvent[] = [];
  if (record.status === 'published') {
    events.push({
      type: 'pds.publication.completed',
      id: eventId('pds.publication.completed', [publicationId]),
    });
  } else if (record.status === 'failed') {
    events.push({ type: 'pds.publication.failed', id: eventId('pds.publication.failed', [publicationId]) });
  }
  const error = record.error ?? undefined;
  return {
    kind: 'publication',
    publicationId,
    found: true,
    status: record.status,
    attempts: record.attempts,
    requestedBy: record.requestedBy,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.selectionId ? { selectionId: record.selectionId } : {}),
    ...(record.numberOfItems !== undefined ? { numberOfItems: record.numberOfItems } : {}),
    primaryKeys: record.request.primaryKeys.length,
    ...(error?.code ? { code: error.code } : {}),
    ...(error ? { reason: error.reason } : {}),
    ...(error?.pdsStatus !== undefined ? { pdsStatus: error.pdsStatus } : {}),
    ...(record.lastError && record.status !== 'published' ? { lastError: record.lastError.reason } : {}),
    ...(record.notifiedAt ? { notifiedAt: record.notifiedAt } : {}),
    events,
    confirmations: await confirmationsOfPublication(store, publicationId),
    next: nextForPublication(record),
  };
}

function nextForPublication(record: PublicationRecord): string {
  const finished = record.status === 'published' || record.status === 'failed';
  if (finished && !record.notifiedAt) {
    return 'The outcome is recorded but its event was not sent yet: the worker sends it when the message is delivered again; if the message is in the publication DLQ, run pds bridge redrive publications --apply.';
  }
  switch (record.status) {
    case 'queued':
      return 'Waiting for the publish worker: check the publication queue and its DLQ (pds bridge status). A keyed request whose queueing failed (503) is queued again when the caller retries with the same Idempotency-Key.';
    case 'publishing':
      return `The worker is carrying it out${record.lastError ? `; the last attempt failed transiently (${record.lastError.reason}) and SQS delivers it again` : ''}.`;
    case 'published':
      return 'Nothing: it was published and pds.publication.completed was sent. A consumer that lost the event gets it again with pds bridge replay (same id).';
    case 'failed': {
      const code = record.error?.code;
      if (code === 'attempts-exhausted') {
        return 'The PDS stayed unavailable on every attempt: once it is back, send the request again with a new Idempotency-Key.';
      }
      if (code === 'unauthorized')
        return 'The PDS refused the bridge credentials: fix the secret, then send the request again.';
      if (code === 'rejected') {
        return 'The PDS refused it (unknown keys or destinations, named in the reason): fix the request and send it again.';
      }
      return 'Read the reason; report invalid answers to the PDS owner and internal failures as a bug.';
    }
  }
}

async function explainMessagingAsset(store: StateStore, id: number): Promise<MessagingAssetExplanation> {
  const [checkpointEntry, leaseEntry] = await Promise.all([
    store.get<unknown>(MESSAGING_ASSETS_CHECKPOINT),
    store.get<LeaseRecord>(leaseKey('poll-messaging-assets')),
  ]);
  const lastSuccess = leaseEntry?.value.lastSuccessAt;
  const base = {
    kind: 'messaging-asset' as const,
    messagingAssetId: id,
    ...(lastSuccess !== undefined ? { lastSuccessfulRun: iso(lastSuccess) } : {}),
  };
  const event = { type: 'pds.messaging-asset.received', id: eventId('pds.messaging-asset.received', [id]) };
  if (!checkpointEntry) {
    return {
      ...base,
      state: 'no-checkpoint',
      events: [],
      next: 'The messaging-asset poller has not finished a run yet (no checkpoint): check pds bridge status and the function poll-messaging-assets.',
    };
  }
  const checkpoint = parseCheckpoint(checkpointEntry.value, MESSAGING_ASSETS_CHECKPOINT);
  const summary = {
    emitted: checkpoint.emitted.size,
    highestId: checkpoint.highestId,
    updatedAt: checkpoint.updatedAt,
  };
  const retry = checkpoint.retry.find((entry) => entry.id === id);
  if (retry) {
    return {
      ...base,
      state: 'failing',
      attempts: retry.attempts,
      firstFailedAt: retry.firstFailedAt,
      lastError: retry.lastError,
      checkpoint: summary,
      events: [],
      next: `Its fetch (or its event) failed on ${retry.attempts} consecutive runs; it is tried again on every run and emitted with messageError after POLL_FAILURE_LIMIT runs. If the error stays, ask the PDS owner about asset ${id}.`,
    };
  }
  if (isDone(checkpoint, id)) {
    return {
      ...base,
      state: 'emitted',
      checkpoint: summary,
      events: [event],
      next: "Nothing: its event was accepted by SQS (or it was passed as done by the first run). A consumer that lost it: remove the id from the checkpoint's record and run pds bridge audit --apply; it is sent again with the same event id.",
    };
  }
  return {
    ...base,
    state: 'not-seen-yet',
    checkpoint: summary,
    events: [],
    next: 'The poller has not listed it yet: check that the last successful run is recent (pds bridge status) and that the PDS lists the asset (pds messages list).',
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
