/**
 * How every bundle of the project is built: the Lambda functions (scripts/build.ts), the `pds` command
 * line (scripts/build-cli.ts) and the code the benchmarks measure (bench/support.ts), so that what is
 * measured and what is shipped are built alike.
 */
import { builtinModules } from 'node:module';
import path from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');

/**
 * undici's package entry loads every API it has (fetch, WebSocket, caches, mocks, proxies: ~500 KiB);
 * the PDS transport (lib/pds/transport.ts) uses `Pool` and the `request` method alone. The bundles take
 * `Pool` from its own module file and give dispatchers their methods the way the package entry does
 * (`Object.assign(Dispatcher.prototype, api)`). A runtime import of anything else from 'undici' fails
 * the build ("No matching export") and then belongs here too; type imports are erased and unaffected.
 * test/integration/serverless-api.test.ts sends a request through the bundled client.
 */
const undiciPoolOnly: Plugin = {
  name: 'undici-pool-only',
  setup(builder) {
    builder.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'undici-pool-only' }));
    builder.onLoad({ filter: /.*/, namespace: 'undici-pool-only' }, () => ({
      contents: [
        "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
        "import api from 'undici/lib/api/index.js';",
        "import Pool from 'undici/lib/dispatcher/pool.js';",
        'Object.assign(Dispatcher.prototype, api);',
        'export { Pool };',
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
  },
};

/**
 * undici carries its HTTP/1 parser (llhttp) twice, with and without WebAssembly SIMD (70 KiB each),
 * and tries the SIMD one first inside a try/catch. The bundles keep the portable one only: the
 * failed attempt falls through to it, on every CPU, at the cost of a slightly slower header parser.
 */
const portableLlhttpOnly: Plugin = {
  name: 'portable-llhttp-only',
  setup(builder) {
    builder.onResolve({ filter: /llhttp_simd-wasm\.js$/ }, (args) => ({
      path: args.path,
      namespace: 'portable-llhttp-only',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'portable-llhttp-only' }, () => ({
      contents:
        "throw new Error('The SIMD build of llhttp is left out of this bundle (scripts/build.ts); undici uses the portable one.');",
      loader: 'js',
    }));
  },
};

/**
 * The PDS transport speaks HTTP/1.1 only (`allowH2: false` in lib/pds/transport.ts), so undici's
 * HTTP/2 client is never reached; leaving it out spares every cold start the load of `node:http2`
 * and 18 KiB of parsing. Reached anyway, it fails naming this plugin.
 */
const undiciHttp1Only: Plugin = {
  name: 'undici-http1-only',
  setup(builder) {
    builder.onResolve({ filter: /[/\\]client-h2\.js$/ }, (args) => ({
      path: args.path,
      namespace: 'undici-http1-only',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'undici-http1-only' }, () => ({
      contents: [
        'module.exports = function connectH2() {',
        "  throw new Error('HTTP/2 is left out of this bundle (scripts/bundle-options.ts): create the undici Pool with allowH2: false.');",
        '};',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * undici's request code requires its fetch helpers (`FormData`, its body extraction, WebIDL checks;
 * 42 KiB) only when a request body is a `FormData`. The PDS transport sends every body as a buffer
 * or a stream and builds its multipart bodies itself (lib/pds/multipart.ts), so they are never
 * reached; the bundles leave them out. Reached anyway, the require fails naming this plugin.
 */
const undiciNoFormData: Plugin = {
  name: 'undici-no-formdata',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/web\/(fetch\/formdata|fetch\/body\.js|webidl)$/ }, (args) =>
      /[/\\]undici[/\\]lib[/\\](core[/\\]request|dispatcher[/\\]client-h1)\.js$/.test(args.importer)
        ? { path: args.path, namespace: 'undici-no-formdata' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'undici-no-formdata' }, () => ({
      contents:
        "throw new Error('FormData request bodies are left out of this bundle (scripts/bundle-options.ts): send a buffer or a stream, as lib/pds/multipart.ts does.');",
      loader: 'js',
    }));
  },
};

/**
 * Powertools' Tracer (lib/tracing.ts) loads the X-Ray SDK, whose AWS SDK v2 patcher (`captureAWS`,
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
 * the properties when they are used).
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
 * await build(nodeBundleOptions('functions/api.ts', 'dist/api/index.mjs'));
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
    // undici's marker for "bundled, as in Node.js core": leaves out the experimental Milo parser
    // (150 KiB of WebAssembly, off unless UNDICI_USE_MILO is set).
    define: { esbuildDetection: 'true' },
    plugins: [
      undiciPoolOnly,
      undiciHttp1Only,
      undiciNoFormData,
      portableLlhttpOnly,
      xraySdkV3Only,
      builtinsThroughRequire,
    ],
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
