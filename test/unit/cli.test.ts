/**
 * The `pds` command line in-process, without a server: command lookup, help, usage errors (exit 2, one
 * line), flag converters, the table formatter and the progress display.
 */
import { tmpdir } from 'node:os';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../packages/bridge/src/core/index.ts';
import { PDS_OPERATIONS, type PdsOperationMethod } from '../../packages/bridge/src/pds/resources/index.ts';
import { integerFlag, listFlag, trueFalseFlag } from '../../packages/cli/src/args.ts';
import { COMMANDS } from '../../packages/cli/src/commands/index.ts';
import type { CliIo } from '../../packages/cli/src/io.ts';
import { runCli } from '../../packages/cli/src/main.ts';
import { formatBytes, formatRate, formatTable, MAX_CELL_WIDTH } from '../../packages/cli/src/output.ts';
import { renderProgressBar, TransferProgress } from '../../packages/cli/src/progress.ts';
import { shownJson, shownText } from '../../packages/cli/src/terminal.ts';

/** A fake terminal or pipe; `stdout()` and `stderr()` return what was written. */
function fakeIo({ tty = false, env = {} }: { tty?: boolean; env?: Record<string, string> } = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from([]),
    env,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stderrColumns: 80,
    // Outside any checkout: no local stack is found, whatever runs in this one.
    cwd: tmpdir(),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

/** The client operation each command performs (the workflow commands combine some). */
const COMMAND_FOR_METHOD: Record<PdsOperationMethod, string> = {
  uploadGathering: 'upload',
  startImport: 'upload',
  validate: 'validate',
  createSelection: 'publish',
  publish: 'publish',
  listCommunicationChannels: 'channels',
  listSupplierReviews: 'reviews',
  getMessagingAsset: 'messages get',
  streamMessagingAsset: 'messages get',
  listMessagingAssets: 'messages list',
  streamMessagingAssets: 'messages list',
  'assetFolders.list': 'folders ls',
  'assetFolders.download': 'folders ls',
  'assetFolders.details': 'folders details',
  'assetFolders.create': 'folders mkdir',
  'assetFolders.delete': 'folders rm',
  'assetFolders.deleteItems': 'folders rm',
  'assetFolders.moveAsset': 'folders mv',
  'assetFolders.moveFolder': 'folders mv',
  'assetFolders.renameAsset': 'folders rename',
  'assetFolders.renameFolder': 'folders rename',
  'assetFolders.convertToPublicAsset': 'folders publicize',
  'assetFolders.uploadFile': 'folders upload',
  'assetFolders.uploadArchive': 'folders upload-archive',
  'bulkSubscriptions.list': 'subscriptions list',
  'bulkSubscriptions.create': 'subscriptions create',
  'bulkSubscriptions.get': 'subscriptions get',
  'bulkSubscriptions.update': 'subscriptions update',
  'bulkSubscriptions.delete': 'subscriptions delete',
  'bulkSubscriptions.nameToId': 'subscriptions id',
  'bulkSubscriptions.idToName': 'subscriptions name',
  'bulkSubscriptions.entries': 'subscriptions entries',
  'bulkSubscriptions.addEntries': 'subscriptions add-entries',
  'bulkSubscriptions.removeEntries': 'subscriptions remove-entries',
  'bulkSubscriptions.removeAllEntries': 'subscriptions clear-entries',
  'bulkSubscriptions.imports': 'subscriptions imports',
  'bulkSubscriptions.uploadEntries': 'subscriptions upload',
  'dataModel.retrieve': 'datamodel retrieve',
  'dataModel.current': 'datamodel current',
  'dataModel.defaultItem': 'datamodel default-item',
  'dataModel.exportFormats': 'datamodel export-formats',
  'itemTags.list': 'tags list',
  'itemTags.add': 'tags add',
  'itemTags.remove': 'tags remove',
  'itemTags.removeAll': 'tags remove',
};

describe('pds command table', () => {
  it('has a command for every operation of the spec', () => {
    // Act
    const names = new Set(COMMANDS.map((command) => command.name));
    const missing = PDS_OPERATIONS.filter((op) => !names.has(COMMAND_FOR_METHOD[op.client]));

    // Assess
    expect(missing).toEqual([]);
    expect(new Set(Object.values(COMMAND_FOR_METHOD)).size).toBeLessThanOrEqual(names.size);
  });

  it.each(COMMANDS.map((command) => [command.name]))(
    'shows help for %s with usage and an example',
    async (name) => {
      // Prepare
      const { io, stdout } = fakeIo();

      // Act
      const code = await runCli([...name.split(' '), '--help'], io);

      // Assess
      expect(code).toBe(0);
      expect(stdout()).toContain(`Usage: pds ${name}`);
      expect(stdout()).toMatch(/Examples:\n {2}pds /);
      expect(stdout()).toContain('--base-url URL');
    },
  );
});

describe('runCli usage', () => {
  it('prints the overview on stdout for --help and `pds help`', async () => {
    // Prepare
    const first = fakeIo();
    const second = fakeIo();

    // Act
    const helpCode = await runCli(['--help'], first.io);
    const wordCode = await runCli(['help'], second.io);

    // Assess
    expect([helpCode, wordCode]).toEqual([0, 0]);
    expect(first.stdout()).toContain('subscriptions add-entries');
    expect(second.stdout()).toBe(first.stdout());
  });

  it('prints the help of a command for `pds help folders ls`', async () => {
    // Prepare
    const { io, stdout } = fakeIo();

    // Act
    const code = await runCli(['help', 'folders', 'ls'], io);

    // Assess
    expect(code).toBe(0);
    expect(stdout()).toContain('Usage: pds folders ls [PATH]');
  });

  it('answers no command with the overview on stderr and exit code 2', async () => {
    // Prepare
    const { io, stdout, stderr } = fakeIo();

    // Act
    const code = await runCli([], io);

    // Assess
    expect(code).toBe(2);
    expect(stdout()).toBe('');
    expect(stderr()).toContain('Usage: pds COMMAND');
  });

  it('asks `pds bridge confirmations` for one subject, and refuses a malformed --state (exit 2)', async () => {
    // Prepare
    const none = fakeIo();
    const both = fakeIo();
    const badState = fakeIo();

    // Act
    const codes = [
      await runCli(['bridge', 'confirmations'], none.io),
      await runCli(['bridge', 'confirmations', 'p-1', '--key', '0401'], both.io),
      await runCli(['bridge', 'confirmations', '--state', 'REVIEW;OVERDUE'], badState.io),
    ];

    // Assess
    expect(codes).toEqual([2, 2, 2]);
    expect(none.stderr()).toContain('PUBLICATION_ID, --key KEY or --state STATES');
    expect(both.stderr()).toContain('not both');
    expect(badState.stderr()).toContain('--state must be comma-separated states');
  });

  it('lists the subcommands of a group for `pds folders --help`', async () => {
    // Prepare
    const { io, stdout } = fakeIo();

    // Act
    const code = await runCli(['folders', '--help'], io);

    // Assess
    expect(code).toBe(0);
    expect(stdout()).toContain('folders upload-archive');
  });

  it.each([
    ['an unknown command', ['launch'], "unknown command 'launch'"],
    ['a misspelt command', ['chanels'], "unknown command 'chanels'; did you mean 'pds channels'?"],
    [
      'a misspelt subcommand',
      ['bridge', 'stauts'],
      "unknown subcommand 'pds bridge stauts'; did you mean 'pds bridge status'?",
    ],
    [
      'an unknown subcommand',
      ['folders', 'copy', '/a'],
      "unknown subcommand 'pds folders copy'; use one of ls,",
    ],
    [
      'a group without subcommand',
      ['subscriptions'],
      "'pds subscriptions' needs a subcommand; use one of list,",
    ],
    ['an unknown flag', ['channels', '--colour'], "Unknown option '--colour'"],
    [
      'a command option before the command',
      ['--keys', 'A', 'publish'],
      "unknown option '--keys' before the command",
    ],
    [
      'a missing flag value',
      ['folders', 'ls', '--if-none-match'],
      "'--if-none-match <value>' argument missing",
    ],
    ['missing arguments', ['tags', 'add', 'KEY'], 'pds tags add expects PRIMARY_KEY TAG..., got 1'],
    ['too many arguments', ['channels', 'extra'], 'pds channels takes no arguments, got 1'],
    ['a digits-only subscription name', ['subscriptions', 'get', '42'], 'pass --id 42'],
    [
      'a subscription id that is not digits',
      ['subscriptions', 'get', '--id', 'x7'],
      '--id must be decimal digits',
    ],
    ['both NAME and --id', ['subscriptions', 'get', 'a', '--id', '1'], 'either NAME or --id'],
    ['tags remove without tags or --all', ['tags', 'remove', 'KEY'], 'or pass --all'],
    ['publish without keys', ['publish', '--channel', 'gdsn-de'], '--keys'],
    ['publish without destination', ['publish', '--keys', 'A'], '--channel ID or --organization ID'],
    [
      'a page size that is not a number',
      ['subscriptions', 'list', '--page-size', 'ten'],
      '--page-size must be',
    ],
    [
      'an --active that is not true/false',
      ['subscriptions', 'list', '--active', 'maybe'],
      '--active must be',
    ],
    ['a missing PDS address', ['channels'], 'no PDS address: set PDS_BASE_URL or pass --base-url URL'],
  ])('refuses %s with one line on stderr and exit code 2', async (_name, argv, fragment) => {
    // Prepare
    const { io, stdout, stderr } = fakeIo();

    // Act
    const code = await runCli(argv, io);

    // Assess
    expect(code).toBe(2);
    expect(stdout()).toBe('');
    expect(stderr()).toContain(fragment);
    expect(stderr().trimEnd().split('\n')).toHaveLength(1);
    expect(stderr()).toMatch(/^pds: .*\(see pds .*--help\)\n$/);
  });

  it('refuses --password with --password-stdin', async () => {
    // Prepare
    const { io, stderr } = fakeIo({ env: { PDS_BASE_URL: 'http://127.0.0.1:9' } });

    // Act
    const code = await runCli(['channels', '--password', 'x', '--password-stdin'], io);

    // Assess
    expect(code).toBe(2);
    expect(stderr()).toContain('either --password or --password-stdin');
  });

  it('reports missing credentials in the environment as a configuration problem (exit 2)', async () => {
    // Prepare
    const { io, stderr } = fakeIo({ env: { PDS_BASE_URL: 'http://127.0.0.1:9' } });

    // Act
    const code = await runCli(['channels'], io);

    // Assess
    expect(code).toBe(2);
    expect(stderr()).toContain('PDS_USERNAME and PDS_PASSWORD are missing');
  });

  it('reports a missing AWS region as a configuration problem (exit 2) that says what to set', async () => {
    // Prepare: no region anywhere the SDK looks
    for (const name of [
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_PROFILE',
      'AWS_ENDPOINT_URL',
      'AWS_ENDPOINT_URL_S3',
    ]) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/aws-config');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/aws-credentials');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    const { io, stderr } = fakeIo();

    // Act
    const code = await runCli(['watch', 'list', '--state-bucket', 'state'], io).finally(() =>
      vi.unstubAllEnvs(),
    );

    // Assess
    expect(code).toBe(2);
    expect(stderr()).not.toContain('unexpected error');
    expect(stderr()).not.toContain('see the cause');
    expect(stderr()).toContain('Region is missing');
    expect(stderr()).toContain('AWS_REGION');
    expect(stderr().trimEnd().split('\n')).toHaveLength(1);
  });

  it('accepts global options before the command words', async () => {
    // Prepare
    const { io, stdout } = fakeIo();

    // Act
    const code = await runCli(['--base-url', 'http://127.0.0.1:9', '--json', 'folders', 'ls', '--help'], io);

    // Assess
    expect(code).toBe(0);
    expect(stdout()).toContain('Usage: pds folders ls');
  });

  it('reports a file that cannot be read with exit code 1 before connecting', async () => {
    // Prepare
    const { io, stderr } = fakeIo({
      env: { PDS_BASE_URL: 'http://127.0.0.1:9', PDS_USERNAME: 'u', PDS_PASSWORD: 'p' },
    });

    // Act
    const code = await runCli(['validate', '/no/such/item.json'], io);

    // Assess
    expect(code).toBe(1);
    expect(stderr()).toMatch(/^pds: cannot read \/no\/such\/item\.json: .*; pass a readable JSON file\n$/);
  });
});

