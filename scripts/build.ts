/**
 * Bundles every Lambda handler in packages/bridge/functions/ into dist/<name>/index.mjs (the contract in docs/architecture.md).
 *
 * One self-contained, minified, tree-shaken ESM bundle per function (index.mjs, plus chunks/ that
 * only `import()` reaches), with source maps: the AWS SDK is bundled too, so the versions we test
 * are the versions that run, and cold starts load only what a function uses. A bundle above
 * {@link BUNDLE_BUDGET_BYTES} fails the build; see what it carries with
 * `node bench/cold-start.ts --analyze <name>`.
 *
 * Run: `node scripts/build.ts` (or `npm run build`). Importing this module builds nothing.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { bundleCli, CLI_BUNDLE } from './build-cli.ts';
import { buildConsumerPackage, CONSUMER_PACKAGE } from './build-consumer.ts';
import { nodeBundleOptions } from './bundle-options.ts';

const root = path.resolve(import.meta.dirname, '..');
const functionsDir = path.join(root, 'packages', 'bridge', 'functions');
const distDir = path.join(root, 'dist');

/** Largest bundle a function may have (issue 7): 1 MiB of JavaScript, chunks included, maps not. */
export const BUNDLE_BUDGET_BYTES = 1024 * 1024;

/** Names of the handlers: every `packages/bridge/functions/<name>.ts`. */
export async function functionNames(): Promise<string[]> {
  const files = await readdir(functionsDir).catch(() => [] as string[]);
  return files
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
}

/** Where the bundle of function `name` is written. */
export function bundlePath(name: string): string {
  return path.join(distDir, name, 'index.mjs');
}

/** Where the files of function `name` are written: `index.mjs` and its `chunks/`. */
export function bundleDir(name: string): string {
  return path.join(distDir, name);
}

/**
 * The esbuild options for function `name`; `bench/cold-start.ts --analyze` reuses them.
 *
 * @example
 * ```ts
 * const result = await build({ ...functionBuildOptions('api'), metafile: true, write: false });
 * ```
 */
export function functionBuildOptions(name: string): BuildOptions {
  const { outfile: _single, ...options } = nodeBundleOptions(
    path.join(functionsDir, `${name}.ts`),
    bundlePath(name),
  );
  return {
    ...options,
    // Code only reached through `import()` (the SDK's container and instance-metadata credential
    // providers, event streams, Powertools' secrets provider) goes to chunks of its own, loaded if
    // ever reached. In one file esbuild wraps it, and every module it shares with the rest, in lazy
    // initialisers that V8 parses twice (docs/benchmarks.md#cold-start).
    splitting: true,
    outdir: bundleDir(name),
    entryNames: 'index',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    // The SDK's default credential chain imports these on demand, after the environment variables
    // Lambda always sets: they read profiles, SSO caches, credential_process and token files from the
    // home directory, which Lambda does not have. Left out (about 90 KiB with the clients they pull
    // in); reached anyway, the import fails naming the package. From a checkout, node_modules has them.
    // `bowser` is the browser's user-agent parser, imported on demand by @aws-sdk/core's browser
    // user-agent provider; clients built for Node use the Node provider and never reach it (33 KiB).
    external: [
      '@aws-sdk/credential-provider-ini',
      '@aws-sdk/credential-provider-process',
      '@aws-sdk/credential-provider-sso',
      '@aws-sdk/credential-provider-web-identity',
      'bowser',
    ],
  };
}

/** The JavaScript files under `dir` (a built function: `bundleDir(name)`) and their total size. */
export async function bundleFiles(dir: string): Promise<{ files: string[]; bytes: number }> {
  const entries = await readdir(dir, { recursive: true });
  const files = entries.filter((file) => file.endsWith('.mjs')).map((file) => path.join(dir, file));
  const sizes = await Promise.all(files.map(async (file) => (await stat(file)).size));
  return { files, bytes: sizes.reduce((sum, size) => sum + size, 0) };
}

/** Raised when a function's bundle is above {@link BUNDLE_BUDGET_BYTES}. */
export class BundleBudgetError extends Error {
  constructor(oversized: ReadonlyArray<{ name: string; bytes: number }>) {
    super(
      `${oversized.map(({ name, bytes }) => `dist/${name}/ holds ${kib(bytes)} KiB of JavaScript`).join(', ')}, above the ` +
        `budget of ${kib(BUNDLE_BUDGET_BYTES)} KiB per function. See what it carries with ` +
        '`node bench/cold-start.ts --analyze <name>` and leave out what the function does not use.',
    );
    this.name = 'BundleBudgetError';
  }
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

/**
 * Bundles the given functions into dist/ and returns each bundle's size; throws
 * {@link BundleBudgetError} (after writing them) when one is above the budget.
 */
export async function bundleFunctions(names: string[]): Promise<Array<{ name: string; bytes: number }>> {
  // Chunk names carry a content hash: a previous build's chunks would linger and be packaged.
  await Promise.all(names.map((name) => rm(bundleDir(name), { recursive: true, force: true })));
  await Promise.all(names.map((name) => build(functionBuildOptions(name))));
  const sizes = await Promise.all(
    names.map(async (name) => ({ name, bytes: (await bundleFiles(bundleDir(name))).bytes })),
  );
  const oversized = sizes.filter(({ bytes }) => bytes > BUNDLE_BUDGET_BYTES);
  if (oversized.length > 0) throw new BundleBudgetError(oversized);
  return sizes;
}

if (import.meta.main) {
  parseScriptArgs({
    command: 'node scripts/build.ts',
    summary:
      'npm run build: bundles each packages/bridge/functions/<name>.ts into dist/<name>/, the pds command line into dist/bin/pds.mjs, and builds the consumer package (packages/consumer).',
    options: {},
  });
  const names = await functionNames();
  await rm(distDir, { recursive: true, force: true });
  const sizes = await bundleFunctions(names);
  process.stdout.write(
    sizes.length === 0
      ? 'No functions to bundle in packages/bridge/functions/.\n'
      : `Bundled ${sizes.map(({ name, bytes }) => `dist/${name}/ (${kib(bytes)} KiB)`).join(', ')}\n`,
  );
  // The `pds` command line as one file (see build-cli.ts for why).
  await bundleCli();
  process.stdout.write(`Bundled ${path.relative(root, CLI_BUNDLE)}\n`);
  // The consumer package, packages/consumer (`pds-bridge/consumer`; see build-consumer.ts).
  await buildConsumerPackage();
  process.stdout.write(`Built ${path.relative(root, CONSUMER_PACKAGE)}/\n`);
}
