/**
 * Streamed gathering upload: the pds-bridge client against `curl -F` to the same simulator, in the
 * same run. Each client upload runs in a fresh Node process so its peak RSS is the upload's alone.
 *
 *   node bench/upload.ts [--sizes 100,1024] [--runs 3]      sizes in MiB
 *
 *   node bench/upload.ts --content-check [--format csv|json] [--sizes 16,64,256] [--runs 3] [--warm]
 *                        [--source http|file]
 *
 * Prints throughput (MiB/s) of both, their ratio (target ≥ 0.8) and the client's peak RSS
 * (target: flat with size, under 150 MiB for 1 GiB). With `--content-check` it uploads a product CSV
 * (with `--format json`, the same items as a JSON array of objects) streamed as the ingest streams an S3 object, through the ingest's content check and without it,
 * alternately: the check's cost in throughput (target ≤ 5 %; from the medians of each, and as the
 * median of each run's pair of uploads, with the middle half of the runs and the median's 95 % interval), and in the client's CPU time per MiB
 * (steadier than MiB/s when other work shares the cores: the upload is CPU-bound on one core). Each
 * upload runs in a fresh process, so the smaller sizes carry the JIT's warm-up of the check's code;
 * `--warm` measures each after one unmeasured upload in the same process, as a function that has
 * handled a file before. The product file reaches the client as an S3 object's body does, the answer
 * of a GET (served by this process); `--source file` has the client read it from disk instead, where
 * libuv's thread pool writes each chunk on another thread and the check's first read of it costs
 * about twice the check's own work (docs/benchmarks.md, "The content check's source").
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import {
  bundleForNode,
  MiB,
  median,
  medianInterval,
  PRODUCT_CSV_HEADER,
  printTable,
  productCsvRow,
  productJsonItem,
  quantile,
  removeQuietly,
  runCommand,
  startSimulatorProcess,
  writePatternFile,
} from './support.ts';

const CREDENTIALS = { username: 'demo', password: 'demo' };

interface Measurement {
  seconds: number;
  /** The client process's CPU time (user + system) during the upload, where it reports it. */
  cpuSeconds?: number;
  maxRssMiB?: number;
}

