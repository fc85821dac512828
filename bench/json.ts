/**
 * The cost of reading outside JSON exactly (packages/bridge/src/core/json.ts): `parseJson` against `JSON.parse`, at
 * three sizes, for three kinds of text.
 *
 *   node bench/json.ts [--entries 100,1000,10000] [--rounds 9] [--ms 150]
 *
 * Kinds: `plain` (no backslash: the common case, one `includes` on top of JSON.parse), `escaped
 * values` (backslashes only in values: one scan of the strings, then JSON.parse) and `escaped keys`
 * (read by @streamparser/json, which the engine defect cannot touch). Each text is an array of
 * `entries` objects shaped like PDS items. Prints the median MiB/s of each reader and parseJson's
 * rate as a ratio of JSON.parse's.
 */

import { parseJson } from '../packages/bridge/src/core/index.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { MiB, median, printTable } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/json.ts',
  summary: 'What reading outside JSON exactly costs: parseJson against JSON.parse, at three sizes.',
  options: {
    entries: { type: 'string', default: '100,1000,10000', value: 'n,n,n', description: 'objects per text' },
    rounds: { type: 'string', default: '9', value: 'n', description: 'rounds; each runs both readers' },
    ms: { type: 'string', default: '150', value: 'ms', description: 'CPU time per reader and round' },
  },
});
const SIZES = String(values.entries).split(',').map(Number);
const ROUNDS = Number(values.rounds);
const CPU_MS = Number(values.ms);

function text(entries: number, kind: 'plain' | 'escaped values' | 'escaped keys'): string {
  const items = Array.from({ length: entries }, (_, index) => {
    const name = kind === 'plain' ? `Item ${index}` : `Item "${index}"\n`;
    const key = kind === 'escaped keys' ? 'descripci\u00f3n' : 'description';
    return {
      primaryKey__: String(index).padStart(14, '0'),
      gtin: String(4012345678901 + index),
      [key]: name,
      netContent: { value: index % 100, unit: 'GRM' },
      tags: ['a', 'b', 'c'],
    };
  });
  const json = JSON.stringify(items);
  // JSON.stringify writes ó as it is; an escape is what a sender with ASCII-only output writes.
  return kind === 'escaped keys' ? json.replaceAll('descripci\u00f3n', 'descripci\\u00f3n') : json;
}

function rate(read: (text: string) => unknown, input: string): number {
  const started = process.cpuUsage();
  let bytes = 0;
  for (;;) {
    read(input);
    bytes += input.length;
    const used = process.cpuUsage(started);
    const ms = (used.user + used.system) / 1000;
    if (ms >= CPU_MS) return bytes / MiB / (ms / 1000);
  }
}

const rows: Array<Array<string | number>> = [];
for (const kind of ['plain', 'escaped values', 'escaped keys'] as const) {
  for (const entries of SIZES) {
    const input = text(entries, kind);
    const native: number[] = [];
    const exact: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      native.push(rate(JSON.parse, input));
      exact.push(rate(parseJson, input));
    }
    const nativeRate = median(native);
    const exactRate = median(exact);
    rows.push([
      kind,
      entries,
      (input.length / 1024).toFixed(0),
      nativeRate.toFixed(0),
      exactRate.toFixed(0),
      (exactRate / nativeRate).toFixed(2),
    ]);
  }
}
printTable(['text', 'entries', 'KiB', 'JSON.parse MiB/s', 'parseJson MiB/s', 'ratio'], rows);
