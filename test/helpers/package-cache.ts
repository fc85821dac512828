/**
 * A content-addressed cache of what `osls package` produced, so the test files that package the
 * service with the same arguments run osls once per change of the checkout, not once each.
 *
 * An entry is keyed by the arguments and a fingerprint of every file that shapes the package (the
 * paths and contents of the inputs {@link packagingInputs} names, read when the entry is looked up),
 * plus the Node.js version running osls. Changing any input gives a new fingerprint and so a new
 * package; entries of other fingerprints are removed when the first entry of a new one is written.
 * A failed packaging is never cached. The callers hold test/helpers/serverless.ts's lock, so no
 * entry is read while another process writes or removes it; entries are written to a temporary name
 * and renamed, so a crash never leaves half an entry.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The files and folders (relative to the checkout) whose contents shape what `osls package`
 * produces for the given functions: the service and its parts, the packaging checks and the bridge
 * source they import, the built bundles osls zips, what builds them, the locked osls version, and
 * the helpers that read and keep its output (an entry has the shape they gave it).
 */
export function packagingInputs(functions: readonly string[]): string[] {
  return [
    'serverless.yml',
    'deploy',
    'packages/bridge/functions',
    'packages/bridge/src',
    'scripts/build.ts',
    'scripts/bundle-options.ts',
    'package.json',
    'package-lock.json',
    'node_modules/osls/package.json',
    // What is read from osls's output, and how it is kept.
    'test/helpers/serverless.ts',
    'test/helpers/package-cache.ts',
    ...functions.map((name) => `dist/${name}`),
  ];
}

/**
 * A SHA-256 of the relative path and contents of every file under `inputs` (files or folders,
 * relative to `root`), in a stable order; a missing input counts as missing, so creating it changes
 * the fingerprint too.
 *
 * @example
 * ```ts
 * const before = await fingerprint(root, ['serverless.yml', 'deploy']);
 * ```
 */
export async function fingerprint(root: string, inputs: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const input of [...inputs].sort()) {
    const files = await filesUnder(path.join(root, input));
    if (files === undefined) {
      hash.update(`missing\0${input}\0`);
      continue;
    }
    for (const file of files) {
      const content = await readFile(file);
      hash.update(`file\0${path.relative(root, file)}\0${content.length}\0`);
      hash.update(content);
    }
  }
  return hash.digest('hex');
}

/** The files under `target` (itself when it is a file), sorted; undefined when it does not exist. */
async function filesUnder(target: string): Promise<string[] | undefined> {
  try {
    const entries = await readdir(target, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return [target];
    if (code === 'ENOENT') return undefined;
    throw error;
  }
}

export interface PackageCacheLookup<T> {
  /** The checkout the inputs are relative to. */
  root: string;
  /** Where the entries are kept (one folder per fingerprint inside it). */
  cacheDir: string;
  /** What shapes the package, relative to `root`: {@link packagingInputs}. */
  inputs: readonly string[];
  /** The packager's arguments: part of the key, as they are. */
  args: readonly string[];
  /** Packages and returns what to keep (JSON); called only when no entry matches. */
  produce: () => Promise<T>;
}

/**
 * The cached result for these arguments and the current contents of the inputs, or what `produce`
 * returns (then kept for the next caller, in this process or another). The caller must hold the
 * packaging lock.
 *
 * @example
 * ```ts
 * const packaged = await cachedPackage({ root, cacheDir, inputs, args, produce: () => runOsls(args) });
 * ```
 */
export async function cachedPackage<T>({
  root,
  cacheDir,
  inputs,
  args,
  produce,
}: PackageCacheLookup<T>): Promise<T> {
  const print = await fingerprint(root, inputs);
  const key = createHash('sha256')
    .update(JSON.stringify({ node: process.version, args }))
    .digest('hex');
  const folder = path.join(cacheDir, print);
  const entry = path.join(folder, `${key}.json`);
  const kept = await readFile(entry, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (kept !== undefined) return JSON.parse(kept) as T;

  const produced = await produce();
  // An input edited while osls ran: the package may hold either version, so it is not kept.
  if ((await fingerprint(root, inputs)) !== print) return produced;
  await mkdir(folder, { recursive: true });
  // Only the current fingerprint's entries can ever be read again.
  for (const other of await readdir(cacheDir)) {
    if (other !== print) await rm(path.join(cacheDir, other), { recursive: true, force: true });
  }
  const partial = `${entry}.${process.pid}.partial`;
  await writeFile(partial, JSON.stringify(produced));
  await rename(partial, entry);
  return produced;
}
