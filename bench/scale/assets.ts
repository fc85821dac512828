/**
 * `node bench/scale.ts assets`: the messaging-asset poller against a PDS that lists N assets, nothing
 * new to emit: wall time and peak RSS of the poller's process for one run, with the listing read
 * whole (POLL_LISTING_PAGING=off, what a PDS that does not page gets) and paged (auto, against a PDS
 * that honours limit/offset), the PDS requests and listing bytes of that run, a paged run with 100
 * new assets (O(new) bytes), and the size of the checkpoint's record of emitted ids. The reference,
 * at the sizes it survives, is the whole-list read the poller did before issue 20
 * (`pds.listMessagingAssets()`: body read whole, parsed and validated whole).
 *
 * Every run is its own process (this file with `--poll`), like a Lambda invocation, so its peak RSS is
 * its own; the PDS is this file with `--serve` in another process: it generates the listing as it
 * streams it (ids ascending with about 1 % random gaps of 1-5 ids), so it never holds it as text.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { IdRanges } from '../../packages/bridge/src/polling/id-ranges.ts';
import {
  MESSAGING_ASSETS_CHECKPOINT,
  pollMessagingAssets,
} from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/index.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import { MiB, printTable } from '../support.ts';
import type { ScaleSection } from './section.ts';

const SELF = fileURLToPath(import.meta.url);
const DEFAULT_SIZES = '100000,1000000,5000000';
/** Sizes above this skip the reference (it holds the whole listing several times over). */
const REFERENCE_MAX = 1_000_000;
const LIST_PATH = '/api/v1/messaging/messagingassets/';

/** Ids ascending with realistic gaps: about 1 % of steps skip 1-5 ids (deterministic). */
function gappedIds(count: number, seed = 7): Float64Array {
  const ids = new Float64Array(count);
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let id = 0;
  for (let index = 0; index < count; index++) {
    id += 1 + (random() < 0.01 ? 1 + Math.floor(random() * 5) : 0);
    ids[index] = id;
  }
  return ids;
}

const entryJson = (id: number) =>
  `{"id":${id},"createdAt":${1_767_600_000_000 + id},"contentType":"application/xml","primaryKey":"${String(id).padStart(13, '0')}","messagingCreatorType":"REVIEW"}`;

/** The PDS of the benchmark: the listing (paged by limit/offset when asked), each asset, and its own counters. */
async function serve(count: number): Promise<void> {
  let ids = gappedIds(count);
  const stats = { listRequests: 0, listBytes: 0 };
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      res.destroy(error as Error);
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/stats') {
      res.end(JSON.stringify(stats));
      stats.listRequests = 0;
      stats.listBytes = 0;
      return;
    }
    if (url.pathname === '/append') {
      const more = Number(url.searchParams.get('count'));
      const next = new Float64Array(ids.length + more);
      next.set(ids);
      for (let index = 0; index < more; index++)
        next[ids.length + index] = (ids[ids.length - 1] ?? 0) + index + 1;
      ids = next;
      res.end('{}');
      return;
    }
    if (url.pathname.startsWith(LIST_PATH) && url.pathname.length > LIST_PATH.length) {
      res.setHeader('content-type', 'application/xml');
      res.end('<catalogueItemConfirmationMessage/>');
      return;
    }
    if (url.pathname !== LIST_PATH) {
      res.statusCode = 404;
      res.end();
      return;
    }
    stats.listRequests += 1;
    const limit = url.searchParams.has('limit') ? Number(url.searchParams.get('limit')) : ids.length;
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const end = Math.min(ids.length, offset + limit);
    res.setHeader('content-type', 'application/json');
    let first = true;
    const write = (text: string) => {
      stats.listBytes += Buffer.byteLength(text);
      return res.write(text);
    };
    write('[');
    for (let index = offset; index < end; index += 1000) {
      const parts: string[] = [];
      for (let each = index; each < Math.min(end, index + 1000); each++)
        parts.push(entryJson(ids[each] as number));
      if (!write(`${first ? '' : ','}${parts.join(',')}`)) await once(res, 'drain');
      first = false;
    }
    write(']');
    res.end();
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
}

