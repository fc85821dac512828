/**
 * fauxqs lists S3 keys in the wrong order, and this module puts it right in the running process.
 *
 * fauxqs 2.4.1 (`dist/s3/s3Store.js`, `listObjects`) sorts a bucket's keys with `localeCompare`
 * while it skips to `StartAfter` (and to the key its continuation token encodes) by UTF-16 code-unit
 * comparison. S3 lists in UTF-8 byte order. With keys that mix upper and lower case, punctuation or
 * non-ASCII letters the two orders disagree, so paged listings skip and repeat keys (260 mixed keys in
 * pages of 7 came back as 78). Keys made only of digits agree in every order, which hid it.
 *
 * {@link fixFauxqsListing} replaces `S3Store.prototype.listObjects` with the same algorithm in byte
 * order (prefix, `StartAfter`/marker, delimiter and common prefixes, `MaxKeys`), once per process;
 * both the local stack (./emulator.ts) and the tests' emulator call it before starting fauxqs. It is
 * written against the exact fauxqs version package.json pins: any other version is refused with
 * {@link EmulatorUnsupportedError}, so an upgrade is a deliberate step (re-check the upstream code,
 * then widen {@link FIXED_FAUXQS_VERSION}).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareKeys } from '@pds-bridge/bridge/state';
import { EmulatorUnsupportedError } from './errors.ts';

/** The fauxqs version whose listing this module replaces (package.json pins it exactly). */
export const FIXED_FAUXQS_VERSION = '2.4.1';

/** An object as fauxqs's S3 store keeps it; only the key matters here. */
interface StoredObject {
  key: string;
}

interface ListObjectsOptions {
  prefix?: string;
  delimiter?: string;
  maxKeys?: number;
  startAfter?: string;
  marker?: string;
}

interface ListObjectsResult {
  objects: StoredObject[];
  commonPrefixes: string[];
  isTruncated: boolean;
}

interface S3StoreLike {
  buckets: Map<string, Map<string, StoredObject>>;
  listObjects(bucket: string, options?: ListObjectsOptions): ListObjectsResult;
}

let fixed: Promise<void> | undefined;

/**
 * Makes this process's fauxqs list in UTF-8 byte order; idempotent.
 *
 * @throws EmulatorUnsupportedError when the installed fauxqs is not {@link FIXED_FAUXQS_VERSION}
 * @example
 * ```ts
 * await fixFauxqsListing();
 * const server = await startFauxqs({ port: 0 });
 * ```
 */
export function fixFauxqsListing(): Promise<void> {
  fixed ??= patch().catch((error: unknown) => {
    fixed = undefined;
    throw error;
  });
  return fixed;
}

async function patch(): Promise<void> {
  const entry = import.meta.resolve('fauxqs');
  const packageJson = new URL('../package.json', entry);
  const version = (JSON.parse(readFileSync(fileURLToPath(packageJson), 'utf8')) as { version?: string })
    .version;
  if (version !== FIXED_FAUXQS_VERSION) {
    throw new EmulatorUnsupportedError(
      `fauxqs ${version ?? '(unknown version)'} is installed, but packages/local/src/fauxqs-listing.ts corrects the S3 listing order of fauxqs ${FIXED_FAUXQS_VERSION} only; run \`npm ci\` to install the pinned version, or check the new version's listObjects and update FIXED_FAUXQS_VERSION`,
    );
  }
  const module = (await import(new URL('./s3/s3Store.js', entry).href)) as {
    S3Store?: { prototype: S3StoreLike };
  };
  const prototype = module.S3Store?.prototype;
  if (typeof prototype?.listObjects !== 'function') {
    throw new EmulatorUnsupportedError(
      `fauxqs ${version} has no S3Store.listObjects in dist/s3/s3Store.js; reinstall it with \`npm ci\``,
    );
  }
  const original = prototype.listObjects;
  prototype.listObjects = function listObjectsInByteOrder(
    this: S3StoreLike,
    bucket: string,
    options?: ListObjectsOptions,
  ): ListObjectsResult {
    // The original raises NoSuchBucket for a missing bucket; let it.
    const objectsMap = this.buckets.get(bucket);
    if (!objectsMap) return original.call(this, bucket, options);
    return listInByteOrder(objectsMap.values(), options ?? {});
  };
}

/** S3's ListObjects over `objects`, in UTF-8 byte order. */
export function listInByteOrder(
  objects: Iterable<StoredObject>,
  options: ListObjectsOptions,
): ListObjectsResult {
  const prefix = options.prefix ?? '';
  const delimiter = options.delimiter || undefined;
  const maxKeys = options.maxKeys ?? 1000;
  const startAfter = options.startAfter || options.marker || '';
  const after = (key: string) => startAfter === '' || compareKeys(key, startAfter) > 0;
  const sorted = [...objects]
    .filter((object) => object.key.startsWith(prefix) && after(object.key))
    .sort((a, b) => compareKeys(a.key, b.key));
  const result: StoredObject[] = [];
  const commonPrefixes: string[] = [];
  const seenPrefixes = new Set<string>();
  let isTruncated = false;
  for (const object of sorted) {
    const rest = object.key.slice(prefix.length);
    const at = delimiter === undefined ? -1 : rest.indexOf(delimiter);
    if (at >= 0) {
      const commonPrefix = prefix + rest.slice(0, at + (delimiter as string).length);
      if (seenPrefixes.has(commonPrefix) || !after(commonPrefix)) continue;
      if (result.length + commonPrefixes.length >= maxKeys) {
        isTruncated = true;
        break;
      }
      seenPrefixes.add(commonPrefix);
      commonPrefixes.push(commonPrefix);
      continue;
    }
    if (result.length + commonPrefixes.length >= maxKeys) {
      isTruncated = true;
      break;
    }
    result.push(object);
  }
  return { objects: result, commonPrefixes, isTruncated };
}
