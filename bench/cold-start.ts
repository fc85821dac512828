/**
 * Cold-start cost of each Lambda bundle: its size, and how long a fresh Node process takes to import
 * it (module scope included: config loaded, adapters built), against a fresh process that imports
 * nothing, measured in the same run.
 *
 *   node bench/cold-start.ts [--runs 15] [--no-build]
 *   node bench/cold-start.ts --analyze [name ...]   what each bundle carries, by package
 *   node bench/cold-start.ts --against DIR [--runs 31] [name ...]
 *       dist/ against the dist/ folder DIR of another build (an earlier commit's `npm run build`):
 *       sizes, and the import of each bundle in fresh processes, alternating the two
 *
 * Budget (issue 7): under 1 MiB and under 150 ms of import per function. Processes run as deployed
 * (serverless.yml): without --enable-source-maps, as the bundles map their stacks when an error is
 * formatted (packages/bridge/src/lambda/source-mapped-stacks.ts). The import is also measured with the flag, which reads
 * every source map at load, for comparison. Deployed, tracing is on (X-Ray active tracing): the
 * `traced` columns measure the import in Lambda's environment until the tracer it starts loading
 * (packages/bridge/src/lambda/tracing.ts) is loaded too; outside Lambda nothing of the tracer is loaded.
 *
 * This machine's speed varies between runs and within one (shared host): a bare process's boot time
 * moves by half. Each row shows the median and the fastest of its processes, and the median ratio of
 * each process's import to its own boot time, which holds steady when the machine slows down. The
 * budget is checked on both; the exit code follows the fastest (the code's cost, not the neighbours').
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import {
  BUNDLE_BUDGET_BYTES,
  bundleDir,
  bundleFiles,
  bundlePath,
  functionBuildOptions,
  functionNames,
} from '../scripts/build.ts';
import { median, printTable, root, runCommand } from './support.ts';

const IMPORT_BUDGET_MS = 150;

const { values, positionals } = parseScriptArgs({
  command: 'node bench/cold-start.ts',
  summary:
    "Cold-start cost of each Lambda bundle: its size and a fresh process's import time, against a process importing nothing. With --analyze, what each named bundle (all by default) carries, by package; with --against DIR, dist/ against another build's dist/, alternating.",
  options: {
    runs: { type: 'string', default: '15', value: 'n', description: 'fresh processes per bundle' },
    'no-build': { type: 'boolean', description: 'measure the bundles in dist/ as they are' },
    analyze: { type: 'boolean', description: 'list what the bundles carry instead of timing them' },
    against: {
      type: 'string',
      value: 'dir',
      description:
        "compare dist/ with another build's dist/ folder: sizes, and imports in fresh processes alternating the two (with --no-build, dist/ as it is)",
    },
  },
  positionals: '[NAME ...]',
});

/** What the handlers read at module scope; placeholders, since importing a bundle calls nothing. */
const CHILD_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-central-1',
  PDS_BASE_URL: 'https://pds.example.com',
  PDS_CREDENTIALS_SECRET_ID: 'pds-bridge/bench/pds-credentials',
  STATE_BUCKET: 'pds-bridge-state-bench',
  INGEST_BUCKETS: 'pds-bridge-drop-bench',
  EVENTS_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-bench-events',
  MESSAGING_ASSET_EVENTS_QUEUE_URL:
    'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-bench-messaging-asset-events',
  SUPPLIER_REVIEW_EVENTS_QUEUE_URL:
    'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-bench-supplier-review-events',
  REVIEW_POLL_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-bench-review-poll',
  PUBLICATION_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-bench-publications',
  WEBHOOK_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-bench-webhooks',
  WEBHOOK_SLOW_QUEUE_URL:
    'https://sqs.eu-central-1.amazonaws.com/123456789012/pds-bridge-bench-webhooks-slow',
  API_AUTH_MODE: 'iam',
};

