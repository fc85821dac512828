/**
 * How every bundle of the project is built: the Lambda functions (scripts/build.ts), the `pds` command
 * line (scripts/build-cli.ts) and the code the benchmarks measure (bench/support.ts), so that what is
 * measured and what is shipped are built alike.
 */
import { builtinModules } from 'node:module';
import type { BuildOptions, Plugin } from 'esbuild';

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
    plugins: [xraySdkV3Only, builtinsThroughRequire],
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
