/**
 * Bundles the `pds` command line into one self-contained file, dist/bin/pds.mjs (with its source map).
 *
 * packages/cli/bin/pds.mjs runs the TypeScript sources directly (Node strips the types), which is what the checkout
 * uses. The bundle is what travels: Node refuses to strip types below node_modules, so an installed copy
 * needs plain JavaScript, and one file starts several times faster than ~60 modules to strip and resolve.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { nodeBundleOptions } from './bundle-options.ts';

const root = path.resolve(import.meta.dirname, '..');

/** Where `npm run build` writes the bundle. */
export const CLI_BUNDLE = path.join(root, 'dist', 'bin', 'pds.mjs');

/**
 * Bundles packages/cli/bin/pds.mjs and everything it imports into `outfile`.
 *
 * @example
 * ```ts
 * await bundleCli('/tmp/pds.mjs'); // then: node /tmp/pds.mjs --help
 * ```
 */
export async function bundleCli(outfile: string = CLI_BUNDLE): Promise<void> {
  await build(nodeBundleOptions(path.join(root, 'packages', 'cli', 'bin', 'pds.mjs'), outfile));
}