/**
 * What Lambda adds for a function with active tracing: with it, packages/bridge/src/lambda/tracing.ts loads Powertools'
 * Tracer (and the X-Ray SDK) at cold start; without it, never.
 */
const LAMBDA_ENV = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  LAMBDA_TASK_ROOT: os.tmpdir(),
  _HANDLER: 'index.handler',
};

/** The chunk of a built function that holds the tracer (the only one with the X-Ray SDK in it). */
async function tracerChunkOf(name: string): Promise<string> {
  const { files } = await bundleFiles(bundleDir(name));
  for (const file of files) {
    if ((await readFile(file, 'utf8')).includes('AWSXRay')) return file;
  }
  throw new Error(
    `dist/${name}/ holds no chunk with the X-Ray SDK: is packages/bridge/src/lambda/tracing.ts still loaded by import()?`,
  );
}

/**
 * Reports when user code started (Node's own start-up before it, from `performance.timeOrigin`) and
 * how long the import took, then exits at once. Both are taken before `process.stdout` is touched:
 * its first use costs milliseconds of its own.
 */
function childScript(files: readonly string[]): string {
  const load = files.map((file) => `await import(${JSON.stringify(pathToFileURL(file).href)});`).join('\n');
  return [
    'const started = performance.now();',
    'const cpuStarted = process.cpuUsage();',
    load,
    'const importMs = performance.now() - started;',
    'const cpu = process.cpuUsage(cpuStarted);',
    'const cpuMs = (cpu.user + cpu.system) / 1000;',
    'process.stdout.write(JSON.stringify({ bootMs: started, importMs, cpuMs }));',
    'process.exit(0);',
  ].join('\n');
}

interface Sample {
  bootMs: number;
  importMs: number;
  /** CPU time of the process (all its threads) during the import: less moved by other processes than `importMs`. */
  cpuMs: number;
  wallMs: number;
}

