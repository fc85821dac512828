/**
 * The layout of the state bucket, in one place, so every module reads and writes the same keys.
 *
 * | prefix | one object per | built by |
 * |---|---|---|
 * | `ingest/<bucket>/<sha256 of key>/<write>.json` | dropped S3 object version: ingest progress | {@link ingestProgressKey} |
 * | `ingest/<bucket>/<sha256 of key>/<write>/entries/<gatheringKey>.json` | the entries of that write's gathering, written once | {@link ingestEntriesKey} |
 * | `checkpoints/<name>.json` | poller checkpoint | {@link checkpointKey} |
 * | `watch/<primaryKey>.json` | watched primary key (supplier reviews) | {@link watchKey} |
 * | `review-progress/<nn>.json` | shard of the review poller's progress, 64-shard level (see ./review-progress.ts) | `reviewProgressKey` |
 * | `review-progress/L<level>/<shard>.json` | shard of the review poller's progress once the watch list outgrew 64 shards | `reviewProgressKey` |
 * | `review-progress/layout.json` | the progress levels used so far | `readLayout`, `growLayout` |
 * | `idempotency/<sha256>.json` | Idempotency-Key of an API request, as written before the publication record carried it (nothing reads these now) | {@link idempotencyKey} |
 * | `publications/<id>.json` | publication request and outcome | {@link publicationKey} |
 * | `claim-check/<id>.json` | event body too large for SQS | {@link claimCheckKey} |
 * | `leases/<name>.json` | "a run never overlaps itself" lease | {@link leaseKey} |
 * | `confirmations/<primaryKey>/<channelId>/<recipient>.json` | confirmation ledger entry: one item at one recipient (lib/confirmations) | {@link confirmationKey} |
 * | `confirmation-deadlines/<deadline>/<sha256>.json` | a publication whose entries turn OVERDUE at `deadline` unless answered | {@link confirmationDeadlineKey} |
 *
 * Free text (primary keys, names, ids) becomes one path segment through {@link encodeKeySegment}:
 * readable where possible, always a valid S3 key segment, and never the same segment for two
 * different texts. Lifecycle rules and IAM policies can target a purpose by its prefix.
 */
import { createHash } from 'node:crypto';

export const STATE_PREFIXES = Object.freeze({
  ingest: 'ingest/',
  checkpoints: 'checkpoints/',
  watch: 'watch/',
  reviewProgress: 'review-progress/',
  idempotency: 'idempotency/',
  publications: 'publications/',
  claimCheck: 'claim-check/',
  leases: 'leases/',
  confirmations: 'confirmations/',
  confirmationDeadlines: 'confirmation-deadlines/',
});

/** Longest readable segment; longer texts are hashed so that every key stays far below S3's 1024 bytes. */
export const MAX_READABLE_SEGMENT = 200;

const ESCAPE = '!';
/** Marks a hashed segment. An escape is always followed by two upper-case hex digits, so `!h` never occurs otherwise. */
const HASHED = '!h';

/** Hex SHA-256 of a text's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function escapeBytes(text: string, keep: RegExp): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch {
    throw new TypeError(
      `Cannot build a state key from ${JSON.stringify(text.slice(0, 50))}: it is not well-formed Unicode`,
    );
  }
  // encodeURIComponent leaves a few punctuation marks unescaped; keep only the plainest characters.
  return encoded
    .replace(/[^%]/g, (ch) =>
      keep.test(ch) ? ch : `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .replaceAll('%', ESCAPE);
}

/**
 * Turns any non-empty text into one key segment: letters, digits, `.`, `_` and `-` stay, every other
 * UTF-8 byte becomes `!XX`, a leading dot is escaped (no `.`/`..` segments), and texts whose readable
 * form would exceed {@link MAX_READABLE_SEGMENT} characters become `!h<sha256>`. Different texts never
 * give the same segment.
 *
 * @example
 * ```ts
 * encodeKeySegment('00012345678905'); // '00012345678905'
 * encodeKeySegment('Äpfel / 100%');   // '!C3!84pfel!20!2F!20100!25'
 * ```
 */
