/**
 * docs/benchmarks.md is read by people outside the project's tracker: a section names the work it
 * measures ("the poller CPU work"), never an internal work number ("issue 30").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FILE = join(import.meta.dirname, '..', '..', 'docs', 'benchmarks.md');

describe('docs/benchmarks.md', () => {
  it('cites no internal work numbers', () => {
    // act
    const cited = readFileSync(FILE, 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        /\bissues? \d+/i.test(line) ? [`docs/benchmarks.md:${index + 1}: ${line}`] : [],
      );

    // assess
    expect(cited, 'name the work instead ("the poller CPU work", "the slow lane")').toEqual([]);
  });
});
