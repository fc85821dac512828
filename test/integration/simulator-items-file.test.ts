/**
 * The simulator's `itemsFile` (the local stack's --data-dir): items imported before a restart are
 * still there after it, so a publication of them still works.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'simulator-items-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importCsv(sim: RunningSimulator, csv: string): Promise<void> {
  const pds = simulatorClient(sim);
  try {
    const [entry] = await pds.uploadGathering({
      stream: Readable.from([Buffer.from(csv)]),
      size: Buffer.byteLength(csv),
      fileName: 'items.csv',
      contentType: 'text/csv',
    });
    await pds.startImport({ gatheringKey: entry?.gatheringKey ?? '', path: entry?.path ?? '' });
  } finally {
    await pds.close();
  }
}

describe('the simulator with an items file', () => {
  it('remembers the items imported before a restart', async () => {
    // prepare
    const itemsFile = join(dir, 'kept', 'items.json');
    const first = await startSimulator({ demoData: false, itemsFile });
    await importCsv(first, 'primaryKey__,name\n0614141000012,Still mineral water\n');
    await first.close();

    // act
    const second = await startSimulator({ demoData: false, itemsFile });
    try {
      // assess
      expect(second.state.items.get('0614141000012')).toEqual({
        primaryKey__: '0614141000012',
        name: 'Still mineral water',
      });
    } finally {
      await second.close();
    }
  });

  it('refuses to start on a file that is not its items, naming the file and the fix', async () => {
    const itemsFile = join(dir, 'broken.json');
    await writeFile(itemsFile, '{"not":"items"');

    await expect(startSimulator({ demoData: false, itemsFile })).rejects.toThrow(`${itemsFile} is not JSON`);
  });
});
