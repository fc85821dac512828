/**
 * Builds the consumer package, packages/consumer (published as `pds-bridge`): the kit, its
 * `pds-bridge/consumer` entry (packages/consumer/src/index.ts), into dist/consumer/ there (`index.js`, plain
 * ESM JavaScript for Node 22 and later, with its source map, and `types/`, TypeScript declarations),
 * a copy of the events' JSON Schemas (schemas/, `pds-bridge/schemas/*`) and of the repository's
 * LICENSE. Its package.json
 * `exports` points there; its `prepack` script runs this file, so every tarball is complete.
 *
 * Why built, not shipped as source: Node refuses to strip types below node_modules, and Node 22 before
 * 22.18 has no type stripping by default. Unlike the Lambda bundles, the dependencies stay imports (zod,
 * @aws-sdk/client-s3): the consumer's own copies are used, so an S3Client it creates is the class the
 * kit expects.
 *
 * Run: `npm run build:consumer` (any Node: npm runs the pinned Node 24; `node scripts/build-consumer.ts`
 * needs Node 22.18 or later for the type stripping), and `npm pack` in packages/consumer runs it too.
 * Importing this module builds nothing.
 */
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';

const root = path.resolve(import.meta.dirname, '..');
/** The sources the kit is built from: its own, and the bridge modules it imports. */
const sources = [
  path.join(root, 'packages', 'consumer', 'src'),
  path.join(root, 'packages', 'bridge', 'src'),
];
const entry = path.join(sources[0] ?? '', 'index.ts');

/** The consumer package: what a consumer installs, and nothing else (its own package.json). */
export const CONSUMER_PACKAGE = path.join(root, 'packages', 'consumer');

/** Where `npm run build` writes the kit. */
export const CONSUMER_DIST = path.join(CONSUMER_PACKAGE, 'dist', 'consumer');

/** The declarations of the entry, relative to the output directory (package.json `exports.types`). */
export const CONSUMER_TYPES_ENTRY = path.join('types', 'packages', 'consumer', 'src', 'index.d.ts');

/**
 * The kit imports a few values from modules that also hold the bridge's PDS client, whose load-time
 * code (`new Set(...)` constants, the transport's `node:http` agents) esbuild must keep unless told it
 * has no effects. None of these modules does anything on load that another module relies on, so they
 * are declared side-effect free: unused modules drop out, and the PDS client is not imported.
 */
const libWithoutSideEffects: Plugin = {
  name: 'lib-without-side-effects',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'resolved') return undefined;
      const resolved = await builder.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        importer: args.importer,
        pluginData: 'resolved',
      });
      if (resolved.errors.length > 0 || !sources.some((dir) => resolved.path.startsWith(dir + path.sep)))
        return resolved;
      return { ...resolved, sideEffects: false };
    });
  },
};

/** TypeScript's options for the declarations: the project's tsconfig, emitting `.d.ts` only. */
function declarationOptions(outDir: string): ts.CompilerOptions {
  const configFile = path.join(root, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    { noEmit: false, declaration: true, emitDeclarationOnly: true, outDir, rootDir: root },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (parsed === undefined) throw new Error(`Cannot read ${configFile}`);
  return parsed.options;
}

/**
 * The declarations keep the sources' `./x.ts` specifiers; a consumer's TypeScript resolves `./x.js`
 * to `x.d.ts` in every module mode, so relative specifiers are written that way.
 */
async function rewriteSpecifiers(dir: string): Promise<void> {
  const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith('.d.ts'));
  await Promise.all(
    files.map(async (file) => {
      const full = path.join(dir, file);
      const text = await readFile(full, 'utf8');
      const rewritten = text.replace(
        /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+)\.ts(['"])/g,
        '$1$2.js$3',
      );
      if (rewritten !== text) await writeFile(full, rewritten);
    }),
  );
}

/**
 * Builds the kit into `outDir`: `index.js`, `index.js.map` and `types/`.
 *
 * @example
 * ```ts
 * await buildConsumer('/tmp/pkg/dist/consumer'); // then import '/tmp/pkg/dist/consumer/index.js'
 * ```
 */
export async function buildConsumer(outDir: string = CONSUMER_DIST): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  await build({
    entryPoints: [entry],
    outfile: path.join(outDir, 'index.js'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    packages: 'external',
    plugins: [libWithoutSideEffects],
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
  });

  const typesDir = path.join(outDir, 'types');
  const program = ts.createProgram([entry], declarationOptions(typesDir));
  const emitted = program.emit(undefined, undefined, undefined, true);
  if (emitted.diagnostics.length > 0) {
    const messages = emitted.diagnostics.map((diagnostic) =>
      ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
    );
    throw new Error(`Declarations of the consumer kit failed:\n${messages.join('\n')}`);
  }
  await rewriteSpecifiers(typesDir);
}

/**
 * Builds the whole consumer package in `packageDir`: the kit into `dist/consumer/` and the events'
 * JSON Schemas (this checkout's schemas/, written by `npm run schemas`) into `schemas/`.
 *
 * @example
 * ```ts
 * await buildConsumerPackage(); // then `npm pack` in packages/consumer carries both
 * ```
 */
export async function buildConsumerPackage(packageDir: string = CONSUMER_PACKAGE): Promise<void> {
  await buildConsumer(path.join(packageDir, 'dist', 'consumer'));
  const schemas = path.join(packageDir, 'schemas');
  await rm(schemas, { recursive: true, force: true });
  await cp(path.join(root, 'schemas'), schemas, { recursive: true });
  // npm packs a package's own LICENSE: the repository's, copied (the README is the kit's own, in git).
  await cp(path.join(root, 'LICENSE'), path.join(packageDir, 'LICENSE'));
}

if (import.meta.main) {
  parseScriptArgs({
    command: 'node scripts/build-consumer.ts',
    summary:
      "Builds the consumer package, packages/consumer: the kit into dist/consumer/, a copy of schemas/ and the LICENSE. The package's prepack script runs it.",
    options: {},
  });
  await buildConsumerPackage();
  process.stdout.write(
    `Built ${path.relative(root, CONSUMER_PACKAGE)}/ (dist/consumer/, schemas/, LICENSE)\n`,
  );
}
