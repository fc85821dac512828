/**
 * A 1,000-member ZIP ingested on an S3 that enforces conditional writes (moto behind the atomic proxy)
 * against the PDS simulator over HTTP, with deliveries killed at seeded random moments (during the
 * upload, between an import and its record, in the middle of a progress write). Each later delivery
 * takes the dead one's claim over once its lease has run out, as SQS would bring the message back.
 *
 * What must hold: every member imported; none more than twice; the repeats no more than
 * INGEST_IMPORT_CONCURRENCY per kill (the documented window, docs/operations.md); the progress
 * written in total stays linear in the members (entries once, then small records). And a record left
 * by the earlier layout (entries inline) is resumed on S3 and carried over.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import { DEFAULT_IMPORT_CONCURRENCY } from '../../packages/bridge/src/ingest/import-ledger.ts';
import { type IngestOutcome, ingestObject } from '../../packages/bridge/src/ingest/ingest-object.ts';
import { ingestEntriesKey, ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import type { IngestProgressRecord } from '../../packages/bridge/src/ingest/progress.ts';
import { S3ObjectSource } from '../../packages/bridge/src/ingest/s3/adapters.ts';
import type { ObjectWriteEvent } from '../../packages/bridge/src/ingest/s3-event.ts';
import type { ClosablePdsClient } from '../../packages/bridge/src/pds/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { mulberry32 } from '../../packages/simulator/src/random.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { KilledError, KillSwitch } from '../helpers/kill-switch.ts';
import { describeOnMoto, type MotoServer, motoS3Client, startMoto } from '../helpers/moto.ts';
import { type S3Proxy, startS3Proxy } from '../helpers/s3-proxy.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import { TrafficCountingStore } from '../helpers/state-traffic.ts';

const MEMBERS = 1000;
const KILLS = 6;
const LEASE_MS = 60_000;

describeOnMoto('ingest of a large archive with kills at random moments', () => {
  let moto: MotoServer;
  let proxy: S3Proxy;
  let s3: S3Client;
  let sim: RunningSimulator;
  let pds: ClosablePdsClient;

  beforeAll(async () => {
    moto = await startMoto({ buckets: ['drops', 'state'] });
    proxy = await startS3Proxy(moto.endpoint);
    s3 = motoS3Client(proxy.endpoint, moto.region);
    // A little latency on imports, so several are in flight whenever a kill comes.
    sim = await startSimulator({ demoData: false, faults: { latencyMs: 3, pathPrefix: '/api/v1/imports' } });
    pds = simulatorClient(sim);
  });

  afterAll(async () => {
    s3?.destroy();
    await pds?.close();
    await sim?.close();
    await proxy?.close();
    await moto?.close();
  });

  async function dropZip(key: string, count: number): Promise<ObjectWriteEvent> {
    const zip = new ZipFile();
    for (let i = 0; i < count; i++) zip.addBuffer(Buffer.from(`primaryKey__\n${i}\n`), `m${i}.csv`);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const put = await s3.send(new PutObjectCommand({ Bucket: 'drops', Key: key, Body: body }));
    return {
      bucket: 'drops',
      key,
      etag: (put.ETag ?? '').replaceAll('"', ''),
      sequencer: '01',
      size: body.length,
      eventName: 'ObjectCreated:Put',
    };
  }

  it('imports each of 1,000 members once, apart from at most INGEST_IMPORT_CONCURRENCY repeats per kill', async () => {
    // prepare: each delivery dies at a seeded random call among its first 300 (state and PDS requests:
    // the upload, imports, record writes), until one gets through
    const write = await dropZip('incoming/thousand.zip', MEMBERS);
    const random = mulberry32(20);
    const killPoints = Array.from({ length: KILLS }, () => 1 + Math.floor(random() * 300));
    const store = new TrafficCountingStore(new S3StateStore({ client: s3, bucket: 'state' }), (key) =>
      key.includes('/entries/') ? 'entries' : 'record',
    );
    const source = new S3ObjectSource(s3);
    const events = new RecordingSink();
    const deliver = (attempt: number, killAt: number) => {
      const kill = new KillSwitch(killAt);
      return ingestObject(write, {
        pds: kill.pds(pds),
        store: kill.store(store),
        events,
        source,
        owner: `delivery-${attempt}`,
        leaseMs: LEASE_MS,
        // Each delivery comes after the lease of the one before ran out.
        now: () => Date.now() + attempt * (LEASE_MS + 1),
      });
    };

    // act
    let kills = 0;
    let outcome: IngestOutcome | undefined;
    for (const [attempt, killAt] of [...killPoints, Number.POSITIVE_INFINITY].entries()) {
      try {
        outcome = await deliver(attempt, killAt);
        break;
      } catch (error) {
        if (!(error instanceof KilledError)) throw error;
        kills += 1;
      }
    }

    // assess: several kills hit, then a delivery finished
    expect(kills).toBeGreaterThanOrEqual(3);
    expect(outcome?.status).toBe('imported');
    const record = (await store.get<IngestProgressRecord>(ingestProgressKey(write)))?.value;
    expect(record).toMatchObject({ status: 'done', entryCount: MEMBERS, importedRanges: [[0, MEMBERS]] });

    // assess: each member of the recorded gathering imported, at most twice, repeats within the window
    const perPath = new Map<string, number>();
    for (const taken of sim.state.imports) {
      if (taken.gatheringKey !== record?.gatheringKey) continue;
      perPath.set(taken.path, (perPath.get(taken.path) ?? 0) + 1);
    }
    expect(perPath.size).toBe(MEMBERS);
    const repeats = [...perPath.values()].reduce((sum, count) => sum + count - 1, 0);
    expect(Math.max(...perPath.values())).toBeLessThanOrEqual(2);
    expect(repeats).toBeLessThanOrEqual(kills * DEFAULT_IMPORT_CONCURRENCY);
    // One completed event with every member.
    const completed = events.events.find((event) => event.type === 'pds.ingest.completed');
    expect(completed?.type === 'pds.ingest.completed' && completed.data.entriesImported).toHaveLength(
      MEMBERS,
    );

    // assess: the progress written is linear: the entries (once per gathering) and small records
    const recordBytes = store.bytesByKind.get('record') ?? 0;
    expect(recordBytes / MEMBERS).toBeLessThan(800);
  });
  it('resumes a record of the earlier layout (entries inline) on S3, importing only the rest, and carries it over', async () => {
    // prepare: a delivery of the earlier code uploaded 50 members, imported 20, and died
    const write = await dropZip('incoming/earlier.zip', 50);
    const uploaded = await pds.uploadGathering({
      stream: (await new S3ObjectSource(s3).open(write)).stream,
      size: write.size,
      fileName: 'earlier.zip',
      contentType: 'application/zip',
    });
    const store = new S3StateStore({ client: s3, bucket: 'state' });
    const gatheringKey = uploaded[0]?.gatheringKey ?? '';
    await store.create(ingestProgressKey(write), {
      bucket: write.bucket,
      key: write.key,
      etag: write.etag,
      sequencer: write.sequencer,
      status: 'uploaded',
      owner: 'earlier',
      leaseUntil: 0,
      attempts: 1,
      claimedAt: 1,
      updatedAt: 1,
      size: write.size,
      gatheringKey,
      entries: uploaded.map((entry, index) => ({
        path: entry.path,
        assetKey: entry.assetKey,
        imported: index < 20,
      })),
    } satisfies IngestProgressRecord);
    const importsBefore = sim.state.imports.length;

    // act
    const outcome = await ingestObject(write, {
      pds,
      store,
      events: new RecordingSink(),
      source: new S3ObjectSource(s3),
      owner: 'current',
      leaseMs: LEASE_MS,
    });

    // assess
    expect(outcome).toMatchObject({
      status: 'imported',
      importsStarted: 30,
      bytesUploaded: 0,
      resumed: true,
    });
    const taken = sim.state.imports.slice(importsBefore).map((taken) => taken.path);
    expect(new Set(taken)).toEqual(new Set(uploaded.slice(20).map((entry) => entry.path)));
    const record = (await store.get<IngestProgressRecord>(ingestProgressKey(write)))?.value;
    expect(record).toMatchObject({ status: 'done', entryCount: 50, importedRanges: [[0, 50]] });
    expect(record?.entries).toBeUndefined();
    expect((await store.get(ingestEntriesKey(ingestProgressKey(write), gatheringKey)))?.value).toMatchObject({
      gatheringKey,
      entries: uploaded.map(({ path, assetKey }) => ({ path, assetKey })),
    });
  });
});
