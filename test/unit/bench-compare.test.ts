/**
 * bench/compare.ts reads the figures of the benches' Markdown tables and compares them run by run:
 * what a developer reads before saying "no slower".
 */
import { describe, expect, it } from 'vitest';
import { type Collected, compareRows, crashReason, figuresOf } from '../../bench/compare.ts';

const output = (seconds: string, requests: string) => `
Streamed upload, median of 1 runs each

| phase   | seconds    | PDS requests | S3 GET/PUT/LIST | ratio | ratio |
| ------- | ---------- | ------------ | --------------- | ----- | ----- |
| backlog | ${seconds} | ${requests}  | 1/80/0          | -     | 0.50  |
total wall time 3.1 s
`;

describe('bench:compare', () => {
  it('takes every number of a table by row and column, and nothing else', () => {
    const figures = figuresOf(output('4.82', '2002'));

    expect([...figures]).toEqual([
      ['backlog · seconds', 4.82],
      ['backlog · PDS requests', 2002],
      ['backlog · ratio (2)', 0.5],
    ]);
  });

  it('lists a changed figure with its medians, ratio and spread, and counts the unchanged ones', () => {
    const collected: Collected = {
      base: ['4.00', '5.00', '4.50'].map((s) => figuresOf(output(s, '2002'))),
      head: ['2.00', '3.00', '2.25'].map((s) => figuresOf(output(s, '2002'))),
      errors: [],
    };

    const { rows, equal } = compareRows('poll', collected);

    expect(rows).toEqual([['poll', 'backlog · seconds', '4.5', '2.25', '0.50', '0.50–0.60', 'apart']]);
    expect(equal).toBe(2);
  });

  it("names a base's crash by the error Node printed, not by the error's closing fields", () => {
    const stderr = [
      'node:fs:483',
      '    return binding.readFileUtf8(path, stringToFlags(options.flag));',
      '                   ^',
      '',
      "Error: ENOENT: no such file or directory, open '/tmp/base/shared/fixtures/gdsn/a.xml'",
      '    at readFileSync (node:fs:483:20)',
      '    at file:///tmp/base/bench/poll.ts:61:3 {',
      '  errno: -2,',
      "  code: 'ENOENT',",
      '}',
      '',
      'Node.js v24.21.0',
    ].join('\n');

    expect(crashReason(stderr)).toBe(
      "Error: ENOENT: no such file or directory, open '/tmp/base/shared/fixtures/gdsn/a.xml'",
    );
    expect(crashReason('the simulator did not start\nwithin 30 s\n')).toBe(
      'the simulator did not start within 30 s',
    );
  });
});
