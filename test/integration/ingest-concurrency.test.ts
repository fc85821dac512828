/**
 * Concurrent deliveries of one object write. The claim relies on S3 conditional writes, which the
 * emulator does not enforce, so the state bucket is aws-sdk-client-mock enforcing them as S3 does;
 * the object comes from the S3 emulator and the PDS is the simulator over HTTP.
 */

import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestInProgressError } from '../../packages/bridge/src/ingest/errors.ts';
import { type IngestObjectDeps, ingestObject } from '../../packages/bridge/src/ingest/ingest-object.ts';
import { MemoryObjectTagger } from '../../packages/bridge/src/ingest/memory-tagger.ts';
import { S3ObjectSource } from '../../packages/bridge/src/ingest/s3/adapters.ts';
import type { ObjectWriteEvent } from '../../packages/bridge/src/ingest/s3-event.ts';
import type { ClosablePdsClient } from '../../packages/bridge/src/pds/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { mockConditionalS3 } from '../helpers/s3-conditional-mock.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

let aws: AwsEmulator;
let sim: RunningSimulator;
let pds: ClosablePdsClient;

beforeAll(async () => {
  aws = await startAwsEmulator({ buckets: ['drops'] });
  sim = await startSimulator({
    demoData: false,
    faults: { latencyMs: 20, pathPrefix: '/api/v1/gatherings' },
  });
  pds = simulatorClient(sim);
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
  await aws?.close();
});

describe('concurrent deliveries of one object write', () => {
  it('upload and import once; the others back off and later find the write finished', async () => {
    // prepare
    const state = mockConditionalS3('state');
    const sink = new RecordingSink();
    const events = sink.events;
    const deps = (owner: string): IngestObjectDeps => ({
      pds,
      store: new S3StateStore({ client: state.client, bucket: 'state' }),
      events: sink,
      source: new S3ObjectSource(aws.s3),
      tagger: new MemoryObjectTagger(),
      owner,
      leaseMs: 60_000,
    });
    const put = await aws.s3.send(
      new PutObjectCommand({
        Bucket: 'drops',
        Key: 'in/race.csv',
        Body: 'primaryKey__\n8001\n',
        ContentType: 'text/csv',
      }),
    );
    const write: ObjectWriteEvent = {
      bucket: 'drops',
      key: 'in/race.csv',
      etag: (put.ETag ?? '').replaceAll('"', ''),
      sequencer: '0062E99A88DC407460',
      size: 18,
      eventName: 'ObjectCreated:Put',
    };
    const gatheringsBefore = sim.state.gatherings.size;

    // act
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => ingestObject({ ...write }, deps(`d${i}`))),
    );
    const redelivered = await Promise.all(
      results
        .filter((r) => r.status === 'rejected')
        .map((_, i) => ingestObject({ ...write }, deps(`again${i}`))),
    );

    // assess
    const imported = results.filter((r) => r.status === 'fulfilled' && r.value.status === 'imported');
    const backedOff = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason);
    expect(imported).toHaveLength(1);
    expect(backedOff).toHaveLength(5);
    for (const reason of backedOff) expect(reason).toBeInstanceOf(IngestInProgressError);
    expect(redelivered.every((outcome) => outcome.status === 'duplicate')).toBe(true);
    expect(sim.state.gatherings.size - gatheringsBefore).toBe(1);
    expect(sim.state.imports.filter((i) => i.path === 'race.csv')).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(['pds.ingest.completed']);
  });
});
