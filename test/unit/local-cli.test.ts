import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../packages/bridge/src/core/index.ts';
import { parseStartArgs, runLocalStackCli } from '../../packages/local/src/cli.ts';
import { parseDropArgs, runDropCli } from '../../packages/local/src/drop-cli.ts';
import { parseEventsArgs, runEventsCli } from '../../packages/local/src/events-cli.ts';

/** Captures what a command prints. */
function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) }, out, err };
}

describe('parseStartArgs', () => {
  it('starts on the documented ports and rates, with the simulator, by default', () => {
    const command = parseStartArgs([], {});

    expect(command).toEqual({
      demo: false,
      stackFile: '.local/stack.json',
      options: expect.objectContaining({
        awsPort: 4566,
        pdsPort: 4010,
        apiPort: 3000,
        messagingAssetsRateMs: 10_000,
        supplierReviewsRateMs: 15_000,
        reviewDelayMs: 2000,
        verbose: false,
      }),
    });
    expect(command !== 'help' && command.options.pds).toBeUndefined();
  });

  it('reads ports, times, the data directory and the demo switch', () => {
    const command = parseStartArgs(
      [
        '--aws-port',
        '0',
        '--api-port',
        '3100',
        '--data-dir',
        'state',
        '--supplier-reviews-rate',
        '2m',
        '--demo',
      ],
      {},
    );

    expect(command).toMatchObject({
      demo: true,
      options: {
        awsPort: 0,
        apiPort: 3100,
        dataDir: 'state',
        supplierReviewsRateMs: 120_000,
        // The demo polls faster unless told otherwise.
        messagingAssetsRateMs: 2000,
      },
    });
  });

  it('gives a demo free ports and no connection file, so it never disturbs a running stack', () => {
    const command = parseStartArgs(['--demo'], {});

    expect(command).toMatchObject({ demo: true, options: { awsPort: 0, pdsPort: 0, apiPort: 0 } });
    expect(command !== 'help' && command.stackFile).toBeUndefined();
  });

  it('uses a real PDS when PDS_BASE_URL and its credentials are set', () => {
    const command = parseStartArgs([], {
      PDS_BASE_URL: 'https://pds.example.com/',
      PDS_USERNAME: 'ops',
      PDS_PASSWORD: 'secret',
    });

    expect(command !== 'help' && command.options.pds).toEqual({
      baseUrl: 'https://pds.example.com',
      username: 'ops',
      password: 'secret',
    });
  });

  it.each([
    [['--api-port', '70000'], /--api-port must be a port from 0 to 65535, got '70000'/],
    [['--aws-port', 'x'], /--aws-port must be a port/],
    [['--messaging-assets-rate', '10'], /--messaging-assets-rate must be a time of at least 1s/],
    [['--review-delay', 'soon'], /--review-delay must be a time/],
    [['--colour'], /Unknown option '--colour'/],
    [['extra'], /positional/i],
  ])('refuses %j naming the flag', (argv, message) => {
    expect(() => parseStartArgs(argv, {})).toThrow(UsageError);
    expect(() => parseStartArgs(argv, {})).toThrow(message);
  });

  it('refuses PDS_BASE_URL without credentials, and the demo against a real PDS', () => {
    expect(() => parseStartArgs([], { PDS_BASE_URL: 'https://pds.example.com' })).toThrow(
      /set PDS_USERNAME and PDS_PASSWORD too, or unset PDS_BASE_URL/,
    );
    expect(() =>
      parseStartArgs(['--demo'], {
        PDS_BASE_URL: 'https://pds.example.com',
        PDS_USERNAME: 'a',
        PDS_PASSWORD: 'b',
      }),
    ).toThrow(/--demo runs against the simulator only/);
    expect(() =>
      parseStartArgs([], { PDS_BASE_URL: 'ftp://pds', PDS_USERNAME: 'a', PDS_PASSWORD: 'b' }),
    ).toThrow(/PDS_BASE_URL must be an absolute http\(s\) URL/);
  });
});

