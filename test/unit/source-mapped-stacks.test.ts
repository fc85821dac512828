import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const installer = path.resolve(
  import.meta.dirname,
  '../../packages/bridge/src/lambda/source-mapped-stacks.ts',
);

// The source of a tiny "function": the throw is on line 6, column 11, the call of `fail` on line 10.
const SOURCE = `import { installSourceMappedStacks } from ${JSON.stringify(installer)};
installSourceMappedStacks();

class Store {
  fail(): never {
    throw new TypeError('the bucket is gone');
  }
}
export function handler(): void {
  new Store().fail();
}
`;

let dir = '';
let source = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-stacks-'));
  source = path.join(dir, 'handler.ts');
  await writeFile(source, SOURCE);
  // Built the way the functions are: minified, one line, with a map beside the bundle.
  await build({
    entryPoints: [source],
    outfile: path.join(dir, 'dist', 'index.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'error',
  });
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The stack of the error `handler` throws, from a fresh Node process without --enable-source-maps. */
async function stackFromBundle(): Promise<string[]> {
  const url = pathToFileURL(path.join(dir, 'dist', 'index.mjs')).href;
  const script = [
    `const { handler } = await import(${JSON.stringify(url)});`,
    'try { handler(); } catch (error) { process.stdout.write(error.stack); }',
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, NODE_OPTIONS: '' },
  });
  return stdout.split('\n');
}

describe('installSourceMappedStacks', () => {
  it('names the TypeScript source, line and column of each bundle frame', async () => {
    const [header, thrown, called] = await stackFromBundle();

    expect(header).toBe('TypeError: the bucket is gone');
    expect(thrown).toMatch(/^ {4}at \S+ \(.+:\d+:\d+\)$/);
    expect(thrown).toContain(`${source}:6:11)`);
    expect(called).toContain(`${source}:10:15)`);
  });

  it('leaves frames of files without a source map as V8 prints them', async () => {
    const stack = await stackFromBundle();

    // The caller is the -e script: no file, no map, the frame as it was.
    expect(stack.at(-1)).toMatch(/^ {4}at .*\[eval1\]:2:\d+$/);
    expect(stack.join('\n')).not.toContain('index.mjs');
  });
});
