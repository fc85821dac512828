/**
 * `pds watch …` as operators run it: a subprocess against the S3 emulator's state bucket, with the
 * same records the API's /watch routes and the publish worker read (packages/bridge/src/state/watch-list.ts).
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { getWatchEntry, watch } from '../../packages/bridge/src/state/watch-list.ts';
import { compileCacheEnv } from '../helpers/env.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';

const BIN = path.resolve(import.meta.dirname, '../../packages/cli/bin/pds.mjs');
const DAY_MS = 86_400_000;

let aws: AwsEmulator;
let store: S3StateStore;
/** A PDS that knows every item but those whose key starts with "unknown" (supplier reviews: 404). */
let pdsServer: Server;
let pdsUrl = '';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function pds(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      // Outside the checkout: no local stack is found, whatever runs in it.
      { env: { ...compileCacheEnv(), ...aws.env, ...env }, timeout: 30_000, cwd: tmpdir() },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  aws = await startAwsEmulator({ buckets: ['state'] });
  store = new S3StateStore({ client: aws.s3, bucket: 'state' });
  pdsServer = createServer((request, response) => {
    const key = decodeURIComponent((request.url ?? '').replace('/api/v1/supplierreviews/', ''));
    response.writeHead(key.startsWith('unknown') ? 404 : 200, { 'content-type': 'application/json' });
    response.end(key.startsWith('unknown') ? '{"status":404}' : '[]');
  });
  await new Promise<void>((resolve) => pdsServer.listen(0, '127.0.0.1', resolve));
  pdsUrl = `http://127.0.0.1:${(pdsServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await aws?.close();
  await new Promise((resolve) => pdsServer?.close(resolve));
});

describe('pds watch', () => {
  it('adds keys for the given days, lists them with what put them there, and removes them', async () => {
    // Prepare: a key the publish worker already watches
    await watch(store, ['04012345678901'], { ttlMs: DAY_MS, source: 'publication:p-1' });

    // Act
    const added = await pds(
      ['watch', 'add', '04012345678918', 'key with / slash', '--days', '60', '--force'],
      {
        STATE_BUCKET: 'state',
      },
    );
    const listed = await pds(['watch', 'list', '--state-bucket', 'state']);
    const removed = await pds([
      'watch',
      'remove',
      '04012345678901',
      'never-watched',
      '--state-bucket',
      'state',
    ]);

    // Assess
    expect(added.code).toBe(0);
    const entry = await getWatchEntry(store, 'key with / slash');
    expect(entry?.sources).toEqual(['operator']);
    const days = (Date.parse(entry?.expiresAt ?? '') - Date.now()) / DAY_MS;
    expect(days).toBeGreaterThan(59.9);
    expect(days).toBeLessThanOrEqual(60);
    expect(
      (JSON.parse(listed.stdout) as Array<{ primaryKey: string; sources: string[] }>).map((e) => [
        e.primaryKey,
        e.sources,
      ]),
    ).toEqual([
      ['04012345678901', ['publication:p-1']],
      ['04012345678918', ['operator']],
      ['key with / slash', ['operator']],
    ]);
    expect(JSON.parse(removed.stdout)).toEqual([
      { primaryKey: '04012345678901', removed: true },
      { primaryKey: 'never-watched', removed: false },
    ]);
    expect(await getWatchEntry(store, '04012345678901')).toBeUndefined();
  });

  it('refuses a key the PDS does not know (exit 1, nothing watched) unless --force', async () => {
    // Prepare
    const env = { STATE_BUCKET: 'state', PDS_BASE_URL: pdsUrl, PDS_USERNAME: 'u', PDS_PASSWORD: 'p' };

    // Act
    const refused = await pds(['watch', 'add', '04012345678925', 'unknown über'], env);
    const forced = await pds(['watch', 'add', 'unknown über', '--force'], env);

    // Assess
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the PDS does not know "unknown über"; nothing was watched');
    expect(refused.stderr).toContain('--force');
    expect(await getWatchEntry(store, '04012345678925')).toBeUndefined();
    expect(forced.code).toBe(0);
    expect((await getWatchEntry(store, 'unknown über'))?.sources).toEqual(['operator']);
  });

  it('names the missing state bucket in one line and exits 2', async () => {
    // Act
    const run = await pds(['watch', 'list']);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('STATE_BUCKET');
  });
});
