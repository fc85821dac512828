/**
 * Property tier (issue 21): command-line arguments of `pds`, as anyone can type them. No PDS is
 * configured (no PDS_BASE_URL, `--base-url` never generated), so every command ends before the
 * network; `pds bridge …` (AWS calls) is left out. Budgets and replay: test/helpers/property.ts.
 */
import { PassThrough, Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../packages/bridge/src/core/index.ts';
import { integerFlag, listFlag, trueFalseFlag } from '../../packages/cli/src/args.ts';
import { COMMANDS } from '../../packages/cli/src/commands/index.ts';
import type { CliIo } from '../../packages/cli/src/io.ts';
import { runCli } from '../../packages/cli/src/main.ts';
import { parseStartArgs } from '../../packages/local/src/cli.ts';
import { parseDropArgs } from '../../packages/local/src/drop-cli.ts';
import { parseEventsArgs } from '../../packages/local/src/events-cli.ts';
import { parseCliArgs } from '../../packages/simulator/src/cli.ts';
import { holds, hostileString, withinTimeBudgetAsync } from '../helpers/property.ts';

const words = [...new Set(COMMANDS.flatMap((command) => command.name.split(' ')))].filter(
  (word) => word !== 'bridge',
);
const flags = [
  ...new Set(
    COMMANDS.flatMap((command) => Object.keys(command.options ?? {})).filter((name) => name !== 'base-url'),
  ),
].flatMap((name) => [`--${name}`, `--${name}=`]);
const token = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...words) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...flags,
      '--json',
      '--help',
      '-h',
      '--version',
      '--debug',
      '--',
      '-',
      '--password-stdin',
      'help',
    ),
  },
  { weight: 2, arbitrary: hostileString({ maxLength: 20 }).filter((text) => !text.startsWith('--base-url')) },
  { weight: 1, arbitrary: fc.constantFrom('0', '-1', '99999999999', '1e3', 'true', 'no', 'a,b,,c') },
);

function fakeIo(): { io: CliIo; stderr: () => string } {
  const stderr = new PassThrough();
  const err: string[] = [];
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  const stdout = new PassThrough();
  stdout.resume();
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from([]),
    env: {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stderrColumns: 80,
  };
  return { io, stderr: () => err.join('') };
}

describe('pds command-line arguments, property-tested', () => {
  it('no exception escapes: any argv ends with exit code 0, 1 or 2, and a failure says what the CLI knows is wrong (one line, or the help), within the time budget', async () => {
    await holds(
      fc.asyncProperty(fc.array(token, { maxLength: 6 }), async (argv) => {
        // act
        const { io, stderr } = fakeIo();
        const code = await withinTimeBudgetAsync(() => runCli(argv, io));

        // assess
        expect([0, 1, 2]).toContain(code);
        expect(stderr()).not.toMatch(/unexpected error/);
        // A failure is one `pds: …` line, or (no command, a group without subcommand) the help text.
        if (code !== 0 && stderr().startsWith('pds: ') && !argv.includes('--debug')) {
          expect(stderr()).toMatch(/^pds: [^\n]+\n$/);
        }
        if (code !== 0) expect(stderr()).not.toBe('');
      }),
      { runs: 600 },
    );
  });

  it('the typed flag readers accept a value or refuse it with UsageError, nothing else', async () => {
    await holds(
      fc.property(hostileString({ maxLength: 24 }), fc.integer({ min: -5, max: 5 }), (value, min) => {
        const values = { x: value };
        for (const read of [
          () => integerFlag(values, 'x', 'cmd', { min, max: min + 100 }),
          () => trueFalseFlag(values, 'x', 'cmd'),
          () => listFlag(values, 'x'),
        ]) {
          try {
            read();
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError);
          }
        }
        const parsed = (() => {
          try {
            return integerFlag(values, 'x', 'cmd', { min, max: min + 100 });
          } catch {
            return undefined;
          }
        })();
        if (parsed !== undefined) {
          expect(Number.isSafeInteger(parsed)).toBe(true);
          expect(parsed).toBeGreaterThanOrEqual(min);
          expect(parsed).toBeLessThanOrEqual(min + 100);
        }
      }),
      { runs: 500 },
    );
  });

  it('pds-simulator, the local stack, npm run drop and npm run events read any argv as their options or refuse it with their own usage error', async () => {
    const simulatorFlags = [
      '--host',
      '--port',
      '--username',
      '--password',
      '--seed',
      '--fault-rate',
      '--reset-rate',
      '--latency-ms',
      '--review-delay-ms',
      '--help',
    ];
    const localFlags = ['--prefix', '--peek', '--json', '--text', '--count'];
    const stackFlags = [
      '--aws-port',
      '--pds-port',
      '--api-port',
      '--data-dir',
      '--messaging-assets-rate',
      '--supplier-reviews-rate',
      '--review-delay',
      '--stack-file',
      '--demo',
      '--verbose',
    ];
    const argv = fc.array(
      fc.oneof(
        fc.constantFrom(...simulatorFlags, ...stackFlags, ...localFlags),
        fc.constantFrom('0', '-1', '65536', '0.5', '1.5', 'NaN', '1e3', ''),
        hostileString({ maxLength: 16 }),
      ),
      { maxLength: 6 },
    );
    await holds(
      fc.property(argv, (args) => {
        try {
          parseCliArgs(args);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        }
        for (const parse of [
          () => parseStartArgs(args, {}),
          () => parseDropArgs(args),
          () => parseEventsArgs(args, false),
        ]) {
          try {
            parse();
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError);
          }
        }
      }),
      { runs: 500 },
    );
  });
});