describe('flag converters', () => {
  it('splits repeated and comma-separated list flags', () => {
    expect(listFlag({ code: ['GRM,KGM', ' EA ', ''] }, 'code')).toEqual(['GRM', 'KGM', 'EA']);
    expect(listFlag({}, 'code')).toBeUndefined();
  });

  it('reads integers within their range and refuses others with a usage error', () => {
    expect(integerFlag({ max: '10' }, 'max', 'x', { min: 1 })).toBe(10);
    expect(() => integerFlag({ max: '0' }, 'max', 'x', { min: 1 })).toThrow(UsageError);
    expect(() => integerFlag({ max: '1.5' }, 'max', 'x')).toThrow('--max must be an integer from 0');
  });

  it('reads true/false flags', () => {
    expect(trueFalseFlag({ active: 'TRUE' }, 'active', 'x')).toBe(true);
    expect(trueFalseFlag({ active: 'no' }, 'active', 'x')).toBe(false);
    expect(() => trueFalseFlag({ active: 'maybe' }, 'active', 'x')).toThrow(UsageError);
  });
});

describe('formatTable', () => {
  it('pads columns to the widest cell under a header and a rule', () => {
    // Act
    const table = formatTable(
      ['ID', 'NAME'],
      [
        ['1', 'gtin-watch'],
        [22, undefined],
      ],
    );

    // Assess
    expect(table).toBe('ID  NAME\n--  ----------\n1   gtin-watch\n22');
  });

  it('shows objects as compact JSON on one line and cuts long cells', () => {
    // Act
    const table = formatTable(['VALUE'], [[{ a: [1, 2] }], ['x'.repeat(200)], ['two\nlines']]);
    const lines = table.split('\n');

    // Assess
    expect(lines[2]).toBe('{"a":[1,2]}');
    expect(lines[3]).toHaveLength(MAX_CELL_WIDTH);
    expect(lines[3]?.endsWith('…')).toBe(true);
    expect(lines[4]).toBe('two lines');
  });

  it('shows control characters from outside data as escapes at the output edge, never raw (a title change, a spoofed row)', () => {
    // prepare: an OSC window-title change with a bell, a NUL, a carriage return that would overwrite the row, DEL, C1 CSI, a bidi override
    const hostile = 'k\u001b]0;owned\u0007\u0000\rGTIN  OK\u007f\u009b2J\u202e';

    // act
    const row = shownText(formatTable(['KEY'], [[hostile]])).split('\n')[2] ?? '';
    const text = shownText(`a\tb\r\nc\rd\n${hostile}`);

    // assess: a cell is one line; every control is an escape; tabs, line feeds and CRLF stay as they are
    expect(row).toBe('k\\u001b]0;owned\\u0007\\u0000 GTIN OK\\u007f\\u009b2J\\u202e');
    expect(text.startsWith('a\tb\r\nc\\rd\n')).toBe(true);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;
    expect([...text].filter((char) => raw.test(char))).toEqual(['\r']);
  });

  it('JSON output escapes DEL, C1 and bidi overrides too, and still parses to the same value', () => {
    // prepare
    const value = { state: 'A\u009b31m\u007f\u202eB\u001b' };

    // act
    const json = shownJson(value);

    // assess
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('formats bytes and rates for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
    expect(formatRate(2 * 1024 * 1024, 1000)).toBe('2.0 MiB/s');
    expect(formatRate(10, 0)).toBe('-');
  });
});

describe('upload progress', () => {
  function collect() {
    const stream = new PassThrough();
    const written: string[] = [];
    stream.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
    return { stream, text: () => written.join('') };
  }

  async function send(counter: NodeJS.ReadWriteStream, chunks: Buffer[], tick: () => void) {
    const drained = (async () => {
      for await (const _ of counter as AsyncIterable<Buffer>) {
        // consume
      }
    })();
    for (const chunk of chunks) {
      tick();
      // The write callback runs once the chunk went through the counter: the clock is read at that time.
      await new Promise<void>((resolve) => counter.write(chunk, () => resolve()));
    }
    counter.end();
    await drained;
  }

  it('renders a bar with percent, bytes and rate that fits the terminal', () => {
    // Act
    const line = renderProgressBar({ name: 'items.csv', sent: 512, total: 1024, elapsedMs: 1000 }, 79);

    // Assess
    expect(line).toMatch(/^items\.csv \[#+-+\] {2}50% 512 B \/ 1\.0 KiB 512 B\/s$/);
    expect(line.length).toBeLessThanOrEqual(79);
  });

  it('shortens a long file name from the left to keep the line within the width', () => {
    // Act
    const line = renderProgressBar(
      { name: `${'d/'.repeat(60)}items.csv`, sent: 1, total: 2, elapsedMs: 10 },
      79,
    );

    // Assess
    expect(line.length).toBeLessThanOrEqual(79);
    expect(line).toMatch(/^….*items\.csv \[/);
  });

  it('redraws the bar in place on a terminal and ends the line with the outcome', async () => {
    // Prepare
    const { stream, text } = collect();
    let now = 0;
    const progress = new TransferProgress({ stream, interactive: true, columns: 80, now: () => now });

    // Act
    const file = progress.start('items.csv', 300);
    await send(file.counter, [Buffer.alloc(100), Buffer.alloc(100), Buffer.alloc(100)], () => {
      now += 500;
    });
    file.done('1 entry');

    // Assess
    const redraws = text().split('\r').filter(Boolean);
    expect(redraws.length).toBeGreaterThanOrEqual(4);
    const clearLine = '\u001b[K';
    expect(redraws.at(-1)).toMatch(/100% 300 B \/ 300 B /);
    expect(redraws.at(-1)?.endsWith(`${clearLine}  1 entry\n`)).toBe(true);
    expect(text().split('\n')).toHaveLength(2);
  });

  it('writes plain lines when stderr is not a terminal: start, every 10 s, result', async () => {
    // Prepare
    const { stream, text } = collect();
    let now = 0;
    const progress = new TransferProgress({ stream, interactive: false, now: () => now });

    // Act
    const file = progress.start('big.zip', 3 * 1024 * 1024);
    await send(
      file.counter,
      [Buffer.alloc(1024 * 1024), Buffer.alloc(1024 * 1024), Buffer.alloc(1024 * 1024)],
      () => {
        now += 6000;
      },
    );
    now = 20_000;
    file.done('3 entries');

    // Assess
    expect(text()).not.toContain('\r');
    expect(text().trimEnd().split('\n')).toEqual([
      'big.zip: uploading 3.0 MiB',
      'big.zip: 66% (2.0 MiB of 3.0 MiB, 170.7 KiB/s)',
      'big.zip: uploaded 3.0 MiB in 20.0 s (153.6 KiB/s), 3 entries',
    ]);
  });
});
