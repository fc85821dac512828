/**
 * Bundles the `pds` command line into one self-contained file, dist/bin/pds.mjs (with its source map).
 *
 * bin/pds.mjs runs the TypeScript sources directly (Node strips the types), which is what the checkout
 * uses. The bundle is what travels: Node refuses to strip types below node_modules, so an installed copy
 * needs plain JavaScript, and one file starts several times faster than ~60 modules to strip and resolve.
 */
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');

/** Where `npm run build` writes the bundle. */
export const CLI_BUNDLE = path.join(root, 'dist', 'bin', 'pds.mjs');

/**
 * Bundles bin/pds.mjs and everything it imports into `outfile`.
 *
 * @example
 * ```ts
 * await bundleCli('/tmp/pds.mjs'); // then: node /tmp/pds.mjs --help
 * ```
 */
export async function bundleCli(outfile: string = CLI_BUNDLE): Promise<void> {
  await build({
    entryPoints: [path.join(root, 'bin', 'pds.mjs')],
    outfile,
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
    // esbuild keeps the entry's #! line first, above this banner.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}
