/**
 * "Poison is the message's fault" (packages/bridge/src/polling/poison.ts): a message the bridge cannot
 * serialise or apply to the confirmation ledger counts toward the failure limit and is passed like any
 * poison message; nothing a partner writes stops a poller or makes it emit the same review for ever.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import {
  type ConfirmationRecorder,
  emptyLedgerReport,
} from '../../packages/bridge/src/confirmations/ports.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { pollMessagingAssets } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { pollReviewKeys } from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const REVIEW_XML = readFileSync(path.join(fixtures, 'cic-3.1-review.xml'), 'utf8');
const SYNCHRONISED = readFileSync(path.join(fixtures, 'cic-3.1-synchronised.xml'), 'utf8');
/** The item cic-3.1-review.xml confirms. */
const ITEM = '00614141123469';

/** A ledger port that breaks on the data of the messages `poisoned` names, as code can. */
function breakingLedger(poisoned: (messagingAssetId: number) => boolean) {
  const applied: number[] = [];
  const apply = async (events: ReadonlyArray<{ data: { messagingAssetId: number } }>) => {
    for (const event of events) {
      if (poisoned(event.data.messagingAssetId))
        throw new TypeError("Cannot read properties of undefined (reading 'gtin')");
    }
    applied.push(...events.map((event) => event.data.messagingAssetId));
    return emptyLedgerReport();
  };
  const ledger: ConfirmationRecorder = {
    recordPublication: async () => emptyLedgerReport(),
    recordReviews: apply,
    recordMessagingAssets: apply,
  };
  return { ledger, applied };
}

describe('the review poller and what a partner writes', () => {
  it('refuses a long non-ASCII recipient GLN without stopping, and does not emit the review again', async () => {
    // prepare: a published item, and a review whose confirmation names a 200-character GLN
    const store = new MemoryStateStore();
    const sink = new RecordingSink();
    const pds = new FakePds();
    await watch(store, [ITEM], { ttlMs: 86_400_000, source: 'test' });
    const confirmations = new ConfirmationLedger({
      store,
      sink: new RecordingSink(),
      deadlineMs: 48 * 3_600_000,
      now: () => new Date('2026-11-20T12:00:00.000Z'),
    });
    await confirmations.recordPublication({
      publicationId: 'p1',
      publishedAt: '2026-11-20T08:00:00.000Z',
      primaryKeys: [ITEM],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
    });
    pds.addReview(ITEM, REVIEW_XML.replaceAll('0614141000005', 'Ω'.repeat(200)), { reviewStatus: 'REVIEW' });
    const deps = { pds, store, sink, confirmations };

    // act
    const first = await pollReviewKeys(deps, [ITEM]);
    const second = await pollReviewKeys(deps, [ITEM]);

    // assess
    expect(first).toMatchObject({ keysFailed: 0, reviewsEmitted: 1 });
    expect(second).toMatchObject({ keysFailed: 0, reviewsEmitted: 0 });
    expect(sink.events).toHaveLength(1);
    const { entries } = await listEntries(store);
    expect(entries.map(({ entry }) => entry.state)).toEqual(['AWAITING']);
  });

  it('retries a review the ledger breaks on, passes it at the failure limit, and applies the others', async () => {
    // prepare
    const store = new MemoryStateStore();
    const sink = new RecordingSink();
    const pds = new FakePds();
    await watch(store, ['A1'], { ttlMs: 86_400_000, source: 'test' });
    const good = pds.addReview('A1', REVIEW_XML, { reviewStatus: 'REVIEW' });
    const bad = pds.addReview('A1', REVIEW_XML, { reviewStatus: 'REJECTED', date: good.date + 1 });
    const { ledger, applied } = breakingLedger((id) => id === bad.messagingAssetId);
    const deps = { pds, store, sink, confirmations: ledger };

    // act
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await pollReviewKeys(deps, ['A1'], { failureLimit: 2 }));

    // assess: tried on two runs (its event sent each time), then passed; the poller never threw
    expect(runs.map((run) => run.reviewsEmitted)).toEqual([2, 1, 0]);
    expect(runs[0]).toMatchObject({ reviewsFailed: 1 });
    expect(runs[1]).toMatchObject({ reviewsFailed: 0 });
    expect(applied).toEqual([good.messagingAssetId]);
  });
});

