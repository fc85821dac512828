/**
 * Docs hold as written: every shell command of README.md's and docs/*.md's code blocks runs against a
 * local stack this test starts (bash, in a folder inside the checkout with the files the examples
 * name), and must exit 0; a command that cannot run here is skipped by a rule of
 * test/docs/command-skips.ts that says why. A failure names the doc's file:line.
 *
 * The documented default addresses (API 127.0.0.1:3000, simulator 127.0.0.1:4010, emulator
 * 127.0.0.1:4566) are the test stack's free ports; `pds` finds the stack through the stack file in the
 * working folder, as from any folder of a checkout; `$TOKEN` is the stack's API token.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/main.ts';
import { writeStackFile } from '../../packages/cli/src/stack-file.ts';
import { zipOf } from '../../packages/local/src/demo-files.ts';
import type { RunningLocalStack } from '../../packages/local/src/stack.ts';
import { stackFactsOf } from '../../packages/local/src/stack-facts.ts';
import { skipOf } from '../docs/command-skips.ts';
import { capturingIo } from '../helpers/cli-io.ts';
import { allDocCommands, type DocCommand, withAddresses } from '../helpers/doc-commands.ts';
import { startTestStack } from '../helpers/test-stack.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const COMMAND_TIMEOUT_MS = 30_000;

const CSV = 'primaryKey__,name,category\r\n0614141123452,Docs Water,BEVERAGE\r\n';

/** The files the examples name, in the folder the commands run in. */
async function exampleFiles(dir: string): Promise<void> {
  const zip = await zipOf([{ name: 'items.csv', body: Buffer.from(CSV) }]);
  const files: Record<string, string | Buffer> = {
    'items.csv': CSV,
    'more.zip': zip,
    'archive.zip': zip,
    'more-items.zip': zip,
    'photos.zip': await zipOf([{ name: 'photo.png', body: Buffer.from('not really a png') }]),
    'item.json': JSON.stringify({
      primaryKey__: '0614141123452',
      name: 'Docs Water',
      simple_date: '2026-12-01',
    }),
    'more-gtins.json': JSON.stringify([{ gtin: '0614141123483', market: 'DE' }]),
    'logo.png': Buffer.from('logo'),
    'banner.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  };
  for (const [name, body] of Object.entries(files)) await writeFile(join(dir, name), body);
}

let stack: RunningLocalStack;
let dir = '';
let env: NodeJS.ProcessEnv = {};
let previousCwd = '';

const commands = allDocCommands(ROOT);
/** One doc's commands run in its order (an example may use what one above it made); docs side by side. */
const byDoc = Map.groupBy(
  commands.filter((command) => skipOf(command.command) === undefined),
  (command) => command.where.split(':')[0] as string,
);

/** The command with the documented default addresses turned into the test stack's. */
function onTestStack(command: string): string {
  return withAddresses(command, {
    'http://127.0.0.1:3000': stack.api.url,
    'http://127.0.0.1:4010': stack.pds.url,
    'http://127.0.0.1:4566': stack.aws.endpoint,
  });
}

/** Runs one command: a plain `pds …` in this process (a Node start per command would take most of the time), anything else with bash. */
async function run(command: DocCommand): Promise<{ code: number | null; output: string }> {
  const text = onTestStack(command.command);
  const argv = SHELL_SYNTAX.test(text.replace(/'[^']*'|"[^"]*"/g, '')) ? undefined : await wordsOf(text);
  if (argv?.[0] === 'pds' || (argv?.[0] === 'npx' && argv[1] === 'pds')) {
    return runPds(argv.slice(argv[0] === 'npx' ? 2 : 1));
  }
  return runBash(text);
}

/** Pipes, redirections, lists, subshells: bash runs these. */
const SHELL_SYNTAX = /[|<>;&`]|\$\(/;

/** The words bash makes of a simple command (quotes removed, `$TOKEN` expanded, a trailing comment dropped). */
async function wordsOf(text: string): Promise<string[]> {
  const { output } = await runBash(`set -- ${text}\nprintf '%s\\0' "$@"`);
  return output.split('\0').slice(0, -1);
}

async function runPds(argv: string[]): Promise<{ code: number; output: string }> {
  const run = capturingIo({ env, cwd: dir });
  const code = await runCli(argv, run.io);
  return { code, output: `${run.stdout()}${run.stderr()}`.slice(-2000) };
}

function runBash(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: COMMAND_TIMEOUT_MS,
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output = `${output}${chunk}`.slice(-2000);
    });
    child.stderr.on('data', (chunk) => {
      output = `${output}${chunk}`.slice(-2000);
    });
    child.on('close', (code, signal) => resolve({ code: signal ? null : code, output }));
  });
}

beforeAll(async () => {
  // A publication's reviews and their messages at once, for the examples that read them.
  stack = await startTestStack({ reviewDelayMs: 1 });
  // Inside the checkout (git-ignored .local/), so `npx pds` finds the checkout's own bin.
  await mkdir(join(ROOT, '.local'), { recursive: true });
  dir = await mkdtemp(join(ROOT, '.local', 'docs-commands-'));
  await writeStackFile(join(dir, '.local', 'stack.json'), stackFactsOf(stack));
  await exampleFiles(dir);
  // File arguments of the in-process `pds` resolve against the process's folder, as a shell's would.
  previousCwd = process.cwd();
  process.chdir(dir);
  const { PDS_BASE_URL, PDS_USERNAME, PDS_PASSWORD, PDS_CREDENTIALS_SECRET_ID, STATE_BUCKET, ...rest } =
    process.env;
  env = {
    ...rest,
    PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    TOKEN: stack.api.token,
    NODE_COMPILE_CACHE: join(dir, '.node-cache'),
    npm_config_update_notifier: 'false',
  };
}, 60_000);

afterAll(async () => {
  if (previousCwd) process.chdir(previousCwd);
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('every skipped doc command has a reason', () => {
  it('lists what it skips, by file:line, with the rule that skips it', () => {
    const skipped = commands.flatMap((command) => {
      const rule = skipOf(command.command);
      return rule ? [`${command.where}  ${rule.reason}`] : [];
    });
    expect(skipped.every((line) => line.length > 0)).toBe(true);
    expect(commands.length - skipped.length).toBeGreaterThan(0);
  });
});

describe.concurrent('the shell commands of README.md and docs/*.md run as written', () => {
  for (const [doc, inDoc] of byDoc) {
    it(`${doc}: ${inDoc.length} command(s)`, { timeout: 180_000 }, async () => {
      const failures: string[] = [];
      for (const command of inDoc) {
        const { code, output } = await run(command);
        if (code !== 0) {
          failures.push(
            `${command.where}: \`${command.command}\` ${code === null ? `did not end within ${COMMAND_TIMEOUT_MS / 1000} s` : `exited ${code}`}\n    ${output.trim().split('\n').slice(-4).join('\n    ')}`,
          );
        }
      }
      expect(
        failures,
        `fix the doc (or add a rule with a reason to test/docs/command-skips.ts):\n${failures.join('\n')}`,
      ).toEqual([]);
    });
  }
});