/** One fresh process: `file` imported (or nothing), with or without source-map support. */
async function sample(
  file: string | undefined,
  nodeSourceMaps: boolean,
  lambda?: { tracerChunk: string },
): Promise<Sample> {
  const started = process.hrtime.bigint();
  // In Lambda the function's import starts loading the tracer; importing its chunk again waits for it.
  const files = [...(file ? [file] : []), ...(lambda ? [lambda.tracerChunk] : [])];
  const child = spawn(process.execPath, ['--input-type=module', '-e', childScript(files)], {
    env: {
      ...CHILD_ENV,
      ...(lambda ? LAMBDA_ENV : {}),
      NODE_OPTIONS: nodeSourceMaps ? '--enable-source-maps' : '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) throw new Error(`importing ${file ?? 'nothing'} failed (exit ${code}): ${err.trim()}`);
  const { bootMs, importMs, cpuMs } = JSON.parse(out) as { bootMs: number; importMs: number; cpuMs: number };
  return { bootMs, importMs, cpuMs, wallMs };
}

/** Bytes each package (or our own top-level directory) contributes to the bundle of `name`. */
async function analyze(name: string): Promise<void> {
  const result = await build({
    ...functionBuildOptions(name),
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  // index.mjs and its chunks, as the function ships them.
  const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.mjs'));
  if (outputs.length === 0) throw new Error(`esbuild reported no output for ${name}`);
  const byOrigin = new Map<string, number>();
  let total = 0;
  for (const [, output] of outputs) {
    total += output.bytes;
    for (const [file, input] of Object.entries(output.inputs)) {
      const origin =
        /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file.split('/').slice(0, 2).join('/');
      byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + input.bytesInOutput);
    }
  }
  process.stdout.write(`\n${name}: ${kib(total)} KiB in ${outputs.length} files\n`);
  printTable(
    ['from', 'KiB', 'share'],
    [...byOrigin]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([origin, bytes]) => [origin, kib(bytes), `${((100 * bytes) / total).toFixed(1)} %`]),
  );
}

/**
 * What the shared dependencies cost on their own, bundled the same way: the floor under every
 * function's import time on this machine.
 */
const DEPENDENCY_FLOORS: Record<string, string> = {
  'AWS SDK: S3 + SQS clients': [
    "import { S3Client } from '@aws-sdk/client-s3';",
    "import { SQSClient } from '@aws-sdk/client-sqs';",
    'export const clients = [new S3Client({}), new SQSClient({})];',
  ].join('\n'),
  // As the functions load it: zod/mini with classic zod's English messages (packages/bridge/src/core/zod.ts).
  'zod/mini: one object schema':
    "import * as z from './lib/zod.ts';\nexport const schema = z.object({ id: z.string() });",
  'zod classic, for comparison':
    "import * as z from 'zod';\nexport const schema = z.object({ id: z.string() });",
  // Imported by packages/bridge/src/lambda/tracing.ts only where tracing is on (Lambda), after the function's own import.
  'Powertools: Tracer (Lambda only)': [
    "import { Tracer } from '@aws-lambda-powertools/tracer';",
    "export const tracer = new Tracer({ serviceName: 'bench' });",
  ].join('\n'),
  'Powertools: Logger + Metrics': [
    "import { Logger } from '@aws-lambda-powertools/logger';",
    "import { Metrics } from '@aws-lambda-powertools/metrics';",
    "export const tools = [new Logger(), new Metrics({ namespace: 'Bench' })];",
  ].join('\n'),
};

async function bundleFloors(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  let index = 0;
  for (const [label, contents] of Object.entries(DEPENDENCY_FLOORS)) {
    const outdir = path.join(dir, `floor-${index++}`);
    const { entryPoints: _entry, ...options } = functionBuildOptions('floor');
    await build({ ...options, stdin: { contents, resolveDir: root, loader: 'ts' }, outdir });
    files.set(label, path.join(outdir, 'index.mjs'));
  }
  return files;
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (value: number) => value.toFixed(1);
const medianOf = (samples: Sample[] | undefined, key: keyof Sample) =>
  median((samples ?? []).map((s) => s[key]));
const fastestOf = (samples: Sample[] | undefined, key: keyof Sample) =>
  Math.min(...(samples ?? []).map((s) => s[key]));

/**
 * dist/ against `against` (another build's dist/ folder, e.g. an earlier commit's): the JavaScript bytes
 * of each function, and its import as deployed in fresh processes, one of each build in turn (which goes
 * first alternates from round to round), `runs` rounds. The medians and fastest of the two are taken in
 * the same minutes, so the machine's drift touches both alike; the CPU time of the import (the
 * process's, every thread) moves less with the neighbours' load than its wall time.
 */
async function compare(against: string, names: string[], runs: number): Promise<void> {
  const otherPath = (name: string) => path.join(against, name, 'index.mjs');
  const samples = new Map(names.map((name) => [name, { other: [] as Sample[], own: [] as Sample[] }]));
  for (let run = 0; run < runs; run++) {
    for (const name of names) {
      const pair = samples.get(name) as { other: Sample[]; own: Sample[] };
      const order = run % 2 === 0 ? (['other', 'own'] as const) : (['own', 'other'] as const);
      for (const side of order) {
        pair[side].push(await sample(side === 'other' ? otherPath(name) : bundlePath(name), false));
      }
    }
  }
  process.stdout.write(
    `dist/ against ${against}: ${runs} fresh processes of each bundle, alternating ` +
      `(${os.cpus().length} cores, node ${process.version}, load average ${os.loadavg()[0]?.toFixed(1)})\n\n`,
  );
  const rows: Array<Array<string | number>> = [];
  for (const name of names) {
    const other = (await bundleFiles(path.join(against, name))).bytes;
    const own = (await bundleFiles(bundleDir(name))).bytes;
    const pair = samples.get(name) as { other: Sample[]; own: Sample[] };
    const [otherMs, ownMs] = [medianOf(pair.other, 'importMs'), medianOf(pair.own, 'importMs')];
    const [otherFastest, ownFastest] = [fastestOf(pair.other, 'importMs'), fastestOf(pair.own, 'importMs')];
    rows.push([
      name,
      other,
      own,
      own - other,
      ms(otherMs),
      ms(ownMs),
      `${(100 * (ownMs / otherMs - 1)).toFixed(1)} %`,
      ms(otherFastest),
      ms(ownFastest),
      `${(100 * (ownFastest / otherFastest - 1)).toFixed(1)} %`,
      ms(medianOf(pair.other, 'cpuMs')),
      ms(medianOf(pair.own, 'cpuMs')),
      `${(100 * (medianOf(pair.own, 'cpuMs') / medianOf(pair.other, 'cpuMs') - 1)).toFixed(1)} %`,
    ]);
  }
  printTable(
    [
      'function',
      'bytes, against',
      'bytes, dist/',
      'difference',
      'import ms, against',
      'dist/',
      'median dist/ ÷ against',
      'fastest, against',
      'dist/',
      'fastest dist/ ÷ against',
      'CPU ms, against',
      'dist/',
      'CPU dist/ ÷ against',
    ],
    rows,
  );
}

async function main(): Promise<void> {
  const all = await functionNames();
  if (values.analyze) {
    for (const name of positionals.length > 0 ? positionals : all) await analyze(name);
    return;
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  if (!values['no-build']) await runCommand(process.execPath, [path.join(root, 'scripts/build.ts')]);
  if (values.against !== undefined) {
    const against = path.resolve(values.against);
    const names = positionals.length > 0 ? positionals : all;
    const unknown = names.filter((name) => !all.includes(name));
    if (unknown.length > 0) {
      throw new Error(`no function named ${unknown.join(', ')}; the functions are ${all.join(', ')}`);
    }
    const missing = [];
    for (const name of names) {
      if (!(await stat(path.join(against, name, 'index.mjs')).catch(() => undefined))) missing.push(name);
    }
    if (missing.length > 0) {
      throw new Error(
        `--against ${values.against}: no ${missing.map((name) => `${name}/index.mjs`).join(', ')} there; give the dist/ folder of a build (npm run build in that checkout)`,
      );
    }
    await compare(against, names, runs);
    return;
  }
  const floorDir = await mkdtemp(path.join(os.tmpdir(), 'pds-bridge-cold-start-'));
  try {
    const floors = await bundleFloors(floorDir);
    const reference: Sample[] = [];
    const deployed = new Map<string, Sample[]>(all.map((name) => [name, []]));
    const withNodeMaps = new Map<string, Sample[]>(all.map((name) => [name, []]));
    const inLambda = new Map<string, Sample[]>(all.map((name) => [name, []]));
    const tracerChunks = new Map(
      await Promise.all(all.map(async (name) => [name, await tracerChunkOf(name)] as const)),
    );
    const floorSamples = new Map<string, Sample[]>([...floors.keys()].map((label) => [label, []]));
    // Interleaved, so a busy moment of the shared machine spreads over every row and the reference.
    for (let run = 0; run < runs; run++) {
      reference.push(await sample(undefined, false));
      for (const name of all) {
        deployed.get(name)?.push(await sample(bundlePath(name), false));
        withNodeMaps.get(name)?.push(await sample(bundlePath(name), true));
        const tracerChunk = tracerChunks.get(name) as string;
        inLambda.get(name)?.push(await sample(bundlePath(name), false, { tracerChunk }));
      }
      for (const [label, file] of floors) floorSamples.get(label)?.push(await sample(file, false));
    }

    const referenceWall = medianOf(reference, 'wallMs');
    const referenceBoot = medianOf(reference, 'bootMs');
    const fastestBoot = fastestOf(reference, 'bootMs');
    process.stdout.write(
      `cold start, ${runs} fresh processes each, interleaved (${os.cpus().length} cores, node ${process.version}, ` +
        `load average ${os.loadavg()[0]?.toFixed(1)})\n` +
        `reference: a fresh node process importing nothing takes ${ms(referenceWall)} ms from spawn to exit, ` +
        `${ms(referenceBoot)} ms of it before the first line of user code (fastest: ${ms(fastestBoot)} ms)\n\n`,
    );
    const overBudget = { fastest: [] as string[], median: [] as string[], traced: [] as string[] };
    const rows: Array<Array<string | number>> = [];
    for (const name of all) {
      const { files, bytes } = await bundleFiles(bundleDir(name));
      const mapSizes = await Promise.all(files.map(async (file) => (await stat(`${file}.map`)).size));
      const samples = deployed.get(name) ?? [];
      const importMs = medianOf(samples, 'importMs');
      const fastestMs = fastestOf(samples, 'importMs');
      const wallMs = medianOf(samples, 'wallMs');
      if (bytes >= BUNDLE_BUDGET_BYTES || fastestMs >= IMPORT_BUDGET_MS) overBudget.fastest.push(name);
      if (bytes >= BUNDLE_BUDGET_BYTES || importMs >= IMPORT_BUDGET_MS) overBudget.median.push(name);
      if (fastestOf(inLambda.get(name), 'importMs') >= IMPORT_BUDGET_MS) overBudget.traced.push(name);
      rows.push([
        name,
        bytes,
        kib(bytes),
        kib(mapSizes.reduce((sum, size) => sum + size, 0)),
        ms(importMs),
        ms(fastestMs),
        median(samples.map((one) => one.importMs / one.bootMs)).toFixed(2),
        ms(medianOf(withNodeMaps.get(name), 'importMs')),
        ms(medianOf(inLambda.get(name), 'importMs')),
        ms(fastestOf(inLambda.get(name), 'importMs')),
        median((inLambda.get(name) ?? []).map((one) => one.importMs / one.bootMs)).toFixed(2),
        ms(wallMs - referenceWall),
      ]);
    }
    printTable(
      [
        'function',
        'bytes',
        'KiB',
        'map KiB',
        'import ms',
        'fastest',
        'import ÷ boot',
        'import ms, --enable-source-maps',
        'import ms, traced (Lambda)',
        'traced fastest',
        'traced ÷ boot',
        'process − reference ms',
      ],
      rows,
    );
    process.stdout.write('\nthe shared dependencies alone, bundled the same way (import ms):\n\n');
    const floorRows: Array<Array<string | number>> = [];
    for (const [label, file] of floors) {
      floorRows.push([
        label,
        kib((await bundleFiles(path.dirname(file))).bytes),
        ms(medianOf(floorSamples.get(label), 'importMs')),
      ]);
    }
    printTable(['dependency', 'KiB', 'import ms'], floorRows);
    const verdict = (names: string[]) =>
      names.length === 0 ? 'met by every function' : `NOT met by ${names.join(', ')}`;
    process.stdout.write(
      `\nbudget: under ${kib(BUNDLE_BUDGET_BYTES)} KiB and under ${IMPORT_BUDGET_MS} ms of import per function, as deployed\n` +
        `  fastest of ${runs} (the machine uncontended): ${verdict(overBudget.fastest)}\n` +
        `  median of ${runs} (this run's contention: boot ${ms(referenceBoot)} ms against ${ms(fastestBoot)} ms at best): ` +
        `${verdict(overBudget.median)}\n` +
        `  traced, as in Lambda, fastest of ${runs}: ${verdict(overBudget.traced)}\n`,
    );
    if (overBudget.fastest.length > 0) process.exitCode = 1;
  } finally {
    await rm(floorDir, { recursive: true, force: true });
  }
}

await main();
