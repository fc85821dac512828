/**
 * Streamed gathering upload: the pds-bridge client against `curl -F` to the same simulator, in the
 * same run. Each client upload runs in a fresh Node process so its peak RSS is the upload's alone.
 *
 *   node bench/upload.ts [--sizes 100,1024] [--runs 3]      sizes in MiB
 *
 *   node bench/upload.ts --content-check [--sizes 16,64,256] [--runs 3]
 *
 * Prints throughput (MiB/s) of both, their ratio (target ≥ 0.8) and the client's peak RSS
 * (target: flat with size, under 150 MiB for 1 GiB). With `--content-check` it uploads a product CSV
 * streamed as the ingest streams an S3 object, through the ingest's content check and without it,
 * alternately: the check's cost in throughput (target ≤ 5 %).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import {
  bundleForNode,
  MiB,
  median,
  printTable,
  removeQuietly,
  runCommand,
  startSimulatorProcess,
  writePatternFile,
} from './support.ts';

const CREDENTIALS = { username: 'demo', password: 'demo' };

interface Measurement {
  seconds: number;
  maxRssMiB?: number;
}

async function clientUpload(
  clientBundle: string,
  url: string,
  file: string,
  check?: 'on' | 'off',
): Promise<Measurement> {
  const child = spawn(process.execPath, [clientBundle, url, file, ...(check ? ['--check', check] : [])], {
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
        description: "the ingest's content check on against off, on a product CSV, instead of curl",
      },
    },
  });
  const checkMode = values['content-check'] === true;
  const sizes = (values.sizes ?? (checkMode ? '16,64,256' : '100,1024')).split(',').map(Number);
  const runs = Number(values.runs);
  if (checkMode) {
    await compareContentCheck(sizes, runs);
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
      const client: Measurement[] = [];
      const curl: Measurement[] = [];
      // Alternate the two so that drift on a shared machine affects both alike.
      for (let run = 0; run < runs; run++) {
        client.push(await clientUpload(clientBundle, simulator.url, file));
        curl.push(await curlUpload(simulator.url, file));
      }
      const clientRate = sizeMiB / median(client.map((m) => m.seconds));
      const curlRate = sizeMiB / median(curl.map((m) => m.seconds));
      rows.push([
        `${sizeMiB} MiB`,
        clientRate.toFixed(1),
        curlRate.toFixed(1),
        (clientRate / curlRate).toFixed(2),
        Math.max(...client.map((m) => m.maxRssMiB ?? 0)).toFixed(0),
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

/** A product CSV of about `bytes`: every row with quoted text, separators and doubled quotes inside. */
async function writeProductCsv(file: string, bytes: number): Promise<void> {
  async function* blocks() {
    yield 'primaryKey__,name,description,netContent,price\n';
    let written = 0;
    for (let row = 0; written < bytes; row += 1000) {
      let block = '';
      for (let i = row; i < row + 1000; i++) {
        block += `${4006381333931 + i},"Still water ${i}","Natural mineral water, still; bottled at source ""Quelle ${i % 97}""",0.5 l,${(i % 300) / 100}\n`;
      }
      written += Buffer.byteLength(block);
      yield block;
    }
  }
  await pipeline(blocks(), createWriteStream(file));
}

/** The content check's cost: the same streamed upload with the check and without, alternately. */
async function compareContentCheck(sizes: number[], runs: number): Promise<void> {
  const simulator = await startSimulatorProcess();
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-upload-check-'));
  const clientBundle = await bundleForNode(path.join(import.meta.dirname, 'upload-client.ts'), dir);
  const rows: Array<Array<string | number>> = [];
  try {
    for (const sizeMiB of sizes) {
      const file = path.join(dir, `products-${sizeMiB}MiB.csv`);
      await writeProductCsv(file, sizeMiB * MiB);
      const off: Measurement[] = [];
      const on: Measurement[] = [];
      // Alternate the two so that drift on a shared machine affects both alike.
      for (let run = 0; run < runs; run++) {
        off.push(await clientUpload(clientBundle, simulator.url, file, 'off'));
        on.push(await clientUpload(clientBundle, simulator.url, file, 'on'));
      }
      const offRate = sizeMiB / median(off.map((m) => m.seconds));
      const onRate = sizeMiB / median(on.map((m) => m.seconds));
      rows.push([
        `${sizeMiB} MiB`,
        offRate.toFixed(1),
        onRate.toFixed(1),
        `${((1 - onRate / offRate) * 100).toFixed(1)} %`,
        Math.max(...on.map((m) => m.maxRssMiB ?? 0)).toFixed(0),
      ]);
      await removeQuietly(file);
    }
  } finally {
    await simulator.stop();
    await removeQuietly(dir);
  }
  process.stdout.write(
    `\nStreamed CSV upload with the ingest's content check off and on, median of ${runs} runs each (node ${process.version})\n\n`,
  );
  printTable(['size', 'check off MiB/s', 'check on MiB/s', 'cost', 'peak RSS MiB (on)'], rows);
}

await main();
