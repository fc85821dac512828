/**
 * Every script a user can run from bench/ and scripts/ answers `--help` with its usage and refuses an
 * unknown flag with one line naming the script and the flag (exit 2), never a stack trace; and the
 * shared parser (parseScriptArgs in packages/cli/src/command-line.ts) behind them.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type LineIo, parseScriptArgs, scriptUsage } from '../../packages/cli/src/command-line.ts';

const root = path.resolve(import.meta.dirname, '../..');
const runFile = promisify(execFile);

/** The scripts a user runs by hand (modules they import, and the children they spawn, are not listed). */
const SCRIPTS = [
  'bench/api.ts',
  'bench/chaos.ts',
  'bench/chaos/ingest.ts',
  'bench/chaos/pollers.ts',
  'bench/chaos/webhooks.ts',
  'bench/cold-start.ts',
  'bench/compare.ts',
  'bench/content-check.ts',
  'bench/costs.ts',
  'bench/ingest.ts',
  'bench/package.ts',
  'bench/poll.ts',
  'bench/scale.ts',
  'bench/sdk.ts',
  'bench/upload.ts',
  'bench/upload-client.ts',
  'bench/xml.ts',
  'scripts/build.ts',
  'scripts/build-consumer.ts',
  'scripts/drop.ts',
  'scripts/events.ts',
  'scripts/print-event-examples.ts',
  'scripts/schemas.ts',
];

async function run(script: string, flag: string) {
  try {
    const { stdout, stderr } = await runFile(process.execPath, [script, flag], {
      cwd: root,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

class Exit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
  }
}

function recordingIo(): LineIo & { out: (line: string) => void; lines: { out: string[]; err: string[] } } {
  const lines = { out: [] as string[], err: [] as string[] };
  return { lines, out: (line) => lines.out.push(line), err: (line) => lines.err.push(line) };
}

const spec = {
  command: 'node bench/example.ts',
  summary: 'Measures an example.',
  options: {
    runs: { type: 'string', default: '3', value: 'n', description: 'runs per size' },
    seed: { type: 'string', value: 'n', description: 'random seed' },
    quick: { type: 'boolean', description: 'a short run' },
  },
} as const;
const exit = (code: number): never => {
  throw new Exit(code);
};

describe('parseScriptArgs', () => {
  it('returns the values with their defaults', () => {
    const { values } = parseScriptArgs(spec, ['--seed', '7'], recordingIo(), exit);

    expect(values).toEqual({ runs: '3', seed: '7', quick: false });
  });

  it('prints the usage for --help, every flag with its default, and exits 0', () => {
    const io = recordingIo();

    expect(() => parseScriptArgs(spec, ['--help'], io, exit)).toThrow(new Exit(0));
    expect(io.lines.out).toEqual([scriptUsage(spec)]);
    expect(io.lines.out[0]).toMatch(/^Usage: node bench\/example\.ts \[options\]\n\nMeasures an example\./);
    expect(io.lines.out[0]).toMatch(/--runs <n>\s+runs per size \(default 3\)/);
    expect(io.lines.out[0]).toMatch(/--help\s+print this text/);
  });

  it('refuses an unknown flag, a missing value and a positional in one line naming the script, exit 2', () => {
    for (const argv of [['--bogus'], ['--runs'], ['extra']]) {
      const io = recordingIo();

      expect(() => parseScriptArgs(spec, argv, io, exit)).toThrow(new Exit(2));
      expect(io.lines.err).toHaveLength(1);
      expect(io.lines.err[0]).toMatch(/^bench\/example\.ts: .+ \(see --help\)$/);
    }
  });
});

describe('the scripts in bench/ and scripts/', () => {
  it('each parses its flags with parseScriptArgs (or, drop and events, their own strict parser)', async () => {
    for (const script of SCRIPTS) {
      const source = await readFile(path.join(root, script), 'utf8');

      expect(
        /parseScriptArgs\(|run(Drop|Events)Cli\(/.test(source) && !/from 'node:util'/.test(source),
        `${script} parses its arguments with parseScriptArgs`,
      ).toBe(true);
    }
  });

  // Spawning every script takes half a minute on a small machine; two of them, the example
  // and a script of scripts/, show the whole path (parse before any work, exit codes, streams).
  it.each(['bench/poll.ts', 'scripts/schemas.ts'])(
    '%s answers --help with its usage and refuses an unknown flag in one line',
    async (script) => {
      const help = await run(script, '--help');
      const bogus = await run(script, '--no-such-flag');

      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(new RegExp(`^Usage: node ${script} \\[options\\]`));
      expect(bogus).toMatchObject({ code: 2, stdout: '' });
      expect(bogus.stderr.trim().split('\n')).toEqual([
        // Exactly the flag, quotes balanced: not Node's hint about positionals (it quoted unevenly).
        `${script}: Unknown option '--no-such-flag' (see --help)`,
      ]);
    },
    30_000,
  );
});