/** One poller run in this process, as an invocation: prints its wall time, peak RSS and report. */
async function pollOnce(
  url: string,
  stateFile: string,
  paging: 'auto' | 'off',
  reference: boolean,
): Promise<void> {
  const pds = createPdsClient({ baseUrl: url, credentials: { username: 'bench', password: 'bench' } });
  const started = performance.now();
  let result: Record<string, unknown>;
  if (reference) {
    const listing = await pds.listMessagingAssets();
    result = { listed: listing.length };
  } else {
    const store = new MemoryStateStore();
    const saved = await readFile(stateFile, 'utf8').catch(() => undefined);
    if (saved !== undefined) await store.create(MESSAGING_ASSETS_CHECKPOINT, JSON.parse(saved));
    const events: CloudEvent[] = [];
    const sink = { publish: async (batch: readonly CloudEvent[]) => void events.push(...batch) };
    const report = await pollMessagingAssets({ pds, store, sink }, { paging, firstRun: 'now' });
    const stored = await store.get(MESSAGING_ASSETS_CHECKPOINT);
    const text = JSON.stringify(stored?.value);
    await writeFile(stateFile, text);
    result = { ...report, checkpointBytes: Buffer.byteLength(text) };
  }
  const wallMs = performance.now() - started;
  await pds.close();
  process.stdout.write(
    `${JSON.stringify({ wallMs, maxRssMiB: (process.resourceUsage().maxRSS * 1024) / MiB, ...result })}\n`,
  );
}

interface Child {
  child: ChildProcess;
  firstLine: Promise<string>;
}

function runSelf(args: string[]): Child {
  const child = spawn(process.execPath, [SELF, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const firstLine = new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const newline = seen.indexOf('\n');
      if (newline >= 0) resolve(seen.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`bench/scale/assets.ts ${args[0]} exited with ${code}`)));
  });
  return { child, firstLine };
}

interface RunFigures {
  wallMs: number;
  maxRssMiB: number;
  listed?: number;
  emitted?: number;
  listingRequests?: number;
  checkpointBytes?: number;
  emittedRanges?: number;
  emittedIds?: number;
}

async function runPoller(url: string, stateFile: string, paging: 'auto' | 'off', reference = false) {
  const run = runSelf([
    '--poll',
    url,
    '--state',
    stateFile,
    '--paging',
    paging,
    ...(reference ? ['--reference'] : []),
  ]);
  const line = await run.firstLine;
  if (run.child.exitCode === null) await once(run.child, 'exit');
  return JSON.parse(line) as RunFigures;
}

async function measureSize(count: number) {
  const server = runSelf(['--serve', String(count)]);
  const url = await server.firstLine;
  const stats = async () =>
    (await (await fetch(`${url}/stats`)).json()) as { listRequests: number; listBytes: number };
  const rows: Array<Array<string | number>> = [];
  try {
    for (const paging of ['off', 'auto'] as const) {
      const stateFile = path.join(tmpdir(), `scale-assets-${process.pid}-${count}-${paging}.json`);
      await rm(stateFile, { force: true });
      await runPoller(url, stateFile, paging); // first run `now`: records the listing as done
      await stats();
      const quiet = await runPoller(url, stateFile, paging);
      const quietStats = await stats();
      rows.push([
        count,
        paging === 'off' ? 'whole' : 'paged',
        'nothing new',
        (quiet.wallMs / 1000).toFixed(2),
        quiet.maxRssMiB.toFixed(0),
        quietStats.listRequests,
        quietStats.listBytes,
        quiet.emittedRanges ?? '',
        quiet.checkpointBytes ?? '',
      ]);
      if (paging === 'auto') {
        await fetch(`${url}/append?count=100`);
        const fresh = await runPoller(url, stateFile, paging);
        const freshStats = await stats();
        rows.push([
          count,
          'paged',
          `${fresh.emitted} new`,
          (fresh.wallMs / 1000).toFixed(2),
          fresh.maxRssMiB.toFixed(0),
          freshStats.listRequests,
          freshStats.listBytes,
          fresh.emittedRanges ?? '',
          fresh.checkpointBytes ?? '',
        ]);
      }
      await rm(stateFile, { force: true });
    }
    if (count <= REFERENCE_MAX) {
      const reference = await runPoller(url, '-', 'off', true);
      const referenceStats = await stats();
      rows.push([
        count,
        'reference: whole list read whole (before)',
        'listing only',
        (reference.wallMs / 1000).toFixed(2),
        reference.maxRssMiB.toFixed(0),
        referenceStats.listRequests,
        referenceStats.listBytes,
        '',
        '',
      ]);
    }
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  }
  return rows;
}

