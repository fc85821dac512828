/**
 * Bundles every Lambda handler in functions/ into dist/<name>/index.mjs (the contract in DESIGN.md).
 *
 * One self-contained, minified, tree-shaken ESM file per function, with a source map: the AWS SDK
 * is bundled too, so the versions we test are the versions that run, and cold starts load only
 * what a function uses.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleCli, CLI_BUNDLE } from './build-cli.ts';

const root = path.resolve(import.meta.dirname, '..');
const functionsDir = path.join(root, 'functions');
const distDir = path.join(root, 'dist');

/** Names of the handlers: every `functions/<name>.ts`. */
export async function functionNames(): Promise<string[]> {
  const files = await readdir(functionsDir).catch(() => [] as string[]);
  return files
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
}

async function bundle(name: string): Promise<void> {
  await build({
    entryPoints: [path.join(functionsDir, `${name}.ts`)],
    outfile: path.join(distDir, name, 'index.mjs'),
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    treeShaking: true,
    legalComments: 'none',
    // CommonJS dependencies call require() for Node built-ins; ESM output has no require of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

const names = await functionNames();
await rm(distDir, { recursive: true, force: true });
await Promise.all(names.map(bundle));
process.stdout.write(
  names.length === 0
    ? 'No functions to bundle in functions/.\n'
    : `Bundled ${names.map((name) => `dist/${name}/index.mjs`).join(', ')}\n`,
);
// The `pds` command line as one file (see build-cli.ts for why).
await bundleCli();
process.stdout.write(`Bundled ${path.relative(root, CLI_BUNDLE)}\n`);
