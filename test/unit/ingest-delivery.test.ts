import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ingestS3Event, ingestSqsBody } from '../../packages/bridge/src/ingest/delivery.ts';
import { IngestEventError, ObjectSourceError } from '../../packages/bridge/src/ingest/errors.ts';
import { OncePerBatch } from '../../packages/bridge/src/ingest/once-per-batch.ts';
import type { IngestPdsClient, ObjectTagger } from '../../packages/bridge/src/ingest/ports.ts';
import { DEFAULT_STEP_RETRY } from '../../packages/bridge/src/ingest/step-retry.ts';
import { PdsServerError } from '../../packages/bridge/src/pds/errors.ts';
import { createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { ingestHarness } from '../helpers/ingest-harness.ts';
import { s3Event, s3Record, s3TestEvent } from '../helpers/s3-events.ts';

describe('ingestSqsBody', () => {
  it('ingests accepted writes, skips the others, and counts both', async () => {
    // prepare
    const { deps, sinks, imports, count } = ingestHarness();
    const body = JSON.stringify(
      s3Event([
        s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1 }),
        s3Record({ bucket: 'drops', key: 'in/folder/', size: 0 }),
        s3Record({ bucket: 'drops', key: 'elsewhere/b.csv', size: 1 }),
        s3Record({ bucket: 'drops', key: 'in/c.csv', size: 1 }),
      ]),
    );

    // act
    const summary = await ingestSqsBody(body, deps, sinks);

    // assess
    expect(summary).toEqual({ imported: 2, failed: 0, duplicate: 0, skipped: 2 });
    expect(imports).toEqual(['a.csv', 'c.csv']);
    expect(count('IngestCompleted')).toBe(2);
    expect(count('IngestSkipped')).toBe(2);
    expect(count('IngestBytes')).toBe(2);
  });

  it('refuses a write in a bucket it does not serve with a failure event naming the bucket, reading nothing', async () => {
    // prepare: a forged notification names a record of the state bucket
    const { deps, sinks, events, imports } = ingestHarness();
    let opened = 0;
    const source = {
      open: (...args: Parameters<typeof deps.source.open>) => {
        opened++;
        return deps.source.open(...args);
      },
    };
    const body = JSON.stringify(
      s3Event([
        s3Record({ bucket: 'pds-bridge-state', key: 'in/publications.csv', size: 1 }),
        s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1 }),
      ]),
    );

    // act
    const summary = await ingestSqsBody(body, { ...deps, source }, sinks);

    // assess
    expect(summary).toMatchObject({ failed: 1, imported: 1 });
    expect(opened).toBe(1);
    expect(imports).toEqual(['a.csv']);
    const failed = events.filter((event) => event.type === 'pds.ingest.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.data).toMatchObject({
      code: 'invalid-notification',
      retryable: false,
      bucket: 'pds-bridge-state',
      reason: expect.stringMatching(
        /bucket "pds-bridge-state", which this ingest does not serve \(INGEST_BUCKETS: "drops"\); nothing was read/,
      ),
    });
  });

  it('finishes the other writes of a message, then fails it for the one that must be retried', async () => {
    // prepare
    const { deps, sinks, imports, count, logs } = ingestHarness(['b.csv']);
    const body = JSON.stringify(
      s3Event([
        s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1 }),
        s3Record({ bucket: 'drops', key: 'in/b.csv', size: 1 }),
        s3Record({ bucket: 'drops', key: 'in/c.csv', size: 1 }),
      ]),
    );

    // act
    const run = ingestSqsBody(body, deps, sinks);

    // assess
    await expect(run).rejects.toBeInstanceOf(PdsServerError);
    expect(imports).toEqual(['a.csv', 'c.csv']);
    expect(count('IngestRetried')).toBe(1);
    expect(logs.find(([level]) => level === 'warn')?.[2]).toMatchObject({
      s3Key: 'in/b.csv',
      retryable: true,
    });
  });

  it('finishes an ingest whose imports succeeded when tagging the object throws, and counts the missing tags', async () => {
    // prepare: S3 answers the tagging with an error the tagger does not map (a 500)
    const { deps, sinks, imports, events, count, logs } = ingestHarness();
    const tagger: ObjectTagger = {
      async tag(object) {
        throw new ObjectSourceError(
          'unavailable',
          object,
          'tagging the object failed (InternalError (500))',
          true,
        );
      },
    };
    const body = JSON.stringify(s3Event([s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1 })]));

    // act
    const summary = await ingestSqsBody(body, { ...deps, tagger }, sinks);
    const again = await ingestSqsBody(body, { ...deps, tagger }, sinks);

    // assess
    expect(summary).toEqual({ imported: 1, failed: 0, duplicate: 0, skipped: 0 });
    expect(again.duplicate).toBe(1);
    expect(imports).toEqual(['a.csv']);
    expect(events.map((event) => event.type)).toEqual(['pds.ingest.completed']);
    expect(count('IngestTagFailed')).toBe(1);
    expect(count('IngestRetried')).toBe(0);
    expect(logs).toContainEqual([
      'warn',
      'The dropped object was not tagged',
      expect.objectContaining({ key: 'in/a.csv', reason: expect.stringContaining('500') }),
    ]);
  });

  it('retries both records of one write in a batch when the one that ingests it fails, uploading once', async () => {
    // prepare: one write notified twice in a batch; the PDS is down for its upload
    const { deps, sinks, count } = ingestHarness(['a.csv']);
    let uploads = 0;
    const pds: IngestPdsClient = {
      ...deps.pds,
      uploadGathering: (source) => {
        uploads += 1;
        return deps.pds.uploadGathering(source);
      },
    };
    const batch = new OncePerBatch();
    const body = JSON.stringify(s3Event([s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1 })]));

    // act
    const results = await Promise.allSettled([
      ingestSqsBody(body, { ...deps, pds, batch, owner: 'record-1' }, sinks),
      ingestSqsBody(body, { ...deps, pds, batch, owner: 'record-2' }, sinks),
    ]);

    // assess
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(uploads).toBe(1);
    expect(count('IngestRetried')).toBe(2);
  });

  it('repeats a transient PDS answer within the invocation and counts the repetition', async () => {
    // prepare: the upload meets one 503
    const { deps, sinks, imports, count } = ingestHarness();
    let failures = 1;
    const pds: IngestPdsClient = {
      ...deps.pds,
      uploadGathering: (source) => {
        if (failures-- > 0) throw new PdsServerError(503, { method: 'POST', path: '/api/v1/gatherings' }, '');
        return deps.pds.uploadGathering(source);
      },
    };
    const retry = { ...DEFAULT_STEP_RETRY, remainingMs: () => 900_000, sleep: async () => {} };
    const body = JSON.stringify(s3Event([s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1 })]));

    // act
    const summary = await ingestSqsBody(body, { ...deps, pds, retry }, sinks);

    // assess
    expect(summary.imported).toBe(1);
    expect(imports).toEqual(['a.csv']);
    expect(count('IngestPdsRetried')).toBe(1);
    expect(count('IngestRetried')).toBe(0);
  });

  it('counts a redelivered write as a duplicate', async () => {
    const { deps, sinks, imports, count } = ingestHarness();
    const body = JSON.stringify(s3Event([s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1 })]));

    await ingestSqsBody(body, deps, sinks);
    const summary = await ingestSqsBody(body, deps, sinks);

    expect(summary).toEqual({ imported: 0, failed: 0, duplicate: 1, skipped: 0 });
    expect(imports).toHaveLength(1);
    expect(count('IngestDuplicate')).toBe(1);
  });

  it('acknowledges the S3 test event without doing anything', async () => {
    const { deps, sinks, imports, events } = ingestHarness();

    const summary = await ingestSqsBody(JSON.stringify(s3TestEvent('drops')), deps, sinks);

    expect(summary).toEqual({ imported: 0, failed: 0, duplicate: 0, skipped: 1 });
    expect(imports).toHaveLength(0);
    expect(events).toHaveLength(0);
  });

  it('logs an unreadable message and fails it, so it ends in the dead-letter queue', async () => {
    const { deps, sinks, logs } = ingestHarness();

    await expect(ingestSqsBody('not json', deps, sinks)).rejects.toBeInstanceOf(IngestEventError);
    expect(logs).toContainEqual([
      'error',
      expect.stringContaining('Unreadable S3 notification'),
      expect.anything(),
    ]);
  });
});

