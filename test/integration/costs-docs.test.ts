/**
 * docs/costs.md's fixed-cost table is what bench/costs.ts counts in the packaged template (default
 * parameters): the alarms, dashboards and secrets, each with its price. A change that adds an alarm
 * fails here until the table (`node bench/costs.ts` prints it) is regenerated. Its ledger tables are
 * what bench/costs/confirmations.ts counts today, so a change that adds requests to the ledger fails
 * here until they are regenerated.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FixedCostRow, fixedCosts } from '../../bench/costs/model.ts';
import { packageService } from '../helpers/serverless.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The rows of the markdown table that follows `heading` (a line of text), as cells. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  if (start === -1) throw new Error(`docs/costs.md no longer has "${heading}"`);
  const lines = markdown.slice(start).split('\n').slice(1);
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(2); // header and rule
}

const usd = (value: number) => `$${value.toFixed(2)}`;
const asCells = (rows: readonly FixedCostRow[]) =>
  rows.map(({ resource, count, price }) => [resource, String(count), usd(price), usd(count * price)]);

let expected: FixedCostRow[];
let docs: string;

beforeAll(async () => {
  docs = await readFile(path.join(root, 'docs/costs.md'), 'utf8');
  expected = fixedCosts((await packageService()).Resources);
}, 240_000);

describe('docs/costs.md', () => {
  it('shows the fixed costs of the packaged template as bench/costs.ts counts them', () => {
    expect(expected[0]?.count).toBeGreaterThan(0);
    expect(tableAfter(docs, 'Fixed monthly costs of the packaged template')).toEqual(asCells(expected));
  });

  it('rounds the same fixed total in its summary', () => {
    const fixed = expected.reduce((sum, row) => sum + row.count * row.price, 0);
    expect(docs).toContain(`and $${Math.round(fixed)} of fixed costs`);
  });

  it("shows the confirmation ledger's requests and month as bench/costs/confirmations.ts counts them", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bench/costs/confirmations.ts'], {
      cwd: root,
      timeout: 60_000,
    });
    const printed = stdout.split('\n').filter((line) => line.startsWith('|'));
    expect(printed.length).toBeGreaterThan(10);
    const documented = new Set(docs.split('\n'));
    expect(printed.filter((line) => !documented.has(line))).toEqual([]);
  });
});