/** The record of emitted ids at the benchmark's gap model, built directly (no poller). */
function recordSizes(sizes: number[]): Array<Array<string | number>> {
  return sizes.map((count) => {
    const ids = gappedIds(count);
    const record = new IdRanges();
    const started = performance.now();
    for (const id of ids) record.add(id);
    const addMs = performance.now() - started;
    const bytes = Buffer.byteLength(JSON.stringify(record.encode()));
    return [count, record.rangeCount, (bytes / 1024).toFixed(0), ((addMs / count) * 1000).toFixed(3)];
  });
}

function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((part) => Number(part.trim()));
  if (sizes.some((size) => !Number.isSafeInteger(size) || size < 1 || size > 20_000_000)) {
    throw new Error(`--sizes must be a comma-separated list of integers 1..20000000, got '${text}'`);
  }
  return sizes;
}

export const section: ScaleSection = {
  summary:
    'messaging-asset poller: wall time, peak RSS, PDS requests and bytes per run with nothing new; record size',
  async run(argv) {
    const { values } = parseScriptArgs(
      {
        command: 'node bench/scale.ts assets',
        summary:
          'The messaging-asset poller with nothing new over N listed assets, the listing read whole and paged: wall time, peak RSS, PDS requests and bytes; the size of the record of emitted ids.',
        options: {
          sizes: {
            type: 'string',
            value: 'n,n,...',
            default: DEFAULT_SIZES,
            description: 'listed assets per measurement',
          },
        },
      },
      argv,
    );
    const sizes = parseSizes(values.sizes);
    process.stdout.write(
      'Targets: 5,000,000 listed, nothing new: peak RSS <= 256 MiB and one run well within the 300 s timeout; paged: <= 2 PDS requests and O(new) bytes.\n\n',
    );
    const rows: Array<Array<string | number>> = [];
    for (const size of sizes) rows.push(...(await measureSize(size)));
    printTable(
      [
        'listed',
        'listing read',
        'run',
        'wall s',
        'peak RSS MiB',
        'listing requests',
        'listing bytes',
        'record ranges',
        'checkpoint bytes',
      ],
      rows,
    );
    process.stdout.write('\nRecord of emitted ids (about 1 % of ids followed by a gap of 1-5):\n\n');
    printTable(['emitted ids', 'ranges', 'stored KiB', 'µs per add'], recordSizes(sizes));
  },
};

if (process.argv[1] === SELF) {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      poll: { type: 'string' },
      state: { type: 'string' },
      paging: { type: 'string' },
      reference: { type: 'boolean' },
    },
  });
  if (values.serve !== undefined) await serve(Number(values.serve));
  else if (values.poll !== undefined) {
    await pollOnce(
      values.poll,
      values.state ?? '-',
      values.paging === 'off' ? 'off' : 'auto',
      values.reference === true,
    );
  } else {
    process.stderr.write(
      'bench/scale/assets.ts is a section of bench/scale.ts: run node bench/scale.ts assets\n',
    );
    process.exitCode = 2;
  }
}