export function encodeKeySegment(text: string): string {
  if (text.length === 0) throw new TypeError('Cannot build a state key from an empty text');
  let readable = escapeBytes(text, /[A-Za-z0-9._-]/);
  if (readable.startsWith('.')) readable = `${ESCAPE}2E${readable.slice(1)}`;
  return readable.length > MAX_READABLE_SEGMENT ? `${HASHED}${sha256Hex(text)}` : readable;
}

/** The text behind a segment from {@link encodeKeySegment}, or `undefined` for a hashed segment. */
export function decodeKeySegment(segment: string): string | undefined {
  if (segment.startsWith(HASHED)) return undefined;
  return decodeURIComponent(segment.replaceAll(ESCAPE, '%'));
}

/** Like encodeKeySegment but also escapes `.` and `_`, so `.` can separate parts unambiguously. */
function encodePart(text: string): string {
  return escapeBytes(text, /[A-Za-z0-9-]/);
}

/** Identifies one write of a dropped S3 object. */
export interface ObjectWrite {
  bucket: string;
  /** The decoded object key (S3 events carry it URL-encoded, `+` for spaces: decode first). */
  key: string;
  /** Set in versioned buckets: identifies the write on its own. */
  versionId?: string;
  /** The object's ETag, with or without quotes. Used when there is no versionId. */
  etag?: string;
  /**
   * The S3 event's `sequencer`. Without a versionId, identical content uploaded twice has the same ETag;
   * adding the sequencer makes each upload its own record (duplicate notifications of one upload share it).
   */
  sequencer?: string;
}

/** Prefix of every progress record of one object key (all its versions). */
export function ingestObjectPrefix(bucket: string, key: string): string {
  return `${STATE_PREFIXES.ingest}${encodeKeySegment(bucket)}/${sha256Hex(key)}/`;
}

/**
 * Where the ingest progress of one object write is recorded:
 * `ingest/<bucket>/<sha256 of key>/v-<versionId>.json` or `…/e-<etag>[.<sequencer>].json`.
 *
 * @example
 * ```ts
 * ingestProgressKey({ bucket: 'drops', key: 'in/Ä b.csv', etag: '"9b2cf535f27731c974343645a3985328"' });
 * // 'ingest/drops/<64 hex>/e-9b2cf535f27731c974343645a3985328.json'
 * ```
 */
export function ingestProgressKey(write: ObjectWrite): string {
  let identity: string;
  if (write.versionId) {
    identity = `v-${encodePart(write.versionId)}`;
  } else if (write.etag) {
    const etag = write.etag.replace(/^(W\/)?"(.*)"$/, '$2');
    identity = `e-${encodePart(etag)}${write.sequencer ? `.${encodePart(write.sequencer)}` : ''}`;
  } else {
    throw new TypeError(
      `Cannot record progress of s3://${write.bucket}/${write.key}: give its versionId or etag (both are in the S3 event)`,
    );
  }
  if (identity.length > MAX_READABLE_SEGMENT) {
    identity = `h-${sha256Hex(identity)}`;
  }
  return `${ingestObjectPrefix(write.bucket, write.key)}${identity}.json`;
}

/**
 * Where the entries of one gathering of an object write are stored, beside its progress record:
 * written once when the upload is recorded, so the record itself stays small however many entries
 * the file has. One document per gathering: a holder that lost its claim while uploading can only
 * write its own gathering's document, never the one the record points to.
 *
 * @example
 * ingestEntriesKey('ingest/drops/<64 hex>/e-9b2c.json', 'g-17');
 * // 'ingest/drops/<64 hex>/e-9b2c/entries/g-17.json'
 */
export function ingestEntriesKey(progressKey: string, gatheringKey: string): string {
  if (!isIngestProgressKey(progressKey)) {
    throw new TypeError(
      `${JSON.stringify(progressKey)} is not an ingest progress key (build it with ingestProgressKey)`,
    );
  }
  return `${progressKey.slice(0, -'.json'.length)}/entries/${encodeKeySegment(gatheringKey)}.json`;
}

/**
 * Whether a key under `ingest/` is a progress record (`ingest/<bucket>/<hash>/<write>.json`) rather
 * than the entries stored beside one: readers that list the prefix keep only these.
 */
export function isIngestProgressKey(key: string): boolean {
  return key.startsWith(STATE_PREFIXES.ingest) && key.endsWith('.json') && key.split('/').length === 4;
}

