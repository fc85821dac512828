import { describe, expect, it } from 'vitest';
import { createEvent, EventPublishError } from '../../packages/bridge/src/events/index.ts';
import { CoalescingSink } from '../../packages/bridge/src/polling/supplier-reviews/coalescing-sink.ts';
import { RecordingSink } from '../helpers/event-sink.ts';

function assetEvent(id: number) {
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${id}`,
    idParts: [id],
    data: { messagingAssetId: id, parseError: { name: 'XmlParseError', message: 'broken' }, rawXml: '<a' },
  });
}

describe('CoalescingSink', () => {
  it('publishes concurrent small batches in one request', async () => {
    // prepare
    const inner = new RecordingSink();
    const sink = new CoalescingSink(inner, { maxEvents: 50, lingerMs: 5 });

    // act
    await Promise.all([1, 2, 3, 4].map((id) => sink.publish([assetEvent(id)])));

    // assess
    expect(inner.requests).toEqual([4]);
    expect(inner.dataOf('pds.messaging-asset.received').map((data) => data.messagingAssetId)).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it('publishes at once when maxEvents are waiting', async () => {
    // prepare
    const inner = new RecordingSink();
    const sink = new CoalescingSink(inner, { maxEvents: 2, lingerMs: 10_000 });

    // act
    await Promise.all([sink.publish([assetEvent(1)]), sink.publish([assetEvent(2)])]);

    // assess
    expect(inner.requests).toEqual([2]);
  });

  it('rejects only the callers whose own events were refused', async () => {
    // prepare
    const inner = new RecordingSink();
    inner.refuse = (event) => event.subject === 'messaging-asset/2';
    const sink = new CoalescingSink(inner, { lingerMs: 1 });

    // act
    const outcomes = await Promise.allSettled([
      sink.publish([assetEvent(1)]),
      sink.publish([assetEvent(2), assetEvent(3)]),
    ]);

    // assess
    expect(outcomes[0]?.status).toBe('fulfilled');
    expect(outcomes[1]?.status).toBe('rejected');
    const error = (outcomes[1] as PromiseRejectedResult).reason as EventPublishError;
    expect(error).toBeInstanceOf(EventPublishError);
    expect(error.failures.map((failure) => failure.eventId)).toEqual([assetEvent(2).id]);
    expect(error.publishedIds).toEqual([assetEvent(3).id]);
  });

  it('rejects every waiting caller when the inner sink fails outright', async () => {
    // prepare
    const inner = new RecordingSink();
    inner.failNext(Number.POSITIVE_INFINITY, () => new Error('no network'));
    const sink = new CoalescingSink(inner, { lingerMs: 1 });

    // act
    const outcomes = await Promise.allSettled([sink.publish([assetEvent(1)]), sink.publish([assetEvent(2)])]);

    // assess
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });
});
