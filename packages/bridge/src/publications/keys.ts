/**
 * Where the publications flow keeps its records in the state bucket (docs/architecture.md, "The state
 * bucket").
 */
import { encodeKeySegment, sha256Hex, statePrefix } from '../state/index.ts';

/** `publications/`: one record per publication request and its outcome (./records.ts). */
export const PUBLICATIONS_PREFIX = statePrefix('publications', 'packages/bridge/src/publications');
/**
 * `idempotency/`: Idempotency-Keys of API requests as written before the publication record carried
 * them. Nothing reads them now; the prefix stays declared so that no new purpose lands among them.
 */
export const IDEMPOTENCY_PREFIX = statePrefix('idempotency', 'packages/bridge/src/publications');

/** `publications/<id>.json`. */
export function publicationKey(id: string): string {
  return `${PUBLICATIONS_PREFIX}${encodeKeySegment(id)}.json`;
}

/**
 * `idempotency/<sha256>.json` for an Idempotency-Key, optionally scoped (for example by caller identity)
 * so two callers who pick the same key do not share a record.
 */
export function idempotencyKey(key: string, scope = ''): string {
  if (key.length === 0) throw new TypeError('Cannot build a state key from an empty Idempotency-Key');
  return `${IDEMPOTENCY_PREFIX}${sha256Hex(JSON.stringify([scope, key]))}.json`;
}
