/**
 * How every bundle of the project is built: the Lambda functions (scripts/build.ts), the `pds` command
 * line (scripts/build-cli.ts) and the code the benchmarks measure (bench/support.ts), so that what is
 * measured and what is shipped are built alike.
 */
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { csvScannerModule } from '../packages/bridge/src/ingest/content/csv-blocks.ts';
import { jsonScannerModule } from '../packages/bridge/src/ingest/content/json-blocks.ts';

/**
 * Powertools' Tracer (packages/bridge/src/lambda/tracing.ts) loads the X-Ray SDK, whose AWS SDK v2 patcher (`captureAWS`,
 * `captureAWSClient`; Tracer marks them deprecated) brings `semver` along: 30 KiB of the three pollers'
 * budget. The bridge uses the SDK v3 and `captureAWSv3Client`; the v2 patcher is left out, and reached
 * anyway, it fails naming this plugin.
 */
const xraySdkV3Only: Plugin = {
  name: 'xray-sdk-v3-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/patchers\/aws_p(\.js)?$/ }, (args) =>
      /[/\\]aws-xray-sdk-core[/\\]/.test(args.importer)
        ? { path: args.path, namespace: 'xray-sdk-v3-only' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'xray-sdk-v3-only' }, () => ({
      contents: [
        'const leftOut = () => {',
        "  throw new Error('The X-Ray SDK patcher of the AWS SDK v2 is left out of this bundle (scripts/bundle-options.ts): use captureAWSv3Client.');",
        '};',
        'module.exports = { captureAWS: leftOut, captureAWSClient: leftOut };',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/** Node's built-in modules, with and without the `node:` prefix (`fs`, `node:fs`, `node:test`…). */
const builtinModule = new RegExp(
  `^(node:)?(${builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`,
);

/**
 * Importing a built-in module as an ES module builds its ES module facade, which reads every export:
 * lazy ones run. `node:http` pays about 60 ms for it on Node 24 (its `WebSocket`-family exports load
 * Node's internal undici), `node:fs` loads its streams. `require()` reads none of them, so the bundles
 * take every built-in through the `require` of the banner; named imports still work (esbuild reads
 * the properties when they are used), and a default import is the module object itself, whose
 * `request` X-Ray's tracing replaces (packages/bridge/src/pds/exchange.ts).
 */
const builtinsThroughRequire: Plugin = {
  name: 'builtins-through-require',
  setup(builder) {
    builder.onResolve({ filter: builtinModule }, (args) => {
      const name = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      return args.namespace === 'builtins-through-require'
        ? { path: name, external: true }
        : { path: name, namespace: 'builtins-through-require' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'builtins-through-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

const IDENTIFIER = '[A-Za-z_$][\\w$]*';

/**
 * The fields of a `package.json` that `source` reads, when it binds the file once to a name
 * (`import info from '<specifier>'`, or `info = require('<specifier>')` as a statement) and reads it
 * only as `info.<field>` (or `info?.<field>`); otherwise `undefined`: the object may leave the
 * module whole (passed on, destructured, indexed), so every field is kept. Assigning the name is not
 * reading it, so `var info = {}` before the `require` is allowed.
 *
 * @example
 * ```ts
 * fieldsRead("import p from '../package.json';\nexport const v = p.version;", '../package.json'); // ['version']
 * fieldsRead("import p from '../package.json';\nexport default p;", '../package.json');          // undefined
 * ```
 */
export function fieldsRead(source: string, specifier: string): string[] | undefined {
  const quoted = `(['"])${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\2`;
  const bindings = [
    ...source.matchAll(new RegExp(`\\bimport\\s+(${IDENTIFIER})\\s+from\\s*${quoted}`, 'g')),
    ...source.matchAll(
      new RegExp(
        `(?:^|[;{}]|\\b(?:var|let|const)\\s)\\s*(${IDENTIFIER})\\s*=\\s*require\\(\\s*${quoted}\\s*\\)`,
        'gm',
      ),
    ),
  ];
  const [binding, ...others] = bindings;
  const name = binding?.[1];
  if (binding === undefined || name === undefined || others.length > 0) return undefined;
  const rest = source.slice(0, binding.index) + source.slice(binding.index + binding[0].length);
  const fields = new Set<string>();
  const uses = new RegExp(
    `(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])(\\s*(?:\\?\\.|\\.)\\s*(${IDENTIFIER})|\\s*=(?![=>]))?`,
    'g',
  );
  for (const use of rest.matchAll(uses)) {
    if (use[1] === undefined) return undefined;
    if (use[2] !== undefined) fields.add(use[2]);
  }
  return [...fields].sort();
}

/**
 * A `package.json` is bundled as the whole object its import returns: the SDK clients read their
 * `version` for the user agent and carry 2.0–2.6 KiB each (description, scripts, dependencies, the
 * exports map), the bridge reads its own `version` and carried 1.5 KiB. Where the importing module
 * reads only named fields ({@link fieldsRead}), the bundle carries those fields alone; anywhere else
 * the file whole, as before (the X-Ray SDK's, whose module names its binding in comments too).
 */
const packageJsonFieldsRead: Plugin = {
  name: 'package-json-fields-read',
  setup(builder) {
    const again = Symbol('package-json-fields-read');
    builder.onResolve({ filter: /(^|[/\\])package\.json$/ }, async (args) => {
      if (args.pluginData === again || args.namespace !== 'file' || args.importer === '') return undefined;
      const fields = fieldsRead(await readFile(args.importer, 'utf8'), args.path);
      if (fields === undefined) return undefined;
      const resolved = await builder.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: again,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      // Named as esbuild names files, relative to the working directory: the source maps carry no
      // absolute path of the machine that built them.
      return {
        path: path.relative(process.cwd(), resolved.path),
        namespace: 'package-json-fields',
        suffix: `?${fields.join(',')}`,
        pluginData: { file: resolved.path, fields },
      };
    });
    builder.onLoad({ filter: /.*/, namespace: 'package-json-fields' }, async (args) => {
      const { file, fields } = args.pluginData as { file: string; fields: string[] };
      const whole = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      const kept = fields
        .filter((field) => Object.hasOwn(whole, field))
        .map((field) => [field, whole[field]]);
      return { contents: JSON.stringify(Object.fromEntries(kept)), loader: 'json' };
    });
  },
};

let scannerModules: string | undefined;

/**
 * The ingest content check's WebAssembly scanners, assembled here from their instruction lists
 * (packages/bridge/src/ingest/content), as the bundles carry them: base64 by name. A function's first
 * checked file then compiles their bytes instead of running the assembler's cold code.
 */
function bundledScannerModules(): string {
  scannerModules ??= JSON.stringify({
    json: Buffer.from(jsonScannerModule()).toString('base64'),
    csv: Buffer.from(csvScannerModule()).toString('base64'),
  });
  return scannerModules;
}

/**
 * Minified, tree-shaken ESM for Node 24 with a source map, from `entry` into `outfile`.
 *
 * @example
 * ```ts
 * await build(nodeBundleOptions('packages/bridge/functions/api.ts', 'dist/api/index.mjs'));
 * ```
 */
export function nodeBundleOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    // The AWS SDK packages publish CommonJS under `main` and ESM under `module` (without an exports
    // map); only the ESM build lets esbuild drop the commands and schemas a function never calls.
    mainFields: ['module', 'main'],
    plugins: [xraySdkV3Only, builtinsThroughRequire, packageJsonFieldsRead],
    define: { PDS_BRIDGE_SCANNER_MODULES: bundledScannerModules() },
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
  };
}
