import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileSecretStore } from '../../packages/bridge/src/webhooks/files/store.ts';
import { MemorySecretStore } from '../../packages/bridge/src/webhooks/index.ts';
import { describeSecretStoreBehaviour } from '../helpers/secret-store-suite.ts';

const folders: string[] = [];
async function freshFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'pds-secret-store-'));
  folders.push(folder);
  return folder;
}
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describeSecretStoreBehaviour('MemorySecretStore', () => new MemorySecretStore());
describeSecretStoreBehaviour('FileSecretStore', async () => new FileSecretStore(await freshFolder()));

describe('FileSecretStore on disk', () => {
  it('writes each secret readable by its owner only, in folders only its owner may enter', async () => {
    // prepare
    const folder = await freshFolder();
    const store = new FileSecretStore(folder);

    // act
    await store.create('webhooks/ep_1/s_1', 'whsec_x');

    // assess
    const [file] = await readdir(path.join(folder, 'webhooks', 'ep_1'));
    expect((await stat(path.join(folder, 'webhooks', 'ep_1', file as string))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(folder, 'webhooks'))).mode & 0o777).toBe(0o700);
  });

  it('refuses a name that would leave its folder', async () => {
    // prepare
    const store = new FileSecretStore(await freshFolder());

    // act / assess
    await expect(store.create('../outside', 'x')).rejects.toThrow(/Not a secret name/);
  });
});
