/**
 * The supplier-review poller end to end: a COMMUNICATION_CHANNEL publication in the simulator makes
 * the recipient's reviews appear; the poller turns them into events on a fauxqs queue.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudEvent, eventId } from '../../packages/bridge/src/events/index.ts';
import { resolveEventBody, SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { type ClosablePdsClient, createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { reviewFingerprint } from '../../packages/bridge/src/polling/supplier-reviews/fingerprint.ts';
import { pollSupplierReviews } from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import {
  type KeyProgress,
  readProgress,
} from '../../packages/bridge/src/polling/supplier-reviews/review-progress.ts';
import {
  chunkKeys,
  parseReviewKeyChunk,
} from '../../packages/bridge/src/polling/supplier-reviews/review-queue.ts';
import { SqsReviewKeyQueue } from '../../packages/bridge/src/polling/supplier-reviews/sqs/review-queue.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import { getWatchEntry, watch } from '../../packages/bridge/src/state/watch-list.ts';
import {
  DEMO_CHANNEL_IDS,
  DEMO_PRIMARY_KEYS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { approvedReview, drainQueue } from '../helpers/polling.ts';

async function progressOf(store: StateStore, primaryKey: string): Promise<KeyProgress | undefined> {
  return (await readProgress(store, [primaryKey])).get(primaryKey);
}

type ReviewEvent = CloudEvent<'pds.supplier-review.received'>;

const BUCKET = `reviews-${randomUUID().slice(0, 8)}`;
const QUEUE = 'review-events';
const DAY = 86_400_000;

let aws: AwsEmulator;
let sim: RunningSimulator;
let pds: ClosablePdsClient;
let store: S3StateStore;
let sink: SqsEventPublisher;

beforeAll(async () => {
  aws = await startAwsEmulator({ buckets: [BUCKET], queues: [QUEUE] });
  sim = await startSimulator({ reviewDelayMs: 20 });
  pds = createPdsClient({
    baseUrl: sim.url,
    credentials: { username: sim.username, password: sim.password },
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
  });
  store = new S3StateStore({ client: aws.s3, bucket: BUCKET });
  sink = new SqsEventPublisher({
    sqs: aws.sqs,
    queueUrl: () => aws.queueUrls[QUEUE] as string,
    claimCheck: { s3: aws.s3, bucket: BUCKET },
  });
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
  await aws?.close();
});

async function received(): Promise<ReviewEvent[]> {
  const messages = await drainQueue(aws.sqs, aws.queueUrls[QUEUE] as string);
  return Promise.all(
    messages.map(async (message) =>
      JSON.parse(await resolveEventBody(message.Body ?? '', message.MessageAttributes, aws.s3)),
    ),
  );
}

async function reviewsOf(primaryKey: string, count: number): Promise<void> {
  for (let waited = 0; (sim.state.supplierReviews.get(primaryKey)?.length ?? 0) < count; waited += 10) {
    if (waited > 5000) throw new Error(`the simulator produced no review for ${primaryKey}`);
    await sleep(10);
  }
}

describe('pollSupplierReviews against the simulator and fauxqs', () => {
  it('turns the reviews of a channel publication into events, once, and keeps unknown keys watched', async () => {
    // prepare: publish a clean and an invalid item to the German channel and watch both, plus a key the PDS does not know
    const { water, unnamed } = DEMO_PRIMARY_KEYS;
    const selection = await pds.createSelection([water, unnamed]);
    await pds.publish({
      selectionId: selection.selectionId,
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: DEMO_CHANNEL_IDS.germany }],
    });
    await watch(store, [water, unnamed, '00000000000000'], { ttlMs: 30 * DAY, source: 'publication:test' });
    await reviewsOf(water, 2);
    await reviewsOf(unnamed, 1);
    const deps = { pds, store, sink };

    // act
    const first = await pollSupplierReviews(deps, { runId: 'run-1', concurrency: 4 });
    const second = await pollSupplierReviews(deps, { runId: 'run-2', concurrency: 4 });
    const events = await received();

    // assess: the demo review of the water plus one new review per published item
    expect(first).toMatchObject({
      mode: 'inline',
      watched: 3,
      reviewsEmitted: 3,
      keysNotFound: 1,
      keysFailed: 0,
    });
    expect(second).toMatchObject({ reviewsEmitted: 0, keysNotFound: 1 });
    expect(events).toHaveLength(3);
    for (const event of events) {
      expect(event.id).toBe(
        eventId('pds.supplier-review.received', [
          event.data.review.primaryKey,
          reviewFingerprint(event.data.review),
        ]),
      );
    }
    const rejected = events.find((event) => event.data.review.primaryKey === unnamed);
    expect(rejected?.subject).toBe(`item/${unnamed}`);
    expect(rejected?.data.review).toMatchObject({
      reviewStatus: 'REVIEW',
      channelId: DEMO_CHANNEL_IDS.germany,
    });
    expect(rejected?.data.cic?.[0]).toMatchObject({ gdsnVersion: '3.1', state: 'REVIEW' });
    expect(rejected?.data.cic?.[0]?.statuses[0]?.code).toBe('CIC999');
    const approved = events.filter((event) => event.data.review.primaryKey === water);
    expect(approved.map((event) => event.data.cic?.[0]?.state)).toEqual(['SYNCHRONISED', 'SYNCHRONISED']);
    expect(await getWatchEntry(store, '00000000000000')).toBeDefined();
    expect((await progressOf(store, water))?.seen).toHaveLength(2);
  });

  it('emits a review that arrives between runs, and nothing twice when the PDS fails once', async () => {
    // prepare
    const key = DEMO_PRIMARY_KEYS.dishSoap;
    await watch(store, [key], { ttlMs: 30 * DAY, source: 'operator' });
    await pollSupplierReviews({ pds, store, sink }, { runId: 'run-0' });
    await received();
    const selection = await pds.createSelection([key]);
    await pds.publish({
      selectionId: selection.selectionId,
      destinations: [
        { destinationType: 'COMMUNICATION_CHANNEL', destinationId: DEMO_CHANNEL_IDS.netherlands },
      ],
    });
    await reviewsOf(key, 2);
    sim.failNext(1, {
      kind: 'status',
      status: 500,
      method: 'GET',
      pathPrefix: `/api/v1/supplierreviews/${key}`,
    });

    // act
    const failed = await pollSupplierReviews({ pds, store, sink }, { runId: 'run-1' });
    const recovered = await pollSupplierReviews({ pds, store, sink }, { runId: 'run-2' });
    const events = await received();

    // assess
    expect(failed).toMatchObject({ keysFailed: 1, failedKeys: [key] });
    expect(recovered).toMatchObject({ keysFailed: 0 });
    const forKey = events.filter((event) => event.data.review.primaryKey === key);
    expect(forKey).toHaveLength(1);
    expect(forKey[0]?.data.review.channelId).toBe(DEMO_CHANNEL_IDS.netherlands);
  });

  it('emits a review whose message and key hold characters SQS refuses', async () => {
    // prepare: a key with an emoji, a message with U+FFFE and U+FFFF
    const key = 'ITEM-😀-1';
    const xml =
      '<catalogueItemConfirmationMessage><note>a\uFFFEb\uFFFFc</note></catalogueItemConfirmationMessage>';
    const review = sim.state.addSupplierReview(approvedReview(key, { comment: 'looks good 👍' }), xml);
    await watch(store, [key], { ttlMs: 30 * DAY, source: 'operator' });

    // act
    const first = await pollSupplierReviews({ pds, store, sink }, { runId: 'run-awkward-1' });
    const second = await pollSupplierReviews({ pds, store, sink }, { runId: 'run-awkward-2' });
    const events = (await received()).filter((event) => event.data.review.primaryKey === key);

    // assess
    expect(first).toMatchObject({ keysFailed: 0 });
    expect(second).toMatchObject({ keysFailed: 0, reviewsEmitted: 0 });
    expect(events).toHaveLength(1);
    expect(events[0]?.subject).toBe(`item/${key}`);
    expect(events[0]?.data.review.comment).toBe('looks good 👍');
    expect(events[0]?.data.document?.root.note).toEqual([{ '#text': 'a\uFFFEb\uFFFFc' }]);
    expect(events[0]?.id).toBe(eventId('pds.supplier-review.received', [key, reviewFingerprint(review)]));
  });

  it('fans out a chunk whose keys hold characters SQS refuses, and the worker reads them unchanged', async () => {
    // prepare
    const queueUrl = `${aws.endpoint}/000000000000/fan-out-${randomUUID().slice(0, 8)}`;
    aws.server.createQueue(queueUrl.split('/').at(-1) as string);
    const keys = ['ITEM-😀', 'ITEM-\uFFFE', 'ITEM-\uFFFF', 'ITEM-plain'];
    const chunks = chunkKeys(keys, { runId: 'run-fan', now: new Date() });

    // act
    await new SqsReviewKeyQueue({ sqs: aws.sqs, queueUrl }).send(chunks);
    const messages = await drainQueue(aws.sqs, queueUrl, { expected: 1 });

    // assess
    expect(messages).toHaveLength(1);
    expect(parseReviewKeyChunk(messages[0]?.Body ?? '').keys).toEqual(keys);
  });
});
