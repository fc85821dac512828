/**
 * One way to find the stack: every `pds` command that needs the PDS, the state bucket or the queues
 * finds the local stack's file (`.local/stack.json`) from any folder inside the checkout, and when none
 * is there says which variable or flag to set. The stack file here names a process that has ended, so
 * each command reaches the point where it read the file and says so, naming the file it found; with no
 * file it names what to set. Nothing is connected to.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/io.ts';
import { runCli } from '../../packages/cli/src/main.ts';
import { findStackFile, type StackFacts, writeStackFile } from '../../packages/cli/src/stack-file.ts';

/** A process id no process has (above Linux's pid_max). */
const GONE_PID = 4_194_305;

const FACTS: StackFacts = {
  version: 1,
  pid: GONE_PID,
  startedAt: '2026-12-01T00:00:00.000Z',
  aws: { endpoint: 'http://127.0.0.1:9', region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test' },
  buckets: { drop: 'pds-bridge-local-drop', state: 'pds-bridge-local-state' },
  eventQueues: [
    { name: 'pds-bridge-local-events', url: 'http://127.0.0.1:9/000000000000/pds-bridge-local-events' },
  ],
  api: { url: 'http://127.0.0.1:9', token: 'token-0123456789abcdef' },
  pds: { url: 'http://127.0.0.1:9', username: 'demo', password: 'demo', simulated: true },
};

/** A command of each kind that connects: the PDS, the watch list in the state bucket, the bridge's bucket and queues. */
const COMMANDS_THAT_CONNECT: ReadonlyArray<readonly string[]> = [
  ['channels'],
  ['folders', 'ls', '/'],
  ['subscriptions', 'list'],
  ['reviews', 'KEY-1'],
  ['watch', 'list'],
  ['watch', 'add', 'KEY-1'],
  ['watch', 'remove', 'KEY-1'],
  ['bridge', 'status'],
  ['bridge', 'why', 'messaging-asset/42'],
  ['bridge', 'redrive', 'ingest'],
  ['bridge', 'replay', '--since', '2026-12-01T00:00:00Z'],
  ['bridge', 'audit'],
  ['bridge', 'confirmations', 'pub-1'],
];

function fakeIo(cwd: string, env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const err: string[] = [];
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from([]),
    env,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stderrColumns: 80,
    cwd,
  };
  return { io, stderr: () => err.join('') };
}

let root = '';
let checkout = '';
let subdirectory = '';
let outside = '';

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'pds-cli-stack-'));
  checkout = path.join(root, 'checkout');
  subdirectory = path.join(checkout, 'docs', 'deeper');
  outside = path.join(root, 'elsewhere');
  await mkdir(subdirectory, { recursive: true });
  await mkdir(outside, { recursive: true });
  // the checkout's root: discovery stops there
  await mkdir(path.join(checkout, '.git'));
  await writeStackFile(path.join(checkout, '.local', 'stack.json'), FACTS);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('findStackFile', () => {
  it('finds the stack file of the checkout from the root and from any folder inside it', () => {
    const expected = path.join(checkout, '.local', 'stack.json');
    expect(findStackFile(checkout)).toBe(expected);
    expect(findStackFile(subdirectory)).toBe(expected);
    expect(findStackFile(outside)).toBeUndefined();
  });
});

describe('every pds command that connects', () => {
  it.each(COMMANDS_THAT_CONNECT.map((argv) => [argv.join(' '), argv]))(
    '`pds %s` finds the local stack from a subdirectory of the checkout',
    async (_name, argv) => {
      // prepare
      const { io, stderr } = fakeIo(subdirectory);

      // act
      const code = await runCli(argv as string[], io);

      // assess: it read the checkout's stack file (whose process has ended) and said so
      expect(code).toBe(2);
      expect(stderr()).toContain(
        `The local stack that wrote ${path.join(checkout, '.local', 'stack.json')} (process ${GONE_PID}) is no longer running`,
      );
    },
  );

  it.each(COMMANDS_THAT_CONNECT.map((argv) => [argv.join(' '), argv]))(
    '`pds %s` outside any checkout says which variable or flag to set',
    async (_name, argv) => {
      // prepare
      const { io, stderr } = fakeIo(outside);

      // act
      const code = await runCli(argv as string[], io);

      // assess
      expect(code).toBe(2);
      expect(stderr()).toMatch(/set (PDS_BASE_URL|STATE_BUCKET)|--stage STAGE \(or set PDS_BRIDGE_STAGE\)/);
      expect(stderr()).toContain('or start the local stack with npm start in this checkout');
      expect(stderr()).toContain('--stack-file FILE');
    },
  );

  it('takes --stack-file before the command words, for every command', async () => {
    // prepare
    const { io, stderr } = fakeIo(outside);
    const file = path.join(checkout, '.local', 'stack.json');

    // act
    const code = await runCli(['--stack-file', file, 'channels'], io);

    // assess
    expect(code).toBe(2);
    expect(stderr()).toContain(`The local stack that wrote ${file}`);
  });
});
