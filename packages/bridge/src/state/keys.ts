/**
 * The rules every key of the state bucket follows, and the one place its top-level prefixes are
 * handed out.
 *
 * Each module builds the keys of what it stores beside its own code, under a prefix it declares with
 * {@link statePrefix}: packages/bridge/src/ingest/keys.ts, packages/bridge/src/polling/keys.ts, packages/bridge/src/publications/keys.ts,
 * packages/bridge/src/confirmations/keys.ts, packages/bridge/src/events/sqs/claim-check.ts, and at the end of this file the keys
 * packages/bridge/src/state owns (`watch/`, `leases/`). docs/architecture.md, "The state bucket", lists every prefix,
 * what one object under it holds and who builds it; test/unit/state-layout.test.ts finds every
 * declaration in the packages, fails on two that collide and holds that table to them. Lifecycle rules and IAM
 * policies target a purpose by its prefix (packages/bridge/src/<flow>/permissions.ts import it from its owner).
 *
 * Free text (primary keys, names, ids) becomes one path segment through {@link encodeKeySegment}:
 * readable where possible, always a valid S3 key segment, and never the same segment for two
 * different texts.
 */
import { createHash } from 'node:crypto';
import { StateKeyError } from './errors.ts';

/** Prefix → the module that declared it. */
const declared = new Map<string, string>();

/**
 * Declares the top-level prefix `<name>/` for the keys of `owner` (a module, e.g. `packages/bridge/src/ingest`) and
 * returns it. A prefix is one segment of lower-case letters, digits and `-`, so no prefix can be the
 * start of another; declaring one that another module holds throws when the second module loads (the
 * test of the layout loads them all).
 *
 * @example
 * ```ts
 * export const CHECKPOINTS_PREFIX = statePrefix('checkpoints', 'packages/bridge/src/polling'); // 'checkpoints/'
 * ```
 */
export function statePrefix(name: string, owner: string): string {
  const prefix = `${name}/`;
  if (!/^[a-z][a-z0-9-]*$/.test(name)) {
    throw new StateKeyError(
      prefix,
      'a top-level prefix is one segment of lower-case letters, digits and "-"',
    );
  }
  const holder = declared.get(prefix);
  if (holder !== undefined && holder !== owner) {
    throw new StateKeyError(
      prefix,
      `${owner} declares a prefix that ${holder} holds; give its keys another name`,
    );
  }
  declared.set(prefix, owner);
  return prefix;
}

/** The prefixes declared so far by the modules loaded, each with the module that declared it. */
export function declaredStatePrefixes(): ReadonlyMap<string, string> {
  return new Map(declared);
}

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

/**
 * Like {@link encodeKeySegment} but also escapes `.` and `_`, so a key can join several parts into one
 * segment with `.` and never read two different lists of parts the same way. No length limit: hash
 * the joined segment when it can grow long.
 *
 * @example
 * ```ts
 * `${encodeKeyPart('4000000000001')}.${encodeKeyPart('DE')}`; // '4000000000001.DE'
 * encodeKeyPart('a.b_c'); // 'a!2Eb!5Fc'
 * ```
 */
export function encodeKeyPart(text: string): string {
  return escapeBytes(text, /[A-Za-z0-9-]/);
}

/** `watch/`: the watch list (./watch-list.ts). */
export const WATCH_PREFIX = statePrefix('watch', 'packages/bridge/src/state');
/** `leases/`: "a run never overlaps itself" (./lease.ts). */
export const LEASES_PREFIX = statePrefix('leases', 'packages/bridge/src/state');

/** `watch/<primaryKey>.json`. Store the primary key inside the value too: long keys are hashed. */
export function watchKey(primaryKey: string): string {
  return `${WATCH_PREFIX}${encodeKeySegment(primaryKey)}.json`;
}

/** The primary key of a watch-list state key, or `undefined` when it was hashed (read the value then). */
export function primaryKeyOfWatchKey(stateKey: string): string | undefined {
  if (!stateKey.startsWith(WATCH_PREFIX) || !stateKey.endsWith('.json')) return undefined;
  const segment = stateKey.slice(WATCH_PREFIX.length, -'.json'.length);
  return segment.includes('/') ? undefined : decodeKeySegment(segment);
}

/** `leases/<name>.json`. */
export function leaseKey(name: string): string {
  return `${LEASES_PREFIX}${encodeKeySegment(name)}.json`;
}
