import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { StateStoreError } from '../../packages/bridge/src/state/errors.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { type ProxiedRequest, proxiedStateBucket } from '../helpers/s3-proxy.ts';

/** A GET of one object (not a listing, whose path is the bucket's). */
const objectGet = (request: ProxiedRequest) =>
  request.method === 'GET' && /^\/[^/?]+\/[^?]+/.test(request.url);
/** A ListObjectsV2 of the bucket. */
const listing = (request: ProxiedRequest) => request.method === 'GET' && request.url.includes('list-type=2');

describeOnMoto('state reads answered 403 instead of 404', () => {
  let aws: MotoServer;
  const open: Array<{ close(): Promise<void> } | { destroy(): void }> = [];

  beforeAll(async () => {
    aws = await startMoto({});
  });

  afterEach(async () => {
    for (const resource of open.splice(0).reverse()) {
      if ('close' in resource) await resource.close();
      else resource.destroy();
    }
  });

  afterAll(async () => {
    await aws?.close();
  });

  /** A fresh bucket, reached through a proxy that answers 403 to the requests `deny` picks. */
  const denying = (deny: (request: ProxiedRequest) => boolean) => proxiedStateBucket(aws, { deny }, open);

  it('reports a key that does not exist as missing when its GET is answered 403', async () => {
    // prepare
    const { store, direct, proxy } = await denying(objectGet);
    // Keys that start with the one read, and one before it: none of them is the key.
    await direct.create('checkpoints/messaging-assets.json.bak', { lastId: 1 });
    await direct.create('checkpoints/messaging-assets.jso', { lastId: 2 });

    // act
    const read = await store.get('checkpoints/messaging-assets.json');

    // assess
    expect(read).toBeUndefined();
    expect(proxy.denied).toHaveLength(1);
  });

  it('lets a first create proceed after the missing key was read through a 403', async () => {
    // prepare
    const { store, direct } = await denying(objectGet);

    // act
    const before = await store.get('leases/poll.json');
    const created = await direct.create('leases/poll.json', { owner: 'run-1' });

    // assess
    expect(before).toBeUndefined();
    expect(created.created).toBe(true);
  });

  it('rethrows the denial when the key exists and its GET is forbidden', async () => {
    // prepare
    const { store, direct, bucket } = await denying(objectGet);
    await direct.create('watch/4006381333931.json', { primaryKey: '4006381333931' });

    // act
    const reading = store.get('watch/4006381333931.json');

    // assess
    await expect(reading).rejects.toBeInstanceOf(StateStoreError);
    await expect(reading).rejects.toThrow(
      `GetObject on s3://${bucket}/watch/4006381333931.json failed with AccessDenied (403): check the function's IAM permissions`,
    );
  });

  it('names the missing ListBucket grant when the listing is denied too', async () => {
    // prepare
    const { store, bucket, proxy } = await denying((r) => objectGet(r) || listing(r));

    // act
    const reading = store.get('publications/0b7c.json');

    // assess
    await expect(reading).rejects.toThrow(
      `grant the function s3:ListBucket on the bucket ${bucket} with a StringLike s3:prefix condition that covers this key`,
    );
    expect(proxy.denied.map((r) => (listing(r) ? 'list' : 'get'))).toEqual(['get', 'list']);
    expect(proxy.denied[1]?.url).toContain(`prefix=${encodeURIComponent('publications/0b7c.json')}`);
  });

  it('reads an existing key without listing when its GET is allowed', async () => {
    // prepare
    const { store, direct, proxy } = await denying(listing);
    await direct.create('checkpoints/supplier-reviews.json', { lastId: 7 });

    // act
    const read = await store.get('checkpoints/supplier-reviews.json');
    const missing = await store.get('checkpoints/none.json');

    // assess
    expect(read?.value).toEqual({ lastId: 7 });
    expect(missing).toBeUndefined();
    expect(proxy.denied).toEqual([]);
  });
});