describe('the messaging-asset poller and what a partner writes', () => {
  it('retries an asset the ledger breaks on, passes it at the failure limit, and moves on', async () => {
    // prepare
    const pds = new FakePds();
    for (let index = 0; index < 3; index++) pds.addAsset(SYNCHRONISED);
    const { ledger, applied } = breakingLedger((id) => id === 2);
    const deps = { pds, store: new MemoryStateStore(), sink: new RecordingSink(), confirmations: ledger };
    const options = { firstRun: 'backlog' as const, failureLimit: 2 };

    // act
    const first = await pollMessagingAssets(deps, options);
    const second = await pollMessagingAssets(deps, options);
    const third = await pollMessagingAssets(deps, options);

    // assess
    expect(first).toMatchObject({ emitted: 3, failed: 1, retryPending: 1 });
    expect(first.stopped).toBeUndefined();
    expect(second).toMatchObject({ emitted: 1, failed: 0, retryPending: 0 });
    expect(third.emitted).toBe(0);
    expect(applied).toEqual([1, 3]);
  });

  describe('with an event no JSON text can hold', () => {
    const sqsMock = mockClient(SQSClient);
    afterEach(() => {
      sqsMock.reset();
      vi.restoreAllMocks();
    });

    it('is poison the poller passes with messageError, not SQS failing that stops the run', async () => {
      // prepare: SQS takes everything; asset 2's summary is too large for any string (the engine's
      // limit, which no test should allocate, stands in as the RangeError it throws)
      const bodies: string[] = [];
      sqsMock.on(SendMessageBatchCommand).callsFake((input: { Entries: SendMessageBatchRequestEntry[] }) => {
        bodies.push(...input.Entries.map((entry) => entry.MessageBody ?? ''));
        return {
          Successful: input.Entries.map((entry) => ({
            Id: entry.Id,
            MessageId: `m-${entry.Id}`,
            MD5OfMessageBody: 'x',
          })),
          Failed: [],
        };
      });
      const stringify = JSON.stringify;
      vi.spyOn(JSON, 'stringify').mockImplementation((value: unknown, ...rest: unknown[]) => {
        const event = value as CloudEvent<'pds.messaging-asset.received'> | undefined;
        if (
          event?.type === 'pds.messaging-asset.received' &&
          event.data.messagingAssetId === 2 &&
          !event.data.messageError
        ) {
          throw new RangeError('Invalid string length');
        }
        return stringify(value, ...(rest as [never]));
      });
      const pds = new FakePds();
      for (let index = 0; index < 3; index++) pds.addAsset(SYNCHRONISED);
      const sink = new SqsEventPublisher({
        sqs: new SQSClient({ region: 'us-east-1' }),
        queueUrl: () => 'https://sqs.us-east-1.amazonaws.com/000000000000/pds-events',
        sleep: async () => {},
      });
      const deps = { pds, store: new MemoryStateStore(), sink };
      const options = { firstRun: 'backlog' as const, failureLimit: 2 };

      // act
      const first = await pollMessagingAssets(deps, options);
      const second = await pollMessagingAssets(deps, options);

      // assess
      expect(first.stopped).toBeUndefined();
      expect(first).toMatchObject({ emitted: 2, failed: 1, unpublished: 0 });
      expect(second).toMatchObject({ emitted: 1, emittedAsFailed: 1 });
      const sent = bodies.map((body) => JSON.parse(body) as CloudEvent<'pds.messaging-asset.received'>);
      const passed = sent.find((event) => event.data.messagingAssetId === 2);
      expect(passed?.data.messageError?.message).toMatch(/EVENT_NOT_SERIALISABLE|cannot be serialised/);
    });
  });
});
