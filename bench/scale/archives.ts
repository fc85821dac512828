/**
 * Large archives (issue 20): one ZIP of N members ingested by the real ingestObject against the PDS
 * simulator (its own process, every request answered after --latency-ms), with the state store in
 * memory behind a fixed delay per request (--state-latency-ms, a stand-in for the state bucket in the
 * same region). Per size it prints the wall time, the PDS requests, the progress bytes written
 * (entries document and record writes apart), the state requests, and then what a kill half-way
 * costs: a delivery killed after N calls and the one that takes over, with the imports repeated.
 *
 * Reference, in the same run: the same archive imported one at a time (`INGEST_IMPORT_CONCURRENCY=1`)
 * at the smallest size, and the bytes the layout before issue 20 would have written (every entry
 * rewritten with each import), computed from the same entries.
 *
 *   ./node_modules/.bin/node bench/scale/archives.ts [--members 1000,3000,10000] [--latency-ms 50]
 *     [--state-latency-ms 20] [--concurrency 8] [--no-kill] [--no-reference]
 *
 * Targets: 10,000 members at 50 ms within one invocation (the ingest timeout, 900 s, less the 10 s
 * reserve of packages/bridge/src/ingest/step-retry.ts), progress bytes <= 10 MiB, no member imported more than twice
 * and at most `concurrency` repeats per kill.
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { sleep } from '../../packages/bridge/src/core/index.ts';
import { DEFAULT_IMPORT_CONCURRENCY } from '../../packages/bridge/src/ingest/import-ledger.ts';
import { ingestObject } from '../../packages/bridge/src/ingest/ingest-object.ts';
import { ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import type { IngestPdsClient } from '../../packages/bridge/src/ingest/ports.ts';
import type { IngestProgressRecord } from '../../packages/bridge/src/ingest/progress.ts';
import { readGatheringProgress } from '../../packages/bridge/src/ingest/progress-entries.ts';
import type { ObjectWriteEvent } from '../../packages/bridge/src/ingest/s3-event.ts';
import { createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { MemoryStateStore, type StateStore } from '../../packages/bridge/src/state/index.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import { RecordingSink } from '../../test/helpers/event-sink.ts';
import { KilledError, KillSwitch } from '../../test/helpers/kill-switch.ts';
import { TrafficCountingStore } from '../../test/helpers/state-traffic.ts';
import { MiB, printTable, startSimulatorProcess } from '../support.ts';
import type { ScaleSection } from './section.ts';

export interface ArchivesBenchOptions {
  members: number[];
  latencyMs: number;
  stateLatencyMs: number;
  concurrency: number;
  kill: boolean;
  reference: boolean;
}

export const ARCHIVES_DEFAULTS: ArchivesBenchOptions = {
  members: [1000, 3000, 10_000],
  latencyMs: 50,
  stateLatencyMs: 20,
  concurrency: DEFAULT_IMPORT_CONCURRENCY,
  kill: true,
  reference: true,
};

/** The deployed ingest timeout (deploy/ingest.yml) less the reserve kept to record and release. */
export const INVOCATION_BUDGET_SECONDS = 900 - 10;
export const PROGRESS_BYTES_TARGET = 10 * MiB;

export interface ArchiveFigures {
  label: string;
  members: number;
  concurrency: number;
  seconds: number;
  /** Of those, the upload (the simulator stores every member before it answers). */
  uploadSeconds: number;
  pdsRequests: number;
  stateRequests: number;
  /** Entries document(s) and record writes, in bytes. */
  entriesBytes: number;
  recordBytes: number;
  /** The progress record at the end, in bytes (what each record write costs at most). */
  recordSize: number;
  /** What the layout before issue 20 would have written for the same entries. */
  earlierLayoutBytes: number;
  /** A kill after `members` calls and the take-over: imports sent twice, and both deliveries' time. */
  kill?: { repeatedImports: number; seconds: number };
}

/** The layout before issue 20: every entry rewritten with its flag on each import, computed. */
export function earlierLayoutBytes(
  record: IngestProgressRecord,
  entries: Array<{ path: string; assetKey: string }>,
): number {
  const inline = { ...record, entryCount: undefined, importedRanges: undefined };
  const size = (importedUpTo: number) =>
    Buffer.byteLength(
      JSON.stringify({
        ...inline,
        entries: entries.map((entry, index) => ({ ...entry, imported: index < importedUpTo })),
      }),
    );
  // `uploaded`, one write per import, `done`: each carries every entry.
  let total = size(0);
  for (let imported = 1; imported <= entries.length; imported++) total += size(imported);
  return total + size(entries.length);
}

