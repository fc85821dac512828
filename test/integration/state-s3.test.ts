import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import { checkpointKey } from '../../packages/bridge/src/polling/keys.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { describeStateStoreBehaviour } from '../helpers/state-store-suite.ts';

let aws: AwsEmulator;

beforeAll(async () => {
  aws = await startAwsEmulator({ buckets: ['state'] });
});

afterAll(async () => {
  await aws?.close();
});

// fauxqs ignores If-None-Match / If-Match, so only the unconditional behaviour runs here; the
// conditional paths run against the S3 adapter in test/unit/state-s3.test.ts. Its listing order is
// corrected to S3's byte order (packages/local/src/fauxqs-listing.ts, applied by ../helpers/fauxqs.ts), so
// listings are paged here in pages of 7.
describeStateStoreBehaviour(
  'S3StateStore over HTTP against the fauxqs emulator',
  () => {
    aws.server.emptyBucket('state');
    return new S3StateStore({ client: aws.s3, bucket: 'state', listPageSize: 7 });
  },
  { conditional: false },
);

describe('S3StateStore against the fauxqs emulator', () => {
  it('writes plain JSON documents that other tools can read', async () => {
    // prepare
    aws.server.emptyBucket('state');
    const store = new S3StateStore({ client: aws.s3, bucket: 'state' });
    const key = ingestProgressKey({
      bucket: 'drops',
      key: 'in/Ä b+c.csv',
      etag: '"d41d8cd98f00b204e9800998ecf8427e"',
    });

    // act
    const created = await store.create(key, { state: 'claimed', entries: [] });

    // assess
    const head = await aws.s3.send(new HeadObjectCommand({ Bucket: 'state', Key: key }));
    const object = await aws.s3.send(new GetObjectCommand({ Bucket: 'state', Key: key }));
    expect(head.ContentType).toBe('application/json');
    expect(created).toEqual({ created: true, etag: head.ETag });
    expect(JSON.parse(await (object.Body?.transformToString() ?? ''))).toEqual({
      state: 'claimed',
      entries: [],
    });
  });

  it('pages through a listing with continuation tokens', async () => {
    // prepare
    aws.server.emptyBucket('state');
    const store = new S3StateStore({ client: aws.s3, bucket: 'state', listPageSize: 3 });
    const keys = Array.from({ length: 10 }, (_, i) => `watch/${String(i).padStart(3, '0')}.json`);
    for (const key of keys) await store.create(key, { key });
    await store.create('watchlist/other.json', {});

    // act
    const listed: string[] = [];
    for await (const key of store.list('watch/')) listed.push(key);

    // assess
    expect(listed).toEqual(keys);
  });

  it('reports a missing state bucket as a configuration problem, not as an empty state', async () => {
    // prepare
    const store = new S3StateStore({ client: aws.s3, bucket: 'no-such-state-bucket' });

    // act
    const get = store.get(checkpointKey('x'));

    // assess
    await expect(get).rejects.toThrow(/NoSuchBucket.*check STATE_BUCKET/);
  });
});
