/**
 * Shared pieces of the benchmarks: child processes for the servers (so the measured process holds
 * only what it measures), deterministic test files, and figure formatting.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { build } from 'esbuild';
import { nodeBundleOptions } from '../scripts/bundle-options.ts';

export const root = path.resolve(import.meta.dirname, '..');
export const MiB = 1024 * 1024;

export interface ChildServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A server in a child process, once it printed its address (`addressIn` finds it in what the child
 * printed so far), and how to stop it.
 */
async function childServer(
  child: ChildProcess,
  name: string,
  addressIn: (printed: string) => string | undefined,
): Promise<ChildServer> {
  const url = await new Promise<string>((resolve, reject) => {
    let printed = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const address = addressIn(printed);
      if (address) resolve(address);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
  child.stdout?.resume();
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Starts `pds-simulator` on a free port in its own process and waits for its address line. */
export function startSimulatorProcess(args: string[] = []): Promise<ChildServer> {
  const simulator = path.join(root, 'packages/simulator/bin/pds-simulator.mjs');
  const child = spawn(process.execPath, [simulator, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return childServer(child, 'pds-simulator', (printed) => /http:\/\/127\.0\.0\.1:\d+/.exec(printed)?.[0]);
}

/**
 * The S3 + SQS emulator (bench/ingest/fauxqs-server.ts) in its own process, so that its CPU and memory
 * are not the measured process's; it prints `{"url": ...}` once ready.
 */
export function startFauxqsProcess(): Promise<ChildServer> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'ingest/fauxqs-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return childServer(child, 'the emulator', (printed) => {
    const line = printed
      .split('\n')
      .slice(0, -1)
      .find((each) => each.startsWith('{'));
    return line === undefined ? undefined : (JSON.parse(line) as { url: string }).url;
  });
}

/** The content-check benchmarks' product CSV: its header, and row `i` (quoted text with a separator and doubled quotes inside). */
export const PRODUCT_CSV_HEADER = 'primaryKey__,name,description,netContent,price\n';
export function productCsvRow(i: number): string {
  return `${4006381333931 + i},"Still water ${i}","Natural mineral water, still; bottled at source ""Quelle ${i % 97}""",0.5 l,${(i % 300) / 100}\n`;
}

/**
 * The same item as a JSON object (string fields, escaped quotes in one, a number): the product JSON
 * file is `[\n` + items joined by `,\n` + `\n]\n`.
 */
export function productJsonItem(i: number): string {
  return `{"primaryKey__":"${4006381333931 + i}","name":"Still water ${i}","description":"Natural mineral water, still; bottled at source \\"Quelle ${i % 97}\\"","netContent":"0.5 l","price":${(i % 300) / 100}}`;
}

/** Writes `bytes` of a repeating, non-compressible-looking pattern to `file`. */
export async function writePatternFile(file: string, bytes: number): Promise<void> {
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
  async function* blocks() {
    for (let written = 0; written < bytes; written += block.length) {
      yield written + block.length <= bytes ? block : block.subarray(0, bytes - written);
    }
  }
  await pipeline(blocks(), createWriteStream(file));
}

export async function removeQuietly(file: string): Promise<void> {
  await rm(file, { force: true, recursive: true });
}

/** Runs a command to its end: its exit code, or the signal that stopped it, and what it wrote. */
export async function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const timer =
    options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, out, err };
}

/** Runs a command and resolves with its stdout; rejects with its stderr on a non-zero exit. */
export async function runCommand(command: string, args: string[]): Promise<string> {
  const { code, out, err } = await runProcess(command, args);
  if (code !== 0) throw new Error(`${command} exited with ${code}: ${err.trim()}`);
  return out;
}

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

/**
 * The values of `sorted` between which its median lies with about 95 % confidence: the order
 * statistics n/2 ∓ 1.96·√n/2 (1-based ranks, rounded outwards).
 */
export function medianInterval(sorted: readonly number[]): [number, number] {
  const n = sorted.length;
  const reach = 0.98 * Math.sqrt(n);
  const low = Math.max(1, Math.floor(n / 2 - reach));
  const high = Math.min(n, Math.ceil(1 + n / 2 + reach));
  return [sorted[low - 1] as number, sorted[high - 1] as number];
}

/** The value below which a fraction `q` of `values` lies, between the two nearest where it falls between them. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = sorted[Math.floor(at)] as number;
  const above = sorted[Math.ceil(at)] as number;
  return below + (above - below) * (at - Math.floor(at));
}

/** Prints rows as an aligned Markdown table, ready for docs/benchmarks.md. */
export function printTable(headers: string[], rows: Array<Array<string | number>>): void {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  process.stdout.write(`${line(headers)}\n| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |\n`);
  for (const row of cells.slice(1)) process.stdout.write(`${line(row)}\n`);
}

/** Bundles an entry point as the shipped bundles are built (scripts/bundle-options.ts) into `outDir`; returns the file. */
export async function bundleForNode(entry: string, outDir: string): Promise<string> {
  const outfile = path.join(outDir, `${path.basename(entry, '.ts')}.mjs`);
  await build(nodeBundleOptions(entry, outfile));
  return outfile;
}
