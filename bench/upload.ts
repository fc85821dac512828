/**
 * Streamed gathering upload: the pds-bridge client against `curl -F` to the same simulator, in the
 * same run. Each client upload runs in a fresh Node process so its peak RSS is the upload's alone.
 *
 *   node bench/upload.ts [--sizes 100,1024] [--runs 3]      sizes in MiB
 *
 * Prints throughput (MiB/s) of both, their ratio (target ≥ 0.8) and the client's peak RSS
 * (target: flat with size, under 150 MiB for 1 GiB).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

async function clientUpload(clientBundle: string, url: string, file: string): Promise<Measurement> {
  const child = spawn(process.execPath, [clientBundle, url, file], {
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
      sizes: { type: 'string', default: '100,1024', value: 'MiB,...', description: 'file sizes' },
      runs: { type: 'string', default: '3', value: 'n', description: 'runs per size' },
    },
  });
  const sizes = values.sizes.split(',').map(Number);
  const runs = Number(values.runs);
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

await main();
