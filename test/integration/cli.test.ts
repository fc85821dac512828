/**
 * The `pds` command line as users run it: `node packages/cli/bin/pds.mjs …` as a subprocess (Node 24 strips the types
 * of packages/cli/src at load), against a simulator this test starts. stdout is a pipe here, so results are JSON.
 * The last block builds the single-file bundle (`npm run build` → dist/bin/pds.mjs) into a temporary
 * directory, away from any node_modules, and runs it the same way.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CHANNEL_IDS,
  DEMO_PRIMARY_KEYS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { bundleCli } from '../../scripts/build-cli.ts';
import { compileCacheEnv } from '../helpers/env.ts';
import { zipOf } from './simulator-v1-http.ts';

const BIN = path.resolve(import.meta.dirname, '../../packages/cli/bin/pds.mjs');

let sim: RunningSimulator;
let dir: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `pds args…` with the simulator's address and credentials in the environment. */
function pds(
  args: string[],
  { env, input, bin = BIN }: { env?: Record<string, string>; input?: string; bin?: string } = {},
): Promise<Run> {
  const baseEnv = {
    ...compileCacheEnv(),
    PDS_BASE_URL: sim.url,
    PDS_USERNAME: sim.username,
    PDS_PASSWORD: sim.password,
  };
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env: env ?? baseEnv, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input ?? '');
  });
}

