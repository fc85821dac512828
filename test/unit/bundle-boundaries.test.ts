/**
 * What a bundle of a module really carries: the lint rule in biome.json keeps `@aws-sdk/*` imports out
 * of the packages' sources but cannot see what a barrel pulls in through a chain of modules. Bundling the entries the
 * flows build events and records from shows it, and bundling each Lambda as scripts/build.ts does shows
 * which of the bridge's own folders it carries.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { functionBuildOptions, functionNames } from '../../scripts/build.ts';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The npm packages (and the workspace folders) whose files a bundle of `entry` loads when it is imported: static
 * imports only, since what `import()` reaches is split off and loaded when first used (scripts/build.ts).
 */
async function loadedWith(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
  const inputs = result.metafile.inputs;
  const start = Object.keys(inputs).find((input) => input.endsWith(entry));
  const seen = new Set<string>(start ? [start] : []);
  for (const input of seen) {
    for (const imported of inputs[input]?.imports ?? []) {
      if (imported.kind !== 'dynamic-import' && !imported.external) seen.add(imported.path);
    }
  }
  const origins = [...seen].map((input) => {
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    return inPackage?.[1] ?? path.dirname(input);
  });
  return [...new Set(origins)].sort();
}

describe('bundle boundaries', () => {
  it.each([
    ['packages/bridge/src/events/index.ts'],
    ['packages/bridge/src/ingest/events.ts'],
    ['packages/bridge/src/state/index.ts'],
    ['packages/bridge/src/state/claim.ts'],
    ['packages/bridge/src/polling/supplier-reviews/review-queue.ts'],
    ['packages/bridge/src/publications/queue.ts'],
    ['packages/consumer/src/reader.ts'],
    ['packages/consumer/src/dedup.ts'],
  ])('building events and records from %s loads neither the AWS SDK nor the XML parser', async (entry) => {
    // act
    const origins = await loadedWith(entry);

    // assess
    expect(origins.filter((origin) => origin.startsWith('@aws-sdk/'))).toEqual([]);
    expect(origins).not.toContain('fast-xml-parser');
  });
});

/**
 * The Lambda bundle of function `name` as scripts/build.ts builds it, chunks included: the folders of
 * the packages whose files it carries, the `/v1` paths its code names, which of zod's APIs (`classic`,
 * `mini`) it carries, and the bytes each `package.json` it carries takes. Built once per function.
 */
function lambdaBundle(name: string): Promise<LambdaBundle> {
  let bundle = lambdaBundles.get(name);
  if (bundle === undefined) {
    bundle = buildLambdaBundle(name);
    lambdaBundles.set(name, bundle);
  }
  return bundle;
}

interface LambdaBundle {
  folders: string[];
  v1Paths: string[];
  zodApis: string[];
  packageJsonBytes: Record<string, number>;
}

const lambdaBundles = new Map<string, Promise<LambdaBundle>>();

async function buildLambdaBundle(name: string): Promise<LambdaBundle> {
  const result = await build({
    ...functionBuildOptions(name),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const folders = Object.keys(result.metafile.inputs)
    .filter((input) => input.startsWith('packages/'))
    .map((input) => path.dirname(input));
  const code = result.outputFiles.filter((file) => file.path.endsWith('.mjs')).map((file) => file.text);
  const v1Paths = code.flatMap(
    (text) => text.match(/\/v1\/(?:assetFolders|bulkSubscription|datamodel|items)\b/g) ?? [],
  );
  const zodApis = Object.keys(result.metafile.inputs).flatMap(
    (input) => /node_modules\/zod\/v4\/(classic|mini)\//.exec(input)?.[1] ?? [],
  );
  const packageJsonBytes: Record<string, number> = {};
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const manifest = /(?:node_modules\/)?((?:@[^/]+\/)?[^/:]+|packages\/[^/]+)\/package\.json/.exec(
        input,
      )?.[1];
      if (manifest) packageJsonBytes[manifest] = (packageJsonBytes[manifest] ?? 0) + bytesInOutput;
    }
  }
  return {
    folders: [...new Set(folders)].sort(),
    v1Paths: [...new Set(v1Paths)].sort(),
    zodApis: [...new Set(zodApis)].sort(),
    packageJsonBytes,
  };
}

const lambdas = await functionNames();

describe('Lambda bundles', () => {
  it.each(lambdas)(
    'the %s bundle carries only the bridge: neither the /v1 family nor the simulator, the command line or the local stack',
    async (name) => {
      // act
      const { folders, v1Paths } = await lambdaBundle(name);

      // assess: the bridge's package only (its package.json gives the version), without its /v1 client,
      // packages/bridge/src/pds/resources (the CLI and the simulator import it, no Lambda does)
      expect(v1Paths).toEqual([]);
      expect(folders).toContain('packages/bridge/src/pds');
      expect(
        folders.filter((folder) => !/^packages\/bridge(\/src|\/functions|$)(\/|$)/.test(folder)),
      ).toEqual([]);
      expect(folders.filter((folder) => /^packages\/bridge\/src\/pds\/resources(\/|$)/.test(folder))).toEqual(
        [],
      );
    },
  );

  // Classic zod's methods carry the whole library into a bundle (100 KiB of the api's, about 7 ms of
  // its import): the bundled code uses zod/mini through packages/bridge/src/core/zod.ts (docs/benchmarks.md).
  // The SDK clients and the bridge read their package.json's version alone; whole, the five files took
  // 8.5-10.5 KiB of a bundle, chunks included (scripts/bundle-options.ts keeps the fields read, docs/benchmarks.md). The X-Ray
  // SDK's module names its binding in comments, so its file stays whole.
  it.each(lambdas)(
    'the %s bundle carries of each package.json only the fields its code reads',
    async (name) => {
      // act
      const { packageJsonBytes } = await lambdaBundle(name);

      // assess
      expect(packageJsonBytes).toHaveProperty(['@aws-sdk/client-s3']);
      const whole = Object.entries(packageJsonBytes).filter(
        ([manifest, bytes]) => manifest !== 'aws-xray-sdk-core' && bytes > 64,
      );
      expect(whole).toEqual([]);
    },
  );

  it.each(lambdas)('the %s bundle carries zod/mini, not classic zod', async (name) => {
    // act
    const { zodApis } = await lambdaBundle(name);

    // assess
    expect(zodApis).toEqual(['mini']);
  });
});