describe('ingestS3Event', () => {
  it('ingests a plain S3 event of a direct invocation', async () => {
    const { deps, sinks, imports } = ingestHarness();

    const summary = await ingestS3Event(
      s3Event([s3Record({ bucket: 'drops', key: 'in/a b.csv', size: 1 })]),
      deps,
      sinks,
    );

    expect(summary.imported).toBe(1);
    expect(imports).toEqual(['a b.csv']);
  });
});

describe('ingest failures against a PDS that echoes what it received', () => {
  it('report the key intact when it contains the password, and never the credentials', async () => {
    // Prepare: password `demo`, a key that contains it, a server echoing every place a secret lives
    const server = http.createServer((req, res) => {
      req.resume();
      const auth = req.headers.authorization ?? '';
      const decoded = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString();
      const message = `file demo-key-1.csv refused; you sent ${auth} (${decoded}) from http://pds-user:demo@pds.example/ with {"username":"pds-user","password":"demo"}`;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 400, message }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const pds = createPdsClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { username: 'pds-user', password: 'demo' },
    });
    const { deps, sinks, logs, events } = ingestHarness();
    const body = JSON.stringify(s3Event([s3Record({ bucket: 'drops', key: 'in/demo-key-1.csv', size: 1 })]));

    // Act
    try {
      await ingestSqsBody(body, { ...deps, pds }, sinks);
    } finally {
      await pds.close();
      server.close();
    }

    // Assess
    const [event] = events;
    expect(event?.type).toBe('pds.ingest.failed');
    const reported = JSON.stringify([event, logs]);
    expect(reported).toContain('demo-key-1');
    expect(reported).not.toContain('[REDACTED]-key-1');
    const token = Buffer.from('pds-user:demo').toString('base64');
    expect(reported).not.toContain(token);
    expect(reported).not.toContain('pds-user:demo');
    expect(reported).not.toContain('"password":"demo"');
    expect(reported).not.toContain('\\"password\\":\\"demo\\"');
  });
});