function json(run: Run): unknown {
  expect(run.stderr.includes('pds:') ? run.stderr : '').toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

beforeAll(async () => {
  sim = await startSimulator({ reviewDelayMs: 30 });
  dir = await mkdtemp(path.join(tmpdir(), 'pds-cli-'));
});

afterAll(async () => {
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('pds (subprocess)', () => {
  it('prints JSON when stdout is a pipe', async () => {
    // Act
    const channels = json(await pds(['channels'])) as Array<{ id: string }>;

    // Assess
    expect(channels.map((channel) => channel.id)).toEqual(Object.values(DEMO_CHANNEL_IDS));
  });

  it('uploads files with --import, reports each on stderr, and the items exist', async () => {
    // Prepare
    const csv = path.join(dir, 'cli-items.csv');
    await writeFile(csv, 'primaryKey__;name\nCLI-0001;Pen\nCLI-0002;Pencil\n');
    const zip = path.join(dir, 'cli-bundle.zip');
    await writeFile(zip, await zipOf({ 'more.csv': 'primaryKey__,name\nCLI-0003,Ruler\n' }));

    // Act
    const run = await pds(['upload', csv, zip, '--import']);

    // Assess
    const entries = json(run) as Array<{ path: string; imported: boolean; file: string }>;
    expect(entries.map((entry) => [entry.path, entry.imported])).toEqual([
      ['cli-items.csv', true],
      ['cli-bundle/more.csv', true],
    ]);
    expect(sim.state.items.get('CLI-0001')).toMatchObject({ name: 'Pen' });
    expect(sim.state.items.get('CLI-0003')).toMatchObject({ name: 'Ruler' });
    expect(run.stderr).toMatch(
      /^cli-items\.csv: uploading 47 B\ncli-items\.csv: uploaded 47 B in .+, 1 entry\n/,
    );
    expect(run.stderr).toMatch(/cli-bundle\.zip: uploaded .+, 1 entry\n$/);
    expect(run.stderr).not.toContain('\r');
  });

  it('validates an item file', async () => {
    // Prepare
    const item = path.join(dir, 'item.json');
    await writeFile(
      item,
      JSON.stringify({ primaryKey__: 'CLI-0001', name: 'Pen', simple_date: '2013-07-26' }),
    );

    // Act
    const response = json(await pds(['validate', item])) as { validations: Record<string, unknown[]> };

    // Assess
    expect(response.validations.simple_date).toEqual([
      expect.objectContaining({ level: 'Warning', name: 'simple_validation' }),
    ]);
  });

  it('publishes a selection to a channel, then lists the review and reads its message', async () => {
    // Prepare
    const key = DEMO_PRIMARY_KEYS.dishSoap;
    const before = (json(await pds(['reviews', key])) as unknown[]).length;

    // Act
    const published = json(await pds(['publish', '--keys', key, '--channel', 'gdsn-de'])) as {
      selectionId: string;
      numberOfItems: number;
    };
    let reviews: Array<{ channelId: string; messagingAssetId: number }> = [];
    for (let attempt = 0; attempt < 50 && reviews.length <= before; attempt++) {
      await delay(50);
      reviews = json(await pds(['reviews', key])) as typeof reviews;
    }
    const latest = reviews.at(-1);
    const parsed = json(await pds(['messages', 'get', String(latest?.messagingAssetId), '--json'])) as {
      ok: boolean;
      cic: Array<{ gtin: string; state: string }>;
    };
    const raw = await pds(['messages', 'get', String(latest?.messagingAssetId)]);

    // Assess
    expect(published.numberOfItems).toBe(1);
    expect(sim.state.publications.at(-1)?.selectionId).toBe(published.selectionId);
    expect(latest?.channelId).toBe('gdsn-de');
    expect(parsed.ok).toBe(true);
    expect(parsed.cic[0]).toMatchObject({
      gtin: expect.stringContaining(key.slice(1)),
      state: 'SYNCHRONISED',
    });
    expect(raw.code).toBe(0);
    expect(raw.stdout).toMatch(/^<\?xml/);
  });

  it('lists the messaging assets', async () => {
    // Act
    const list = json(await pds(['messages', 'list'])) as Array<{ id: number }>;

    // Assess
    expect(list.length).toBeGreaterThanOrEqual(3);
  });

  it('lists a folder and downloads it as a ZIP', async () => {
    // Prepare
    const output = path.join(dir, 'documents.zip');

    // Act
    const listing = json(await pds(['folders', 'ls', '/documents/specs'])) as {
      etag: string;
      links: Array<{ name: string }>;
    };
    const again = json(await pds(['folders', 'ls', '/documents/specs', '--if-none-match', listing.etag]));
    const download = json(await pds(['folders', 'ls', '/documents', '--download', '-o', output]));
    const asset = await pds(['folders', 'ls', '/documents/specs/water-spec.txt', '--download']);

    // Assess
    expect(listing.links.map((link) => link.name)).toEqual(['water-spec.txt']);
    expect(again).toEqual({ notModified: true, etag: listing.etag, cacheControl: 'no-cache' });
    expect(download).toMatchObject({ output, contentType: 'application/zip' });
    expect((await readFile(output)).subarray(0, 2).toString('latin1')).toBe('PK');
    expect(asset.code).toBe(0);
    expect(asset.stdout).toBe('Sparkling Water 0,5 l\nNet content: 500 MLT\n');
  });

  it('creates a folder, uploads into it and moves the asset', async () => {
    // Prepare
    const file = path.join(dir, 'flyer.txt');
    await writeFile(file, 'flyer');

    // Act
    json(await pds(['folders', 'mkdir', '/cli']));
    json(await pds(['folders', 'mkdir', '/cli', '--name', 'sub']));
    const uploadRun = await pds(['folders', 'upload', '/cli', file]);
    const moved = json(await pds(['folders', 'mv', '/cli/flyer.txt', '/cli/sub'])) as { path: string };

    // Assess
    expect(json(uploadRun)).toEqual([expect.objectContaining({ name: 'flyer.txt', linkType: 'ASSET' })]);
    expect(uploadRun.stderr).toContain('flyer.txt: uploaded 5 B');
    expect(moved.path).toBe('/cli/sub/flyer.txt');
  });

  it('creates and lists subscriptions, and adds entries by id', async () => {
    // Act
    const created = json(
      await pds([
        'subscriptions',
        'create',
        'cli-watch',
        '--attributes',
        'gtin,market',
        '--label',
        'CLI watch',
      ]),
    ) as { id: string };
    const listed = json(await pds(['subscriptions', 'list', '--keywords', 'cli'])) as Array<{ name: string }>;
    const record = json(
      await pds([
        'subscriptions',
        'add-entries',
        '--id',
        created.id,
        '--entry',
        'gtin=1,market=DE',
        '--entry',
        'gtin=2',
      ]),
    ) as { entriesAdded: number };
    const entries = json(await pds(['subscriptions', 'entries', 'cli-watch']));

    // Assess
    expect(listed.map((sub) => sub.name)).toEqual(['cli-watch']);
    expect(record.entriesAdded).toBe(2);
    expect(entries).toEqual([{ gtin: '1', market: 'DE' }, { gtin: '2' }]);
  });

  it('retrieves data model keys with repeated filters', async () => {
    // Act
    const keys = json(
      await pds(['datamodel', 'retrieve', 'enums', '--name', 'measurementUnit', '--code', 'GRM,KGM']),
    );

    // Assess
    expect(keys).toEqual(['measurementUnit.GRM', 'measurementUnit.KGM']);
  });

  it('adds tags to an item and lists them newest first', async () => {
    // Act
    const added = await pds(['tags', 'add', DEMO_PRIMARY_KEYS.chocolate, 'cli-a', 'cli-b']);
    const tags = json(await pds(['tags', 'list', DEMO_PRIMARY_KEYS.chocolate, '--newest-first']));

    // Assess
    expect(added.code).toBe(0);
    expect(tags).toEqual(['cli-b', 'cli-a', 'seasonal']);
  });

  it('reads the password from standard input', async () => {
    // Act
    const run = await pds(['channels', '--username', sim.username, '--password-stdin'], {
      env: { PDS_BASE_URL: sim.url },
      input: `${sim.password}\n`,
    });

    // Assess
    expect(json(run)).toHaveLength(Object.keys(DEMO_CHANNEL_IDS).length);
  });

  it('answers a usage error with one line on stderr and exit code 2', async () => {
    // Act
    const run = await pds(['folders', 'ls', '--bogus']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe("pds: Unknown option '--bogus' (see pds folders ls --help)\n");
  });

  it('answers a PDS error with one line naming the problem and exit code 1, without a stack', async () => {
    // Act
    const run = await pds(['tags', 'list', 'NO-SUCH-ITEM']);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^pds: PDS answered 404 to GET \/v1\/items\/NO-SUCH-ITEM\/tags.*No item has primary key/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('answers wrong credentials with exit code 1 and the hint to check them', async () => {
    // Act
    const run = await pds(['channels'], {
      env: { PDS_BASE_URL: sim.url, PDS_USERNAME: sim.username, PDS_PASSWORD: 'Wr0ng-Passw0rd' },
    });

    // Assess: the simulator's own words ("wrong credentials", "HTTP Basic auth") are shown as they are
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('PDS answered 401');
    expect(run.stderr).toContain('check PDS_USERNAME / PDS_PASSWORD');
    expect(run.stderr).not.toContain('Wr0ng-Passw0rd');
    expect(run.stderr).not.toContain('[REDACTED]');
  });

  it('prints the stack with --debug', async () => {
    // Act
    const run = await pds(['tags', 'list', 'NO-SUCH-ITEM', '--debug']);

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^pds: PDS answered 404/);
    expect(run.stderr).toMatch(/PdsNotFoundError: .*\n\s+at /);
  });

  it.each([
    ['upload', 'Usage: pds upload FILE... [OPTIONS]'],
    ['subscriptions create', 'Usage: pds subscriptions create NAME [OPTIONS]'],
    ['datamodel retrieve', 'Usage: pds datamodel retrieve KIND [OPTIONS]'],
  ])('shows the help of %s', async (name, usage) => {
    // Act
    const run = await pds([...name.split(' '), '--help'], { env: {} });

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith(usage)).toBe(true);
    expect(run.stdout).toContain('Examples:');
  });
});

describe('pds bundled into one file', () => {
  let bundle: string;

  beforeAll(async () => {
    bundle = path.join(dir, 'bundle', 'pds.mjs');
    await bundleCli(bundle);
  }, 60_000);

  it('runs from a directory without node_modules: help, JSON output and an upload with --import', async () => {
    // Prepare
    const csv = path.join(dir, 'bundled.csv');
    await writeFile(csv, 'primaryKey__;name\nCLI-B-1;Bundled pen\n');

    // Act
    const help = await pds(['--help'], { bin: bundle, env: {} });
    const channels = json(await pds(['channels'], { bin: bundle })) as unknown[];
    const uploaded = json(await pds(['upload', csv, '--import'], { bin: bundle })) as Array<{
      imported: boolean;
    }>;

    // Assess
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: pds COMMAND');
    expect(channels).toHaveLength(Object.keys(DEMO_CHANNEL_IDS).length);
    expect(uploaded).toEqual([expect.objectContaining({ path: 'bundled.csv', imported: true })]);
    expect(sim.state.items.get('CLI-B-1')).toMatchObject({ name: 'Bundled pen' });
  });

  it('reports errors the same way: one line and the exit code', async () => {
    // Act
    const usage = await pds(['tags'], { bin: bundle });
    const failed = await pds(['datamodel', 'default-item', 'SPACESHIPS'], { bin: bundle });

    // Assess
    expect(usage.code).toBe(2);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^pds: PDS answered 404 to GET \/v1\/datamodel\/defaultItem\/SPACESHIPS: .*\n$/,
    );
  });
});
