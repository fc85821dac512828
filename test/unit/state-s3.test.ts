import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  StateConflictError,
  StateStoreError,
  StateValueError,
} from '../../packages/bridge/src/state/errors.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { mockConditionalS3, s3Error } from '../helpers/s3-conditional-mock.ts';
import { describeStateStoreBehaviour } from '../helpers/state-store-suite.ts';

describeStateStoreBehaviour(
  'S3StateStore over an S3 that enforces conditional writes',
  () => new S3StateStore({ client: mockConditionalS3().client, bucket: 'state', listPageSize: 2 }),
  { conditional: true },
);

describe('S3StateStore', () => {
  it('creates with If-None-Match * and a JSON content type', async () => {
    // prepare
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });

    // act
    const outcome = await store.create('checkpoints/a.json', { lastId: 3 });

    // assess
    const [put] = s3.stub.commandCalls(PutObjectCommand);
    expect(put?.args[0].input).toMatchObject({
      Bucket: 'state',
      Key: 'checkpoints/a.json',
      Body: '{"lastId":3}',
      ContentType: 'application/json',
      IfNoneMatch: '*',
    });
    expect(outcome).toEqual({ created: true, etag: s3.objects.get('checkpoints/a.json')?.etag });
  });

  it('updates and deletes with If-Match on the ETag that was read', async () => {
    // prepare
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });
    const created = await store.create('watch/k.json', { a: 1 });
    if (!created.created) throw new Error('create failed');

    // act
    const updated = await store.update('watch/k.json', { a: 2 }, created.etag);
    await store.delete('watch/k.json', updated.etag);

    // assess
    expect(s3.stub.commandCalls(PutObjectCommand)[1]?.args[0].input).toMatchObject({ IfMatch: created.etag });
    expect(s3.stub.commandCalls(DeleteObjectCommand)[0]?.args[0].input).toMatchObject({
      Key: 'watch/k.json',
      IfMatch: updated.etag,
    });
    expect(s3.objects.size).toBe(0);
  });

  it('retries a create that S3 answers with 409 ConditionalRequestConflict', async () => {
    // prepare
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state', createConflictRetries: 3 });
    s3.injectConflicts(2);

    // act
    const outcome = await store.create('ingest/b/h/e-1.json', { state: 'claimed' });

    // assess
    expect(outcome.created).toBe(true);
    expect(s3.stub.commandCalls(PutObjectCommand)).toHaveLength(3);
  });

  it('stops retrying a create after the bounded number of 409s', async () => {
    // prepare
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state', createConflictRetries: 2 });
    s3.injectConflicts(10);

    // act
    const create = store.create('ingest/b/h/e-1.json', { state: 'claimed' });

    // assess
    await expect(create).rejects.toBeInstanceOf(StateConflictError);
    expect(s3.stub.commandCalls(PutObjectCommand)).toHaveLength(3);
  });

  it('reports a 409 on update as a conflict to re-read, without retrying it blindly', async () => {
    // prepare
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });
    const created = await store.create('checkpoints/c.json', { n: 1 });
    if (!created.created) throw new Error('create failed');
    s3.injectConflicts(1);

    // act
    const update = store.update('checkpoints/c.json', { n: 2 }, created.etag);

    // assess
    await expect(update).rejects.toThrow(/concurrent conditional write/);
    expect(s3.stub.commandCalls(PutObjectCommand)).toHaveLength(2);
  });

  it('takes a repeated conditional delete refused 412 on a key already gone as done, and one that meets another version as a conflict', async () => {
    // prepare: the SDK's second send of a delete whose first took effect; S3 answers it 404, but stores
    // that follow HTTP's If-Match rules answer 412, which a server we test against does not produce
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });
    const gone = await store.create('leases/gone.json', { owner: 'run-1' });
    const replaced = await store.create('leases/replaced.json', { owner: 'run-1' });
    if (!gone.created || !replaced.created) throw new Error('create failed');
    s3.stub.on(DeleteObjectCommand).callsFake(async (input) => {
      if (input.Key === 'leases/gone.json') s3.objects.delete(input.Key);
      else await store.update('leases/replaced.json', { owner: 'run-2' }, replaced.etag);
      const refusal = s3Error('PreconditionFailed', 412);
      refusal.$metadata.attempts = 2;
      throw refusal;
    });

    // act
    const deletingGone = store.delete('leases/gone.json', gone.etag);
    const deletingReplaced = store.delete('leases/replaced.json', replaced.etag);

    // assess
    await expect(deletingGone).resolves.toBeUndefined();
    await expect(deletingReplaced).rejects.toBeInstanceOf(StateConflictError);
    expect(JSON.parse(s3.objects.get('leases/replaced.json')?.body ?? '')).toEqual({ owner: 'run-2' });
  });

  it('gets through a 409 inside mutate by reading again', async () => {
    // prepare
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });
    await store.create('checkpoints/c.json', { n: 1 });
    s3.injectConflicts(1);

    // act
    const result = await store.mutate<{ n: number }>('checkpoints/c.json', (c) => ({ n: (c?.n ?? 0) + 1 }), {
      baseDelayMs: 1,
    });

    // assess
    expect(result).toMatchObject({ value: { n: 2 }, written: true, attempts: 2 });
    expect(s3.stub.commandCalls(GetObjectCommand)).toHaveLength(2);
  });

  it('names the bucket, the key and what to check when S3 refuses access', async () => {
    // prepare
    const s3 = mockConditionalS3();
    s3.stub.on(PutObjectCommand).rejects(s3Error('AccessDenied', 403, 'Access Denied'));
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });

    // act
    const create = store.create('checkpoints/a.json', {});

    // assess
    await expect(create).rejects.toBeInstanceOf(StateStoreError);
    await expect(create).rejects.toThrow(
      "PutObject on s3://state/checkpoints/a.json failed with AccessDenied (403): check the function's IAM permissions",
    );
    await expect(create).rejects.toMatchObject({ retryable: false });
  });

  it('says STATE_BUCKET is wrong when the bucket does not exist', async () => {
    // prepare
    const s3 = mockConditionalS3('state');
    const store = new S3StateStore({ client: s3.client, bucket: 'no-such-bucket' });

    // act
    const get = store.get('checkpoints/a.json');

    // assess
    await expect(get).rejects.toThrow(/the bucket no-such-bucket does not exist; check STATE_BUCKET/);
  });

  it('marks S3 server errors as retryable', async () => {
    // prepare
    const s3 = mockConditionalS3();
    s3.stub.on(ListObjectsV2Command).rejects(s3Error('InternalError', 500));
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });

    // act
    const listing = (async () => {
      for await (const _ of store.list('watch/')) {
        // drain
      }
    })();

    // assess
    await expect(listing).rejects.toMatchObject({ name: 'StateStoreError', retryable: true });
  });

  it('names the key of a stored document that is not JSON', async () => {
    // prepare
    const s3 = mockConditionalS3();
    s3.stub.on(GetObjectCommand).resolves({
      ETag: '"x"',
      Body: { transformToString: async () => '{broken' } as unknown as GetObjectCommandOutput['Body'],
    });
    const store = new S3StateStore({ client: s3.client, bucket: 'state' });

    // act
    const get = store.get('publications/p1.json');

    // assess
    await expect(get).rejects.toBeInstanceOf(StateValueError);
    await expect(get).rejects.toThrow(/"publications\/p1.json": the stored document is not valid JSON/);
  });

  it('follows continuation tokens until the listing ends', async () => {
    // prepare
    const s3 = mockConditionalS3();
    const store = new S3StateStore({ client: s3.client, bucket: 'state', listPageSize: 2 });
    for (let i = 0; i < 5; i++) await store.create(`watch/${i}.json`, { i });

    // act
    const keys: string[] = [];
    for await (const key of store.list('watch/')) keys.push(key);

    // assess
    expect(keys).toEqual(['watch/0.json', 'watch/1.json', 'watch/2.json', 'watch/3.json', 'watch/4.json']);
    const calls = s3.stub
      .commandCalls(ListObjectsV2Command)
      .map((call) => call.args[0].input.ContinuationToken);
    expect(calls).toEqual([undefined, 'watch/1.json', 'watch/3.json']);
  });
});
