/**
 * The chaos runs, one after the other: ingest (bench/chaos/ingest.ts) and the pollers
 * (bench/chaos/pollers.ts) of issue 11, the confirmation ledger (bench/chaos/confirmations.ts) of issue 22, the webhooks (bench/chaos/webhooks.ts) of issue 33. Each prints its own table, targets and JSON line; this exits 1 when either
 * missed a target. Not part of `npm test`; everything runs on 127.0.0.1 and stops by itself.
 *
 *   node bench/chaos.ts [--only ingest|pollers|confirmations|webhooks] [--quick] [--seed N]
 *
 * For every other flag, run the part itself (`node bench/chaos/ingest.ts --help` shows its flags).
 * Each part runs in a process of its own, so one part's servers and workers never share the machine
 * with the other's.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';

const PARTS = {
  ingest: 'chaos/ingest.ts',
  pollers: 'chaos/pollers.ts',
  confirmations: 'chaos/confirmations.ts',
  webhooks: 'chaos/webhooks.ts',
} as const;
type Part = keyof typeof PARTS;

const { values } = parseScriptArgs({
  command: 'node bench/chaos.ts',
  summary:
    'The chaos runs, one after the other: ingest and the pollers under faults, duplicates and kills (on 127.0.0.1). Exits 1 when either missed a target; node bench/chaos/ingest.ts --help and node bench/chaos/pollers.ts --help show every flag of a part.',
  options: {
    only: {
      type: 'string',
      value: 'ingest|pollers|confirmations|webhooks',
      description: 'run one part only',
    },
    quick: { type: 'boolean', description: 'a short smoke run of each part' },
    seed: { type: 'string', value: 'n', description: 'the random seed of both parts' },
  },
});

function partsToRun(only: string | undefined): Part[] {
  if (only === undefined) return ['ingest', 'pollers', 'confirmations', 'webhooks'];
  if (only in PARTS) return [only as Part];
  console.error(`--only must be one of ${Object.keys(PARTS).join(', ')}, got ${JSON.stringify(only)}`);
  process.exit(2);
}

const forwarded = [...(values.quick ? ['--quick'] : []), ...(values.seed ? ['--seed', values.seed] : [])];
const failed: Part[] = [];
for (const part of partsToRun(values.only)) {
  console.log(`\n=== chaos ${part} ===`);
  const child = spawn(process.execPath, [path.join(import.meta.dirname, PARTS[part]), ...forwarded], {
    stdio: 'inherit',
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) failed.push(part);
}
console.log(
  failed.length === 0 ? '\nchaos: every target met' : `\nchaos: targets missed in ${failed.join(', ')}`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