describe('runLocalStackCli', () => {
  it('answers a bad flag with one line on stderr and exit code 2, starting nothing', async () => {
    const { io, out, err } = captured();

    const code = await runLocalStackCli(['--api-port', 'abc'], io, {});

    expect(code).toBe(2);
    expect(err).toEqual(["local-stack: --api-port must be a port from 0 to 65535, got 'abc' (see --help)"]);
    expect(out).toEqual([]);
  });

  it('prints the usage for --help', async () => {
    const { io, out } = captured();

    const code = await runLocalStackCli(['--help'], io, {});

    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/Usage: npm start -- \[options\][\s\S]*--data-dir <dir>[\s\S]*--demo/);
  });
});

describe('parseEventsArgs', () => {
  it('prints readable lines on a terminal and JSON lines into a pipe unless told otherwise', () => {
    expect(parseEventsArgs([], true)).toMatchObject({ format: 'text', peek: false });
    expect(parseEventsArgs([], false)).toMatchObject({ format: 'json' });
    expect(parseEventsArgs(['--text'], false)).toMatchObject({ format: 'text' });
    expect(parseEventsArgs(['--json', '--peek', '--count', '3'], true)).toMatchObject({
      format: 'json',
      peek: true,
      count: 3,
    });
  });

  it('refuses contradicting or malformed flags', () => {
    expect(() => parseEventsArgs(['--json', '--text'], true)).toThrow(/exclude each other/);
    expect(() => parseEventsArgs(['--count', '0'], true)).toThrow(/--count must be a positive integer/);
  });
});

describe('parseDropArgs', () => {
  it('takes files and a key prefix', () => {
    expect(parseDropArgs(['--prefix', 'incoming/', 'a.csv', '/data/b.zip'], '/home/me/project')).toEqual({
      files: ['/home/me/project/a.csv', '/data/b.zip'],
      prefix: 'incoming/',
      stackFile: '.local/stack.json',
    });
  });

  it('reads relative paths from the folder npm was run in (INIT_CWD), not the repository root', () => {
    const previous = process.env.INIT_CWD;
    process.env.INIT_CWD = '/home/me/project/examples';
    try {
      expect(parseDropArgs(['items.csv'])).toMatchObject({ files: ['/home/me/project/examples/items.csv'] });
    } finally {
      if (previous === undefined) delete process.env.INIT_CWD;
      else process.env.INIT_CWD = previous;
    }
  });

  it('puts the files in the --prefix folder, with or without its slash', () => {
    expect(parseDropArgs(['--prefix', 'incoming', 'a.csv'], '/p')).toMatchObject({ prefix: 'incoming/' });
    expect(parseDropArgs(['--prefix', 'in/2026/', 'a.csv'], '/p')).toMatchObject({ prefix: 'in/2026/' });
  });

  it('wants at least one file and a relative prefix', () => {
    expect(() => parseDropArgs([])).toThrow(/name at least one FILE/);
    expect(() => parseDropArgs(['--prefix', '/abs/', 'a.csv'])).toThrow(/--prefix must not start with '\/'/);
  });
});

describe('drop and events without a running stack', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-cli-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('say that no stack runs and how to start one (exit code 1)', async () => {
    // prepare
    const drop = captured();
    const events = captured();
    const stackFile = join(dir, 'stack.json');

    // act
    const dropCode = await runDropCli(['--stack-file', stackFile, import.meta.filename], drop.io);
    const eventsCode = await runEventsCli(['--stack-file', stackFile], events.io, true);

    // assess
    expect(dropCode).toBe(1);
    expect(eventsCode).toBe(1);
    expect(drop.err[0]).toMatch(/^drop: No local stack is running .*start one with npm start/);
    expect(events.err[0]).toMatch(/^events: No local stack is running/);
  });

  it('drop names a missing file before anything is uploaded', async () => {
    const drop = captured();

    const code = await runDropCli(['--stack-file', join(dir, 'stack.json'), join(dir, 'nope.csv')], drop.io);

    expect(code).toBe(1);
    expect(drop.err).toEqual([`drop: ${join(dir, 'nope.csv')} does not exist; nothing was uploaded`]);
  });
});