/** A store answering after a fixed delay, as a bucket in the same region does. */
function delayed(inner: StateStore, ms: number): StateStore {
  if (ms === 0) return inner;
  const wait = <T>(call: () => Promise<T>) => sleep(ms).then(call);
  return {
    get: (key) => wait(() => inner.get(key)),
    create: (key, value) => wait(() => inner.create(key, value)),
    update: (key, value, etag) => wait(() => inner.update(key, value, etag)),
    delete: (key, etag) => wait(() => inner.delete(key, etag)),
    list: (prefix, options) => inner.list(prefix, options),
    listEntries: (prefix, options) => inner.listEntries(prefix, options),
    mutate: (key, fn, options) => inner.mutate(key, fn, options),
  };
}

async function zipOf(members: number): Promise<Buffer> {
  const zip = new ZipFile();
  for (let i = 0; i < members; i++) {
    zip.addBuffer(
      Buffer.from(`primaryKey__,name\n${String(i).padStart(14, '0')},Item ${i}\n`),
      `items/part-${i}.csv`,
    );
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Counts the PDS requests and the imports per path that actually went out. */
function countingPds(inner: IngestPdsClient) {
  const perPath = new Map<string, number>();
  let requests = 0;
  let uploadMs = 0;
  const pds: IngestPdsClient = {
    uploadGathering: async (source) => {
      requests += 1;
      const started = performance.now();
      try {
        return await inner.uploadGathering(source);
      } finally {
        uploadMs += performance.now() - started;
      }
    },
    startImport: (request) => {
      requests += 1;
      perPath.set(request.path, (perPath.get(request.path) ?? 0) + 1);
      return inner.startImport(request);
    },
  };
  return { pds, perPath, requests: () => requests, uploadSeconds: () => uploadMs / 1000 };
}

interface RunSetup {
  pdsBase: IngestPdsClient;
  body: Buffer;
  members: number;
  concurrency: number;
  stateLatencyMs: number;
  serial: number;
}

/** One archive, one delivery (or a killed one and its successor); returns the figures. */
async function runArchive(
  setup: RunSetup,
  killAt: number | undefined,
  label: string,
): Promise<ArchiveFigures> {
  const memory = new MemoryStateStore();
  const store = new TrafficCountingStore(delayed(memory, setup.stateLatencyMs), (key) =>
    key.includes('/entries/') ? 'entries' : 'record',
  );
  const write: ObjectWriteEvent = {
    bucket: 'drops',
    key: `incoming/archive-${setup.serial}.zip`,
    etag: `e${setup.serial}`,
    sequencer: '01',
    size: setup.body.length,
    eventName: 'ObjectCreated:Put',
  };
  const counting = countingPds(setup.pdsBase);
  const deliver = (attempt: number, kill: KillSwitch | undefined) =>
    ingestObject(write, {
      pds: kill ? kill.pds(counting.pds) : counting.pds,
      store: kill ? kill.store(store) : store,
      events: new RecordingSink(),
      source: {
        open: async () => ({
          stream: Readable.from([setup.body]),
          size: setup.body.length,
          contentType: 'application/zip',
        }),
      },
      owner: `bench-${attempt}`,
      leaseMs: 960_000,
      importConcurrency: setup.concurrency,
      now: () => Date.now() + attempt * 960_001,
    });
  const recordKey = ingestProgressKey(write);
  const started = performance.now();
  if (killAt !== undefined) {
    await deliver(0, new KillSwitch(killAt)).then(
      () => {
        throw new Error(`the kill after ${killAt} calls came after the delivery had finished`);
      },
      (error: unknown) => {
        if (!(error instanceof KilledError)) throw error;
      },
    );
    await deliver(1, undefined);
  } else {
    await deliver(0, undefined);
  }
  const seconds = (performance.now() - started) / 1000;
  const record = (await memory.get<IngestProgressRecord>(recordKey))?.value;
  if (record?.status !== 'done') throw new Error(`the archive ended ${record?.status}, not done`);
  const gathering = await readGatheringProgress(memory, recordKey, record);
  const imported = [...counting.perPath.values()];
  if (imported.length !== setup.members)
    throw new Error(`${imported.length} of ${setup.members} members imported`);
  const repeatedImports = imported.reduce((sum, count) => sum + count - 1, 0);
  if (killAt === undefined && repeatedImports > 0)
    throw new Error(`${repeatedImports} imports repeated without a kill`);
  return {
    label,
    members: setup.members,
    concurrency: setup.concurrency,
    seconds,
    uploadSeconds: counting.uploadSeconds(),
    pdsRequests: counting.requests(),
    stateRequests: store.totalRequests,
    entriesBytes: store.bytesByKind.get('entries') ?? 0,
    recordBytes: store.bytesByKind.get('record') ?? 0,
    recordSize: Buffer.byteLength(JSON.stringify(record)),
    earlierLayoutBytes: earlierLayoutBytes(record, gathering?.entries ?? []),
    ...(killAt !== undefined ? { kill: { repeatedImports, seconds } } : {}),
  };
}

export interface ArchivesBenchResult {
  options: ArchivesBenchOptions;
  runs: ArchiveFigures[];
  /** Bytes the layout before issue 20 would write, per size. */
  earlierLayoutBytes: Record<number, number>;
}

/**
 * Runs every size (and the reference and kill runs); the simulator process is stopped at the end.
 *
 * @example
 * ```ts
 * const result = await runArchivesBench({ ...ARCHIVES_DEFAULTS, members: [1000] });
 * ```
 */
export async function runArchivesBench(options: ArchivesBenchOptions): Promise<ArchivesBenchResult> {
  const simulator = await startSimulatorProcess(['--latency-ms', String(options.latencyMs), '--seed', '1']);
  const client = createPdsClient({
    baseUrl: simulator.url,
    credentials: { username: 'demo', password: 'demo' },
  });
  const runs: ArchiveFigures[] = [];
  const earlier: Record<number, number> = {};
  let serial = 0;
  try {
    for (const members of options.members) {
      const body = await zipOf(members);
      const setup = (concurrency: number): RunSetup => ({
        pdsBase: client,
        body,
        members,
        concurrency,
        stateLatencyMs: options.stateLatencyMs,
        serial: ++serial,
      });
      const run = await runArchive(setup(options.concurrency), undefined, 'one delivery');
      runs.push(run);
      printRun(run);
      earlier[members] = run.earlierLayoutBytes;
      if (options.kill) {
        const killed = await runArchive(
          setup(options.concurrency),
          members,
          `killed after ${members} calls, taken over`,
        );
        runs.push(killed);
        printRun(killed);
      }
    }
    if (options.reference) {
      const smallest = Math.min(...options.members);
      const body = await zipOf(smallest);
      const reference = await runArchive(
        {
          pdsBase: client,
          body,
          members: smallest,
          concurrency: 1,
          stateLatencyMs: options.stateLatencyMs,
          serial: ++serial,
        },
        undefined,
        'reference: one import at a time',
      );
      runs.push(reference);
      printRun(reference);
    }
  } finally {
    await client.close();
    await simulator.stop();
  }
  return { options, runs, earlierLayoutBytes: earlier };
}

function printRun(run: ArchiveFigures): void {
  process.stderr.write(`  ${run.members} members, ${run.label}: ${run.seconds.toFixed(1)} s\n`);
}

/** Prints the figures against the targets. */
export function printArchivesReport(result: ArchivesBenchResult): void {
  const { options } = result;
  process.stdout.write(
    `\nLarge archives: PDS latency ${options.latencyMs} ms, state latency ${options.stateLatencyMs} ms, INGEST_IMPORT_CONCURRENCY ${options.concurrency}\n\n`,
  );
  printTable(
    [
      'members',
      'run',
      'concurrency',
      'wall s',
      'of which upload s',
      'ms per member after upload',
      'PDS requests',
      'state requests',
      'entries bytes',
      'record bytes',
      'progress bytes',
      'record size',
      'repeated imports',
      'layout before issue 20, bytes',
    ],
    result.runs.map((run) => [
      run.members,
      run.label,
      run.concurrency,
      run.seconds.toFixed(1),
      run.uploadSeconds.toFixed(1),
      (((run.seconds - run.uploadSeconds) * 1000) / run.members).toFixed(1),
      run.pdsRequests,
      run.stateRequests,
      run.entriesBytes,
      run.recordBytes,
      `${((run.entriesBytes + run.recordBytes) / MiB).toFixed(2)} MiB`,
      run.recordSize,
      run.kill ? run.kill.repeatedImports : 0,
      run.label === 'one delivery'
        ? `${((result.earlierLayoutBytes[run.members] ?? 0) / MiB).toFixed(0)} MiB`
        : '',
    ]),
  );
  const largest = result.runs
    .filter((run) => run.label === 'one delivery')
    .sort((a, b) => b.members - a.members)[0];
  if (largest) {
    const bytes = largest.entriesBytes + largest.recordBytes;
    const timeOk = largest.seconds <= INVOCATION_BUDGET_SECONDS;
    const bytesOk = bytes <= PROGRESS_BYTES_TARGET;
    process.stdout.write(
      `\nTarget at ${largest.members} members: ${largest.seconds.toFixed(1)} s of ${INVOCATION_BUDGET_SECONDS} s in one invocation (${timeOk ? 'met' : 'NOT met'}); progress ${(bytes / MiB).toFixed(2)} MiB of 10 MiB (${bytesOk ? 'met' : 'NOT met'})\n`,
    );
  }
  for (const run of result.runs.filter((r) => r.kill)) {
    const ok = (run.kill?.repeatedImports ?? 0) <= run.concurrency;
    process.stdout.write(
      `Kill at ${run.members} members: ${run.kill?.repeatedImports} imports repeated (window: at most ${run.concurrency}; ${ok ? 'met' : 'NOT met'})\n`,
    );
  }
}

/** The flags of this section (bench/scale.ts archives, or this module alone). */
const SPEC = {
  command: 'node bench/scale.ts archives',
  summary:
    'One ZIP per size ingested by ingestObject against the PDS simulator: wall time, PDS requests, state requests and progress bytes, a kill half-way and its take-over, against the issue 20 targets.',
  options: {
    members: {
      type: 'string',
      value: 'n,n,...',
      description: 'archive sizes in members (default 1000,3000,10000)',
    },
    'latency-ms': { type: 'string', value: 'ms', description: 'PDS latency per request (default 50)' },
    'state-latency-ms': {
      type: 'string',
      value: 'ms',
      description: 'state-store latency per request (default 20)',
    },
    concurrency: {
      type: 'string',
      value: 'n',
      description: `INGEST_IMPORT_CONCURRENCY (default ${DEFAULT_IMPORT_CONCURRENCY})`,
    },
    'no-kill': { type: 'boolean', description: 'leave out the kill and take-over run' },
    'no-reference': { type: 'boolean', description: 'leave out the one-import-at-a-time reference' },
  },
} as const;

/**
 * Parses the command line: `--help` prints the usage and an unknown flag one line (parseScriptArgs);
 * a wrong value throws an Error with a one-line message.
 */
export function parseArchivesArgs(argv: string[]): ArchivesBenchOptions {
  const { values } = parseScriptArgs(SPEC, argv);
  const integer = (raw: string | undefined, fallback: number, name: string, min: number, max: number) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`--${name} must be an integer from ${min} to ${max}, got '${raw}'`);
    }
    return value;
  };
  const members =
    values.members === undefined
      ? ARCHIVES_DEFAULTS.members
      : values.members.split(',').map((part) => integer(part.trim(), 0, 'members', 1, 50_000));
  return {
    members,
    latencyMs: integer(values['latency-ms'], ARCHIVES_DEFAULTS.latencyMs, 'latency-ms', 0, 10_000),
    stateLatencyMs: integer(
      values['state-latency-ms'],
      ARCHIVES_DEFAULTS.stateLatencyMs,
      'state-latency-ms',
      0,
      10_000,
    ),
    concurrency: integer(values.concurrency, ARCHIVES_DEFAULTS.concurrency, 'concurrency', 1, 64),
    kill: !values['no-kill'],
    reference: !values['no-reference'],
  };
}

if (import.meta.main) {
  try {
    printArchivesReport(await runArchivesBench(parseArchivesArgs(process.argv.slice(2))));
  } catch (error) {
    process.stderr.write(`bench/scale/archives.ts: ${(error as Error).message} (see --help)\n`);
    process.exit(2);
  }
}

/** This module as a section of bench/scale.ts. */
export const section: ScaleSection = {
  summary:
    "ZIP archives through the ingest: wall time, PDS and state requests, progress bytes, a kill's repeats",
  async run(argv) {
    printArchivesReport(await runArchivesBench(parseArchivesArgs(argv)));
  },
};