/** `checkpoints/<name>.json`, e.g. `checkpointKey('messaging-assets')`. */
export function checkpointKey(name: string): string {
  return `${STATE_PREFIXES.checkpoints}${encodeKeySegment(name)}.json`;
}

/** `watch/<primaryKey>.json`. Store the primary key inside the value too: long keys are hashed. */
export function watchKey(primaryKey: string): string {
  return `${STATE_PREFIXES.watch}${encodeKeySegment(primaryKey)}.json`;
}

/** The primary key of a watch-list state key, or `undefined` when it was hashed (read the value then). */
export function primaryKeyOfWatchKey(stateKey: string): string | undefined {
  if (!stateKey.startsWith(STATE_PREFIXES.watch) || !stateKey.endsWith('.json')) return undefined;
  const segment = stateKey.slice(STATE_PREFIXES.watch.length, -'.json'.length);
  return segment.includes('/') ? undefined : decodeKeySegment(segment);
}

/**
 * `idempotency/<sha256>.json` for an Idempotency-Key, optionally scoped (for example by caller identity)
 * so two callers who pick the same key do not share a record.
 */
export function idempotencyKey(key: string, scope = ''): string {
  if (key.length === 0) throw new TypeError('Cannot build a state key from an empty Idempotency-Key');
  return `${STATE_PREFIXES.idempotency}${sha256Hex(JSON.stringify([scope, key]))}.json`;
}

/** `publications/<id>.json`. */
export function publicationKey(id: string): string {
  return `${STATE_PREFIXES.publications}${encodeKeySegment(id)}.json`;
}

/** `claim-check/<id>.json`: where an oversized event body is stored; a deterministic id makes retries overwrite, not pile up. */
export function claimCheckKey(id: string): string {
  return `${STATE_PREFIXES.claimCheck}${encodeKeySegment(id)}.json`;
}

/** `leases/<name>.json`. */
export function leaseKey(name: string): string {
  return `${STATE_PREFIXES.leases}${encodeKeySegment(name)}.json`;
}

/** The recipient segment of the entry a channel starts with, before a confirmation names a recipient. */
export const FIRST_RECIPIENT = '_';

/**
 * `confirmations/<primaryKey>/<channelId>/<recipient>.json`: one entry of the confirmation ledger.
 * `recipient` is `_` for the channel's first entry, `<gln>.<targetMarket>` for further recipients a
 * channel's confirmations name. Store the parts inside the value too: long ones are hashed.
 */
export function confirmationKey(
  primaryKey: string,
  channelId: string,
  recipient?: { recipientGln?: string | undefined; targetMarket?: string | undefined },
): string {
  const last =
    recipient === undefined
      ? FIRST_RECIPIENT
      : `${encodePart(recipient.recipientGln || '-')}.${encodePart(recipient.targetMarket || '-')}`;
  return `${confirmationItemPrefix(primaryKey)}${encodeKeySegment(channelId)}/${last}.json`;
}

/** `confirmations/<primaryKey>/`: every entry of one item, all channels and recipients. */
export function confirmationItemPrefix(primaryKey: string): string {
  return `${STATE_PREFIXES.confirmations}${encodeKeySegment(primaryKey)}/`;
}

/** `confirmations/<primaryKey>/<channelId>/`: every entry of one item at one channel. */
export function confirmationChannelPrefix(primaryKey: string, channelId: string): string {
  return `${confirmationItemPrefix(primaryKey)}${encodeKeySegment(channelId)}/`;
}

/**
 * `confirmation-deadlines/<deadline>/<sha256 of the publication id>.json`: listed in deadline order,
 * so the deadline check reads only what is due. `deadline` is an ISO time (all of one length, so
 * string order is time order).
 */
export function confirmationDeadlineKey(deadline: string, publicationId: string): string {
  return `${STATE_PREFIXES.confirmationDeadlines}${encodeKeySegment(deadline)}/${sha256Hex(publicationId)}.json`;
}

/** The deadline of a key from {@link confirmationDeadlineKey}. */
export function deadlineOfConfirmationDeadlineKey(stateKey: string): string | undefined {
  const segment = stateKey.slice(STATE_PREFIXES.confirmationDeadlines.length).split('/')[0];
  return segment ? decodeKeySegment(segment) : undefined;
}
