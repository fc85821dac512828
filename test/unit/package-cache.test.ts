/**
 * The cache that lets the serverless-* test files share one `osls package` per argument set
 * (test/helpers/package-cache.ts): reused while nothing that shapes the package changed, never
 * serving a package made from inputs that have changed since.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedPackage, fingerprint, packagingInputs } from '../helpers/package-cache.ts';

let root: string;
let cacheDir: string;
const inputs = ['serverless.yml', 'deploy', 'dist/api'];

/** A stand-in for osls: "packages" what the checkout's service files say, counting its runs. */
function packager() {
  const runs: string[][] = [];
  const pack = (args: string[]) =>
    cachedPackage({
      root,
      cacheDir,
      inputs,
      args,
      produce: async () => {
        runs.push(args);
        return {
          service: await readFile(path.join(root, 'serverless.yml'), 'utf8'),
          api: await readFile(path.join(root, 'deploy', 'api.yml'), 'utf8'),
          bundle: await readFile(path.join(root, 'dist', 'api', 'index.mjs'), 'utf8'),
          args,
        };
      },
    });
  return { pack, runs };
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'package-cache-root-'));
  cacheDir = await mkdtemp(path.join(tmpdir(), 'package-cache-'));
  await mkdir(path.join(root, 'deploy'));
  await mkdir(path.join(root, 'dist', 'api'), { recursive: true });
  await writeFile(path.join(root, 'serverless.yml'), 'service: one\n');
  await writeFile(path.join(root, 'deploy', 'api.yml'), 'memorySize: 512\n');
  await writeFile(path.join(root, 'dist', 'api', 'index.mjs'), 'export const handler = 1;\n');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(cacheDir, { recursive: true, force: true });
});

describe('cachedPackage', () => {
  it('packages the same arguments from unchanged inputs once, for every caller', async () => {
    const first = packager();
    const second = packager(); // another test file, or another process: only the cache folder is shared

    const a = await first.pack(['--stage', 'ci']);
    const b = await second.pack(['--stage', 'ci']);
    const c = await first.pack(['--stage', 'ci']);

    expect(first.runs).toEqual([['--stage', 'ci']]);
    expect(second.runs).toEqual([]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('packages each argument list of its own', async () => {
    const { pack, runs } = packager();

    const none = await pack([]);
    const ci = await pack(['--stage', 'ci']);
    const reordered = await pack(['ci', '--stage']);

    expect(runs).toEqual([[], ['--stage', 'ci'], ['ci', '--stage']]);
    expect(none.args).toEqual([]);
    expect(ci.args).toEqual(['--stage', 'ci']);
    expect(reordered.args).toEqual(['ci', '--stage']);
  });

  it.each([
    ['the service file', 'serverless.yml', 'service: two\n'],
    ['a file of a part', 'deploy/api.yml', 'memorySize: 1024\n'],
    ['a built bundle', 'dist/api/index.mjs', 'export const handler = 2;\n'],
  ])('packages anew when %s changes, and the new package says so', async (_what, file, content) => {
    const { pack, runs } = packager();
    const before = await pack([]);

    await writeFile(path.join(root, file), content);
    const after = await pack([]);

    expect(runs).toHaveLength(2);
    expect(after).not.toEqual(before);
    expect(Object.values(after)).toContain(content);
  });

  it('packages anew when a file appears in or disappears from a folder it reads', async () => {
    const { pack, runs } = packager();
    await pack([]);

    await writeFile(path.join(root, 'dist', 'api', 'chunk.mjs'), 'export {};\n');
    await pack([]);
    await rm(path.join(root, 'dist', 'api', 'chunk.mjs'));
    await pack([]);

    // Back to the first contents, whose package was dropped when the second was kept: made again.
    expect(runs).toHaveLength(3);
  });

  it('keeps no package of inputs that have changed since', async () => {
    const { pack } = packager();
    await pack([]);
    await pack(['--stage', 'ci']);
    const old = await readdir(cacheDir);

    await writeFile(path.join(root, 'serverless.yml'), 'service: two\n');
    await pack([]);

    const kept = await readdir(cacheDir);
    expect(old).toHaveLength(1);
    expect(kept).toHaveLength(1);
    expect(kept).not.toEqual(old);
    expect(await readdir(path.join(cacheDir, kept[0] as string))).toHaveLength(1);
  });

  it('keeps nothing of a packaging that failed: the next caller packages again and sees the error', async () => {
    let runs = 0;
    const failing = () =>
      cachedPackage({
        root,
        cacheDir,
        inputs,
        args: ['--stage', 'Prod'],
        produce: async () => {
          runs += 1;
          throw new Error('refused: stage Prod');
        },
      });

    await expect(failing()).rejects.toThrow('refused: stage Prod');
    await expect(failing()).rejects.toThrow('refused: stage Prod');

    expect(runs).toBe(2);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('keeps no package when an input changed while it was being made', async () => {
    let runs = 0;
    const editedMeanwhile = () =>
      cachedPackage({
        root,
        cacheDir,
        inputs,
        args: [],
        produce: async () => {
          runs += 1;
          const service = await readFile(path.join(root, 'serverless.yml'), 'utf8');
          await writeFile(path.join(root, 'serverless.yml'), `${service}# edited\n`);
          return service;
        },
      });

    await editedMeanwhile();
    await editedMeanwhile();

    expect(runs).toBe(2);
    expect(await readdir(cacheDir)).toEqual([]);
  });
});

describe('fingerprint', () => {
  it('changes with a file path or content under an input, and counts a missing input', async () => {
    const before = await fingerprint(root, inputs);

    await writeFile(path.join(root, 'deploy', 'api.yml'), 'memorySize: 1024\n');
    const edited = await fingerprint(root, inputs);
    await writeFile(path.join(root, 'deploy', 'api.yml'), 'memorySize: 512\n');
    const restored = await fingerprint(root, inputs);
    await rm(path.join(root, 'deploy', 'api.yml'));
    await writeFile(path.join(root, 'deploy', 'renamed.yml'), 'memorySize: 512\n');
    const renamed = await fingerprint(root, inputs);
    const missing = await fingerprint(root, [...inputs, 'scripts/build.ts']);

    expect(edited).not.toBe(before);
    expect(restored).toBe(before);
    expect(renamed).not.toBe(before);
    expect(missing).not.toBe(renamed);
  });

  it('reads everything osls packages from: the service, its parts, the checks, the bundles and osls', () => {
    expect(packagingInputs(['api', 'ingest'])).toEqual(
      expect.arrayContaining([
        'serverless.yml',
        'deploy',
        'packages/bridge/src',
        'package-lock.json',
        'node_modules/osls/package.json',
        'dist/api',
        'dist/ingest',
      ]),
    );
  });
});
