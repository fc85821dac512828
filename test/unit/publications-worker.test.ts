import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { describe, expect, it } from 'vitest';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import {
  PdsInvalidRequestError,
  PdsInvalidResponseError,
  PdsNotFoundError,
  PdsServerError,
  PdsUnauthorizedError,
} from '../../packages/bridge/src/pds/errors.ts';
import type { PdsClient } from '../../packages/bridge/src/pds/index.ts';
import type { PublicationRequest } from '../../packages/bridge/src/pds/types.ts';
import {
  PublicationNotFoundError,
  PublicationRetryError,
} from '../../packages/bridge/src/publications/errors.ts';
import { publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import {
  PUBLICATION_ACTIVITY,
  type PublicationRecord,
} from '../../packages/bridge/src/publications/records.ts';
import {
  processPublication,
  publicationRecordHandler,
  type WorkerDependencies,
} from '../../packages/bridge/src/publications/worker.ts';
import { timeMarkerKey } from '../../packages/bridge/src/state/activity-index.ts';
import { StateConflictError } from '../../packages/bridge/src/state/errors.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { getWatchEntry } from '../../packages/bridge/src/state/watch-list.ts';
import { planReplay } from '../../packages/cli/src/ops/replay.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { publicationSqsRecord, sqsEvent } from '../helpers/publications.ts';

const DAY = 86_400_000;
const T0 = new Date('2026-11-20T09:15:00.000Z');
const ID = '7d3f0a52-1c4b-4e8a-9f26-3b5d7c9e1a04';
const KEYS = ['04012345678901', '04012345678902'];
const DESTINATIONS = [{ destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: 'gdsn-de' }];
const SELECTIONS = '/api/v1/selections';
const PUBLICATIONS = '/api/v1/publications';

function queuedRecord(id = ID): PublicationRecord {
  return {
    publicationId: id,
    status: 'queued',
    request: { primaryKeys: KEYS, destinations: DESTINATIONS },
    bodyHash: 'hash',
    requestedBy: 'local',
    createdAt: T0.toISOString(),
    updatedAt: T0.toISOString(),
    attempts: 0,
  };
}

/** A scripted PDS: each call takes the next scripted outcome (an Error to throw) or succeeds. */
function scriptedPds(
  script: { selections?: Array<Error | undefined>; publications?: Array<Error | undefined> } = {},
) {
  const calls = { selections: [] as string[][], publications: [] as PublicationRequest[] };
  let selectionNumber = 0;
  const pds: PdsClient = new FakePds({
    createSelection: async (primaryKeys) => {
      calls.selections.push([...primaryKeys]);
      const failure = script.selections?.shift();
      if (failure) throw failure;
      selectionNumber += 1;
      return { selectionId: `sel-${selectionNumber}`, numberOfItems: primaryKeys.length };
    },
    publish: async (request) => {
      calls.publications.push(request);
      const failure = script.publications?.shift();
      if (failure) throw failure;
    },
  });
  return { pds, calls };
}

async function setup(pds: PdsClient, record: PublicationRecord | null = queuedRecord()) {
  const store = new MemoryStateStore();
  if (record) await store.create(publicationKey(record.publicationId), record);
  const events = new RecordingSink();
  const deps: WorkerDependencies = {
    store,
    pds,
    events,
    maxAttempts: 3,
    watchTtlMs: 30 * DAY,
    now: () => T0,
  };
  const read = async () => (await store.get<PublicationRecord>(publicationKey(ID)))?.value;
  return { store, events, deps, read };
}

const unavailable = (path: string) => new PdsServerError(503, { method: 'POST', path }, '{"status":503}');

describe('processPublication', () => {
  it('creates the selection, publishes it, records the outcome, watches the keys and emits the completed event', async () => {
    // Prepare
    const { pds, calls } = scriptedPds();
    const { deps, events, store, read } = await setup(pds);

    // Act
    const outcome = await processPublication(deps, ID, 1);

    // Assess
    expect(outcome).toBe('published');
    expect(calls.selections).toEqual([KEYS]);
    expect(calls.publications).toEqual([{ selectionId: 'sel-1', destinations: DESTINATIONS }]);
    expect(await read()).toMatchObject({
      status: 'published',
      selectionId: 'sel-1',
      numberOfItems: 2,
      publishedAt: T0.toISOString(),
      notifiedAt: T0.toISOString(),
      attempts: 1,
    });
    expect(events.events).toHaveLength(1);
    expect(events.events[0]).toMatchObject({
      type: 'pds.publication.completed',
      subject: `publication/${ID}`,
      data: {
        publicationId: ID,
        selectionId: 'sel-1',
        numberOfItems: 2,
        destinations: DESTINATIONS,
        primaryKeys: KEYS,
      },
    });
    const watched = await getWatchEntry(store, KEYS[0] as string);
    expect(watched).toMatchObject({
      sources: [`publication:${ID}`],
      expiresAt: new Date(T0.getTime() + 30 * DAY).toISOString(),
    });
  });

  it('marks the notified publication in the activity index before its record, so replay finds it as the full read does', async () => {
    // Prepare
    const { pds } = scriptedPds();
    const { deps, store } = await setup(pds);
    const window = { since: T0.getTime() - 3_600_000, until: T0.getTime() + 1 };
    const ids = async (read: 'index' | 'full') =>
      (await planReplay(store, { ...window, kinds: ['publication'], read })).events.map((event) => event.id);

    // Act
    await processPublication(deps, ID, 1);

    // Assess
    expect(await ids('index')).toHaveLength(1);
    expect(await ids('index')).toEqual(await ids('full'));
    expect(
      await store.get(timeMarkerKey(PUBLICATION_ACTIVITY, publicationKey(ID), T0.getTime())),
    ).toBeDefined();
  });

  it('does nothing for a publication that is already done', async () => {
    // Prepare
    const { pds, calls } = scriptedPds();
    const { deps, events } = await setup(pds);
    await processPublication(deps, ID, 1);

    // Act
    const outcome = await processPublication(deps, ID, 2);

    // Assess
    expect(outcome).toBe('already-done');
    expect(calls.selections).toHaveLength(1);
    expect(calls.publications).toHaveLength(1);
    expect(events.events).toHaveLength(1);
  });

  it('retries a transient publish failure with the recorded selection, never creating a second one', async () => {
    // Prepare
    const { pds, calls } = scriptedPds({ publications: [unavailable(PUBLICATIONS)] });
    const { deps, events, read } = await setup(pds);

    // Act
    const first = processPublication(deps, ID, 1);
    await expect(first).rejects.toBeInstanceOf(PublicationRetryError);
    const between = await read();
    const outcome = await processPublication(deps, ID, 2);

    // Assess
    expect(between).toMatchObject({
      status: 'publishing',
      selectionId: 'sel-1',
      lastError: { pdsStatus: 503, retryable: true },
    });
    expect(outcome).toBe('published');
    expect(calls.selections).toHaveLength(1);
    expect(calls.publications.map((request) => request.selectionId)).toEqual(['sel-1', 'sel-1']);
    expect(await read()).toMatchObject({ status: 'published', attempts: 2 });
    expect((await read())?.lastError).toBeUndefined();
    expect(events.events.map((event) => event.type)).toEqual(['pds.publication.completed']);
  });

  it('retries a transient selection failure by creating the selection again', async () => {
    // Prepare
    const { pds, calls } = scriptedPds({ selections: [unavailable(SELECTIONS)] });
    const { deps } = await setup(pds);

    // Act
    await expect(processPublication(deps, ID, 1)).rejects.toBeInstanceOf(PublicationRetryError);
    const outcome = await processPublication(deps, ID, 2);

    // Assess
    expect(outcome).toBe('published');
    expect(calls.selections).toHaveLength(2);
    expect(calls.publications).toEqual([{ selectionId: 'sel-1', destinations: DESTINATIONS }]);
  });

  it('records the failure and emits the failed event when the last attempt fails transiently', async () => {
    // Prepare
    const { pds } = scriptedPds({ publications: [unavailable(PUBLICATIONS)] });
    const { deps, events, store, read } = await setup(pds);

    // Act
    const outcome = await processPublication(deps, ID, 3);

    // Assess
    expect(outcome).toBe('failed');
    expect(await read()).toMatchObject({
      status: 'failed',
      selectionId: 'sel-1',
      failedAt: T0.toISOString(),
      error: { code: 'attempts-exhausted', pdsStatus: 503, retryable: true },
      notifiedAt: T0.toISOString(),
    });
    expect(events.events).toHaveLength(1);
    expect(events.events[0]).toMatchObject({
      type: 'pds.publication.failed',
      data: {
        publicationId: ID,
        selectionId: 'sel-1',
        code: 'attempts-exhausted',
        pdsStatus: 503,
        retryable: true,
      },
    });
    expect((events.events[0]?.data as { reason?: string } | undefined)?.reason).toMatch(/PDS answered 503/);
    expect(await getWatchEntry(store, KEYS[0] as string)).toBeUndefined();
  });

  it('fails at once on a permanent PDS refusal', async () => {
    // Prepare
    const notFound = new PdsNotFoundError(
      404,
      { method: 'POST', path: SELECTIONS },
      'unknown primary keys 04012345678902',
    );
    const { pds, calls } = scriptedPds({ selections: [notFound] });
    const { deps, events, read } = await setup(pds);

    // Act
    const outcome = await processPublication(deps, ID, 1);

    // Assess
    expect(outcome).toBe('failed');
    expect(calls.publications).toEqual([]);
    expect((await read())?.error).toMatchObject({ code: 'rejected', pdsStatus: 404, retryable: false });
    expect(events.events[0]?.data).toEqual({
      publicationId: ID,
      code: 'rejected',
      reason: expect.stringContaining('unknown primary keys'),
      pdsStatus: 404,
      retryable: false,
    });
  });

  it('emits the event on the next delivery when it could not be sent, without calling the PDS again', async () => {
    // Prepare
    const { pds, calls } = scriptedPds();
    const { deps, events, read } = await setup(pds);
    events.failNext(1);

    // Act
    await expect(processPublication(deps, ID, 1)).rejects.toThrow(/refused the events/);
    const between = await read();
    const outcome = await processPublication(deps, ID, 2);

    // Assess
    expect(between).toMatchObject({ status: 'published' });
    expect(between?.notifiedAt).toBeUndefined();
    expect(outcome).toBe('published');
    expect(calls.selections).toHaveLength(1);
    expect(calls.publications).toHaveLength(1);
    expect(events.events.map((event) => event.type)).toEqual(['pds.publication.completed']);
    expect((await read())?.notifiedAt).toBe(T0.toISOString());
  });

  it('records an AWAITING ledger entry per key and channel before the completed event, once across a repeated delivery', async () => {
    // Prepare
    const { pds } = scriptedPds();
    const record = queuedRecord();
    record.request.destinations = [
      ...DESTINATIONS,
      { destinationType: 'IN_PLATFORM', destinationId: 'org-1' },
    ];
    const { deps, events, store } = await setup(pds, record);
    const ledger = new ConfirmationLedger({ store, sink: events, deadlineMs: 48 * 3_600_000, now: () => T0 });
    deps.confirmations = ledger;
    events.failNext(1); // the AWAITING events: the delivery fails after the PDS accepted it

    // Act
    await expect(processPublication(deps, ID, 1)).rejects.toThrow(/refused the events/);
    const outcome = await processPublication(deps, ID, 2);

    // Assess
    expect(outcome).toBe('published');
    const { entries } = await listEntries(store);
    expect(
      entries.map((stored) => [stored.entry.key.primaryKey, stored.entry.key.channelId, stored.entry.state]),
    ).toEqual([
      [KEYS[0], 'gdsn-de', 'AWAITING'],
      [KEYS[1], 'gdsn-de', 'AWAITING'],
    ]);
    expect(entries[0]?.entry.publications).toEqual([{ publicationId: ID, publishedAt: T0.toISOString() }]);
    expect(events.events.map((event) => event.type)).toEqual([
      'pds.confirmation.changed',
      'pds.confirmation.changed',
      'pds.publication.completed',
    ]);
  });

  it('watches the published keys only once their ledger entries exist, so an answer the review poller finds at once has its entry', async () => {
    // Prepare: a ledger that notes, when asked to record the publication, which keys are watched
    const { pds } = scriptedPds();
    const { deps, events, store } = await setup(pds);
    const ledger = new ConfirmationLedger({ store, sink: events, deadlineMs: 48 * 3_600_000, now: () => T0 });
    const watchedWhenRecorded: boolean[] = [];
    deps.confirmations = {
      recordPublication: async (published) => {
        for (const key of KEYS) watchedWhenRecorded.push((await getWatchEntry(store, key)) !== undefined);
        return ledger.recordPublication(published);
      },
      recordReviews: (reviews) => ledger.recordReviews(reviews),
      recordMessagingAssets: (assets) => ledger.recordMessagingAssets(assets),
    };

    // Act
    const outcome = await processPublication(deps, ID, 1);

    // Assess: no key was watched (so no review of it polled) before its entries were written
    expect(outcome).toBe('published');
    expect(watchedWhenRecorded).toEqual([false, false]);
    expect(await getWatchEntry(store, KEYS[0] as string)).toBeDefined();
    expect((await listEntries(store)).entries).toHaveLength(2);
  });

  it('lets only one of two concurrent deliveries of the same message act', async () => {
    // Prepare
    const { pds, calls } = scriptedPds();
    const { deps } = await setup(pds);

    // Act
    const results = await Promise.allSettled([
      processPublication(deps, ID, 1),
      processPublication(deps, ID, 1),
    ]);

    // Assess
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    const rejected = results.filter((result) => result.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(StateConflictError);
    expect(calls.selections).toHaveLength(1);
    expect(calls.publications).toHaveLength(1);
  });

  it('publishes at the first delivery when the api marks the record queued between its read and its write', async () => {
    // Prepare: the api's mark (packages/bridge/src/publications/submit.ts) lands just before the worker's first write
    const { pds, calls } = scriptedPds();
    const { deps, store, read } = await setup(pds, {
      ...queuedRecord(),
      idempotency: { claim: { token: 't', at: T0.toISOString() } },
    });
    let marked = false;
    const racing = new Proxy(store, {
      get(target, property) {
        if (property === 'update') {
          return async <T>(key: string, value: T, etag: string) => {
            if (!marked) {
              marked = true;
              const current = (await target.get<PublicationRecord>(key))?.value as PublicationRecord;
              await target.update(key, { ...current, idempotency: { queuedAt: T0.toISOString() } }, etag);
            }
            return target.update(key, value, etag);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    // Act
    const outcome = await processPublication({ ...deps, store: racing }, ID, 1);

    // Assess
    expect(marked).toBe(true);
    expect(outcome).toBe('published');
    expect(calls.selections).toHaveLength(1);
    expect(await read()).toMatchObject({ status: 'published', attempts: 1 });
  });

  it('throws for a message whose publication record does not exist', async () => {
    // Prepare
    const { pds } = scriptedPds();
    const { deps } = await setup(pds, null);

    // Act
    const result = processPublication(deps, ID, 1);

    // Assess
    await expect(result).rejects.toBeInstanceOf(PublicationNotFoundError);
  });
});

describe('publicationRecordHandler with the Powertools BatchProcessor', () => {
  it('reports only the failed messages (partial batch response) and reads the receive count', async () => {
    // Prepare
    const otherId = '0b8e4c17-6a2d-4f9b-8c31-5e7a9d2f4b60';
    const { pds } = scriptedPds({ selections: [undefined, unavailable(SELECTIONS)] });
    const { deps, store, events } = await setup(pds);
    await store.create(publicationKey(otherId), queuedRecord(otherId));
    const processor = new BatchProcessor(EventType.SQS);
    const event = sqsEvent([
      publicationSqsRecord({ publicationId: ID }, { messageId: 'm-ok' }),
      publicationSqsRecord({ publicationId: otherId }, { messageId: 'm-retry', receiveCount: 2 }),
      publicationSqsRecord('not json', { messageId: 'm-garbage' }),
    ]);

    // Act
    const response = await processPartialResponse(event, publicationRecordHandler(deps), processor, {
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });

    // Assess
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual([
      'm-garbage',
      'm-retry',
    ]);
    expect(events.events.map((e) => e.type)).toEqual(['pds.publication.completed']);
    const retried = (await store.get<PublicationRecord>(publicationKey(otherId)))?.value;
    expect(retried).toMatchObject({ status: 'publishing', lastError: { pdsStatus: 503 } });
  });

  it('fails a message for good at the last receive count', async () => {
    // Prepare
    const { pds } = scriptedPds({ selections: [unavailable(SELECTIONS)] });
    const { deps, events } = await setup(pds);
    const processor = new BatchProcessor(EventType.SQS);

    // Act
    const response = await processPartialResponse(
      sqsEvent([publicationSqsRecord({ publicationId: ID }, { receiveCount: 3 })]),
      publicationRecordHandler(deps),
      processor,
      { throwOnFullBatchFailure: false },
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(events.events.map((e) => e.type)).toEqual(['pds.publication.failed']);
  });
});

describe('processPublication failure codes', () => {
  const line = { method: 'POST', path: PUBLICATIONS };

  it.each([
    ['unauthorized', new PdsUnauthorizedError(401, line, '')],
    ['unauthorized', new PdsUnauthorizedError(403, line, '')],
    ['invalid-answer', new PdsInvalidResponseError('not JSON', line)],
    ['internal', new PdsInvalidRequestError('empty path segment', line)],
  ])('codes a publish that fails for good as %s', async (code, error) => {
    // Prepare
    const { pds } = scriptedPds({ publications: [error] });
    const { deps, events, read } = await setup(pds);

    // Act
    await processPublication(deps, ID, 1);

    // Assess
    expect((await read())?.error).toMatchObject({ code });
    expect(events.events[0]).toMatchObject({ type: 'pds.publication.failed', data: { code } });
  });

  it('gives no code to the last error of a publication that is still retried', async () => {
    // Prepare
    const { pds } = scriptedPds({ publications: [unavailable(PUBLICATIONS)] });
    const { deps, read } = await setup(pds);

    // Act
    await expect(processPublication(deps, ID, 1)).rejects.toThrow(/SQS delivers the message again/);

    // Assess
    expect((await read())?.lastError).toMatchObject({ pdsStatus: 503, retryable: true });
    expect((await read())?.lastError).not.toHaveProperty('code');
  });

  it.each([
    ['rejected', { pdsStatus: 404, retryable: false }],
    ['unauthorized', { pdsStatus: 401, retryable: false }],
    ['attempts-exhausted', { pdsStatus: 503, retryable: true }],
    ['invalid-answer', { retryable: false }],
  ])('derives %s for a failed record written before records carried a code', async (code, error) => {
    // Prepare
    const { pds } = scriptedPds();
    const failed: PublicationRecord = {
      ...queuedRecord(),
      status: 'failed',
      failedAt: T0.toISOString(),
      error: { reason: 'refused', at: T0.toISOString(), ...error },
    };
    const { deps, events } = await setup(pds, failed);

    // Act
    await processPublication(deps, ID, 1);

    // Assess
    expect(events.events[0]).toMatchObject({ type: 'pds.publication.failed', data: { code } });
  });
});