async function clientUpload(
  clientBundle: string,
  url: string,
  file: string,
  check?: 'on' | 'off',
  warm = false,
): Promise<Measurement> {
  const args = [clientBundle, url, file, ...(check ? ['--check', check] : []), ...(warm ? ['--warm'] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`client upload exited with ${code}`);
  return JSON.parse(out.trim()) as Measurement;
}

async function curlUpload(url: string, file: string): Promise<Measurement> {
  const out = await runCommand('curl', [
    '--silent',
    '--show-error',
    '--fail',
    '--user',
    `${CREDENTIALS.username}:${CREDENTIALS.password}`,
    '--form',
    `file=@${file}`,
    '--output',
    '/dev/null',
    '--write-out',
    '%{time_total}',
    `${url}/api/v1/gatherings`,
  ]);
  return { seconds: Number(out.trim()) };
}

interface Rate {
  /** Median MiB/s. */
  rate: number;
  /** Median CPU milliseconds the client spent per MiB. */
  cpuMsPerMiB: number;
  peakRssMiB: number;
}

/**
 * Runs two uploads `runs` times each, taking turns so that drift on a shared machine affects both
 * alike, and swapping which goes first every run (the upload just before leaves the simulator's
 * writes to flush): the median MiB/s of each, its peak RSS, and each run's second time ÷ its first
 * (steadier than the medians' ratio: the two uploads of one run share the machine's state of that
 * minute).
 */
async function alternately(
  sizeMiB: number,
  runs: number,
  [first, second]: [() => Promise<Measurement>, () => Promise<Measurement>],
): Promise<[Rate, Rate, number[]]> {
  const firsts: Measurement[] = [];
  const seconds: Measurement[] = [];
  for (let run = 0; run < runs; run++) {
    if (run % 2 === 0) {
      firsts.push(await first());
      seconds.push(await second());
    } else {
      seconds.push(await second());
      firsts.push(await first());
    }
  }
  const rateOf = (measured: Measurement[]): Rate => ({
    rate: sizeMiB / median(measured.map((m) => m.seconds)),
    cpuMsPerMiB: (1000 * median(measured.map((m) => m.cpuSeconds ?? 0))) / sizeMiB,
    peakRssMiB: Math.max(...measured.map((m) => m.maxRssMiB ?? 0)),
  });
  const timeRatios = seconds.map((m, run) => m.seconds / (firsts[run] as Measurement).seconds);
  return [rateOf(firsts), rateOf(seconds), timeRatios];
}

async function main(): Promise<void> {
  const { values } = parseScriptArgs({
    command: 'node bench/upload.ts',
    summary:
      "Streamed gathering upload: the pds-bridge client against curl -F to the same simulator, in the same run: MiB/s of both, their ratio and the client's peak RSS.",
    options: {
      sizes: {
        type: 'string',
        value: 'MiB,...',
        description: 'file sizes (default 100,1024; with --content-check 16,64,256)',
      },
      runs: { type: 'string', default: '3', value: 'n', description: 'runs per size' },
      'content-check': {
        type: 'boolean',
        description: "the ingest's content check on against off, on a product file, instead of curl",
      },
      warm: {
        type: 'boolean',
        description:
          'with --content-check: each client process uploads the file once unmeasured first, as a function that has handled a file before (JIT warm)',
      },
      source: {
        type: 'string',
        default: 'http',
        value: 'http|file',
        description:
          "with --content-check: the product file streamed to the client as an S3 object's body is (a GET's answer), or read from disk",
      },
      format: {
        type: 'string',
        default: 'csv',
        value: 'csv|json',
        description: 'with --content-check: the product file as CSV rows or as a JSON array of item objects',
      },
    },
  });
  const format = values.format;
  if (format !== 'csv' && format !== 'json') {
    process.stderr.write(`bench/upload.ts: --format must be csv or json, got ${JSON.stringify(format)}\n`);
    process.exit(2);
  }
  const source = values.source;
  if (source !== 'http' && source !== 'file') {
    process.stderr.write(`bench/upload.ts: --source must be http or file, got ${JSON.stringify(source)}\n`);
    process.exit(2);
  }
  const checkMode = values['content-check'] === true;
  const sizes = (values.sizes ?? (checkMode ? '16,64,256' : '100,1024')).split(',').map(Number);
  const runs = Number(values.runs);
  if (checkMode) {
    await compareContentCheck(sizes, runs, format, values.warm === true, source);
    return;
  }
  const simulator = await startSimulatorProcess();
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-upload-'));
  // The client runs bundled, as it does in Lambda (Node's TypeScript stripping alone costs ~40 MiB of RSS).
  const clientBundle = await bundleForNode(path.join(import.meta.dirname, 'upload-client.ts'), dir);
  const rows: Array<Array<string | number>> = [];
  try {
    for (const sizeMiB of sizes) {
      const file = path.join(dir, `payload-${sizeMiB}MiB.bin`);
      await writePatternFile(file, sizeMiB * MiB);
      const [client, curl] = await alternately(sizeMiB, runs, [
        () => clientUpload(clientBundle, simulator.url, file),
        () => curlUpload(simulator.url, file),
      ]);
      rows.push([
        `${sizeMiB} MiB`,
        client.rate.toFixed(1),
        curl.rate.toFixed(1),
        (client.rate / curl.rate).toFixed(2),
        client.peakRssMiB.toFixed(0),
      ]);
      await removeQuietly(file);
    }
  } finally {
    await simulator.stop();
    await removeQuietly(dir);
  }
  process.stdout.write(`\nStreamed upload, median of ${runs} runs each (node ${process.version})\n\n`);
  printTable(['size', 'pds-bridge MiB/s', 'curl -F MiB/s', 'ratio', 'client peak RSS MiB'], rows);
}

/**
 * A product file of about `bytes`: CSV rows with quoted text, separators and doubled quotes inside,
 * or the same items as a JSON array of objects with escaped quotes in a string.
 */
async function writeProductFile(file: string, bytes: number, format: 'csv' | 'json'): Promise<void> {
  const [head, item, between, tail] =
    format === 'csv' ? [PRODUCT_CSV_HEADER, productCsvRow, '', ''] : ['[\n', productJsonItem, ',\n', '\n]\n'];
  async function* blocks() {
    yield head;
    let written = 0;
    for (let row = 0; written < bytes; row += 1000) {
      let block = '';
      for (let i = row; i < row + 1000; i++) {
        block += `${i === 0 ? '' : between}${item(i)}`;
      }
      written += Buffer.byteLength(block);
      yield block;
    }
    yield tail;
  }
  await pipeline(blocks(), createWriteStream(file));
}

/** Serves the files of `dir` by name, as an S3 endpoint serves objects: one GET streams one whole file. */
async function serveFiles(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const file = path.join(dir, path.basename(req.url ?? ''));
    try {
      res.writeHead(200, { 'content-length': (await stat(file)).size });
      await pipeline(createReadStream(file), res);
    } catch {
      if (!res.headersSent) res.writeHead(404);
      res.end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The cost in throughput from each run's pair of uploads (time with ÷ time without): the median, the
 * middle half of the runs, and where the median itself lies with 95 % confidence (between two of the
 * sorted pairs, by their ranks alone), so that a cost within the runs' spread reads as such and a
 * cost near a target shows whether the runs can tell which side it is on.
 */
function pairCost(timeRatios: number[]): string {
  const sorted = [...timeRatios].sort((a, b) => a - b);
  const cost = (ratio: number) => `${((1 - 1 / ratio) * 100).toFixed(1)}`;
  const [low, high] = medianInterval(sorted);
  const middle = `${cost(quantile(sorted, 0.25))} to ${cost(quantile(sorted, 0.75))}`;
  return `${cost(quantile(sorted, 0.5))} % (${middle}; median ${cost(low)} to ${cost(high)})`;
}

/** The content check's cost: the same streamed upload with the check and without, alternately. */
async function compareContentCheck(
  sizes: number[],
  runs: number,
  format: 'csv' | 'json',
  warm: boolean,
  source: 'http' | 'file',
): Promise<void> {
  const simulator = await startSimulatorProcess();
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-upload-check-'));
  const files = source === 'http' ? await serveFiles(dir) : undefined;
  const clientBundle = await bundleForNode(path.join(import.meta.dirname, 'upload-client.ts'), dir);
  const rows: Array<Array<string | number>> = [];
  try {
    for (const sizeMiB of sizes) {
      const name = `products-${sizeMiB}MiB.${format}`;
      const file = path.join(dir, name);
      await writeProductFile(file, sizeMiB * MiB, format);
      const from = files ? `${files.url}/${name}` : file;
      const [off, on, timeRatios] = await alternately(sizeMiB, runs, [
        () => clientUpload(clientBundle, simulator.url, from, 'off', warm),
        () => clientUpload(clientBundle, simulator.url, from, 'on', warm),
      ]);
      rows.push([
        `${sizeMiB} MiB`,
        off.rate.toFixed(1),
        on.rate.toFixed(1),
        `${((1 - on.rate / off.rate) * 100).toFixed(1)} %`,
        pairCost(timeRatios),
        off.cpuMsPerMiB.toFixed(2),
        on.cpuMsPerMiB.toFixed(2),
        `${((on.cpuMsPerMiB / off.cpuMsPerMiB - 1) * 100).toFixed(1)} %`,
        on.peakRssMiB.toFixed(0),
      ]);
      await removeQuietly(file);
    }
  } finally {
    await files?.close();
    await simulator.stop();
    await removeQuietly(dir);
  }
  process.stdout.write(
    `\nStreamed ${format.toUpperCase()} upload with the ingest's content check off and on, the file ${source === 'http' ? "streamed as a GET's answer (as an S3 object's body)" : 'read from disk'}, median of ${runs} runs each${warm ? ', each after one unmeasured upload in the same process' : ', each in a fresh process'} (node ${process.version})\n\n`,
  );
  printTable(
    [
      'size',
      'check off MiB/s',
      'check on MiB/s',
      'cost',
      'cost, median of the runs (middle half; 95 % interval of the median)',
      'client CPU ms/MiB (off)',
      'client CPU ms/MiB (on)',
      'CPU cost',
      'peak RSS MiB (on)',
    ],
    rows,
  );
}

await main();
