/**
 * The ingest's content check read in this process, without an upload around it: MiB per CPU-second of
 * the check of a product CSV and of a product JSON file (UTF-8 and the format's check, as a dropped
 * file gets them), fed in 64 KiB chunks as an S3 stream gives them, against a plain JavaScript loop
 * that only adds up every byte, taking turns. CPU time, not wall time, so other work on the machine
 * moves the figures less; the byte loop in the same run says how fast this machine's core was.
 *
 *   node bench/content-check.ts [--mib 64] [--runs 5]
 */
import { byteCheckFor } from '../packages/bridge/src/ingest/content/check.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { MiB, median, PRODUCT_CSV_HEADER, printTable, productCsvRow, productJsonItem } from './support.ts';

const CHUNK_BYTES = 64 * 1024;

interface Reader {
  push(bytes: Uint8Array): void;
  finish(): unknown;
}

/** The rows of the upload benchmark's product CSV (bench/upload.ts), about `bytes` of them. */
function productCsv(bytes: number): Buffer {
  const rows = [PRODUCT_CSV_HEADER];
  for (let i = 0, written = 0; written < bytes; i++) {
    const row = productCsvRow(i);
    written += row.length;
    rows.push(row);
  }
  return Buffer.from(rows.join(''));
}

/** The same items as a JSON array of objects (bench/upload.ts --format json). */
function productJson(bytes: number): Buffer {
  const items: string[] = [];
  for (let i = 0, written = 0; written < bytes; i++) {
    const item = productJsonItem(i);
    written += item.length + 2;
    items.push(item);
  }
  return Buffer.from(`[\n${items.join(',\n')}\n]\n`);
}

/** A reader that looks at every byte and nothing more: the floor of a JavaScript byte-by-byte check. */
function byteLoop(): Reader {
  let sum = 0;
  return {
    push(bytes) {
      for (let i = 0; i < bytes.length; i++) sum = (sum + (bytes[i] as number)) | 0;
    },
    finish: () => (sum === -1 ? sum : undefined),
  };
}

/** MiB of `data` read per CPU-second by a fresh reader. */
function rate(data: Buffer, reader: () => Reader): number {
  const check = reader();
  const before = process.cpuUsage();
  for (let at = 0; at < data.length; at += CHUNK_BYTES) check.push(data.subarray(at, at + CHUNK_BYTES));
  const verdict = check.finish();
  const used = process.cpuUsage(before);
  if (verdict) throw new Error(`the check refused the benchmark's file: ${JSON.stringify(verdict)}`);
  return data.length / MiB / ((used.user + used.system) / 1e6);
}

function checkOf(name: string): () => Reader {
  return () => {
    const check = byteCheckFor(name);
    if (!check) throw new Error(`no content check for ${name}`);
    return check;
  };
}

const { values } = parseScriptArgs({
  command: 'node bench/content-check.ts',
  summary:
    "The ingest's content check in this process: MiB per CPU-second of the CSV and JSON checks against a plain byte loop, taking turns.",
  options: {
    mib: { type: 'string', default: '64', value: 'n', description: 'size of each file in MiB' },
    runs: { type: 'string', default: '5', value: 'n', description: 'runs of each reader' },
  },
});
const bytes = Number(values.mib) * MiB;
const runs = Number(values.runs);
const files = { csv: productCsv(bytes), json: productJson(bytes) };
const readers: Array<[string, Buffer, () => Reader]> = [
  ['plain byte loop (CSV bytes)', files.csv, byteLoop],
  ['CSV check (UTF-8, quotes, fields)', files.csv, checkOf('items.csv')],
  ['JSON check (UTF-8, well-formed, items)', files.json, checkOf('items.json')],
];
const rates = readers.map((): number[] => []);
for (let run = 0; run < runs; run++) {
  for (const [k, [, data, reader]] of readers.entries()) rates[k]?.push(rate(data, reader));
}
const loop = median(rates[0] ?? []);
process.stdout.write(
  `\nThe content check in one process, ${values.mib} MiB files in 64 KiB chunks, median of ${runs} runs (node ${process.version})\n\n`,
);
printTable(
  ['reader', 'MiB per CPU-second', '× the byte loop'],
  readers.map(([name], k) => {
    const value = median(rates[k] ?? []);
    return [name, value.toFixed(0), (value / loop).toFixed(2)];
  }),
);
