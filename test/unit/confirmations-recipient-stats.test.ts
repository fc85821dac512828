/**
 * The per-recipient daily aggregates the ledger keeps as entries change
 * (packages/bridge/src/confirmations/recipient-stats.ts), read through the API routes that expose them.
 */
import { describe, expect, it } from 'vitest';
import { createApi } from '../../packages/bridge/src/api/index.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import {
  addCounts,
  emptyCounts,
  LATENCY_BUCKETS_MS,
  latencyQuantile,
} from '../../packages/bridge/src/confirmations/recipient-stats.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { apiEvent } from '../helpers/apigw.ts';
import { cic, RETAILER_GLN, reviewReceived } from '../helpers/confirmation-ledger-suite.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const HOUR = 3_600_000;
const T0 = '2026-11-20T10:00:00.000Z';
const NOW = new Date('2026-11-21T12:00:00.000Z');
const KEYS = ['00614141123452', '00614141123469', '00614141123476', '00614141123483'];

/** A ledger on a memory store: KEYS published to gdsn-de at T0, its clock at NOW. */
async function publishedLedger(sink = new RecordingSink()) {
  const store = new MemoryStateStore();
  const ledger = new ConfirmationLedger({ store, sink, deadlineMs: 48 * HOUR, now: () => NOW });
  await ledger.recordPublication({
    publicationId: 'p-1',
    publishedAt: T0,
    primaryKeys: KEYS,
    destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
  });
  return { store, ledger, sink };
}

/** The answers: two SYNCHRONISED (after 2 h and 30 h), one REVIEW, the fourth key never answered. */
const ANSWERS = [
  reviewReceived(KEYS[0] as string, 'gdsn-de', 7, [cic('SYNCHRONISED', KEYS[0] as string, 2)]),
  reviewReceived(KEYS[1] as string, 'gdsn-de', 8, [cic('SYNCHRONISED', KEYS[1] as string, 30)]),
  reviewReceived(KEYS[2] as string, 'gdsn-de', 9, [cic('REVIEW', KEYS[2] as string, 3)]),
];

async function get(store: MemoryStateStore, path: string) {
  const api = createApi({
    store,
    queue: new RecordingQueue(),
    pds: async () => new FakePds({}),
    settings: { maxKeys: 5, channelsCacheMs: 0, watchTtlMs: HOUR, auth: { mode: 'iam' } },
    version: 'test',
    now: () => NOW,
  });
  const answer = await api.handle(apiEvent({ method: 'GET', path, iam: true }));
  return { status: answer.statusCode, body: JSON.parse(String(answer.body)) };
}

describe('recipient aggregates', () => {
  it('count each recipient’s publications, answers, states and publication → SYNCHRONISED times', async () => {
    const { store, ledger } = await publishedLedger();
    await ledger.recordReviews(ANSWERS);

    const list = await get(store, '/confirmations/recipients?days=2');

    expect(list.status).toBe(200);
    expect(list.body.days).toEqual(['2026-11-20', '2026-11-21']);
    expect(list.body.entries).toHaveLength(1);
    const [recipient] = list.body.entries;
    expect(recipient).toMatchObject({ channelId: 'gdsn-de', recipient: '_', recipientGlns: [RETAILER_GLN] });
    expect(recipient.totals).toMatchObject({
      transitions: { AWAITING: 4, SYNCHRONISED: 2, REVIEW: 1 },
      published: 4,
      answered: 3,
      unansweredShare: 0.25,
    });
    expect(recipient.totals.synchronised).toMatchObject({
      count: 2,
      p50Ms: 2 * HOUR, // the 2-hour bucket holds the first
      p95Ms: 30 * HOUR, // the longest time seen caps the 48-hour bucket
      maxMs: 30 * HOUR,
    });
  });

  it('give one recipient’s figures per day of the window', async () => {
    const { store, ledger } = await publishedLedger();
    await ledger.recordReviews(ANSWERS);

    const series = await get(store, '/confirmations/recipients/gdsn-de/_?days=3');

    expect(series.status).toBe(200);
    expect(series.body.days.map((day: { day: string }) => day.day)).toEqual([
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
    ]);
    // Every transition was recorded by the ledger's clock, on NOW's day.
    expect(series.body.days[0]).toMatchObject({ published: 0, transitions: {}, unansweredShare: null });
    expect(series.body.days[2]).toMatchObject({ published: 4, answered: 3 });
    expect(series.body.totals.synchronised.count).toBe(2);
  });

  it('count a transition once when its outbox is offered again after a crash', async () => {
    const { store, ledger, sink } = await publishedLedger();
    // The answer's event cannot be published: the transition is written and counted, its outbox kept.
    sink.failNext(1);
    await expect(ledger.recordReviews([ANSWERS[0] as (typeof ANSWERS)[number]])).rejects.toThrow();

    // Delivered again: the fact is known, the outbox is published and cleared.
    await ledger.recordReviews([ANSWERS[0] as (typeof ANSWERS)[number]]);

    const { body } = await get(store, '/confirmations/recipients/gdsn-de/_?days=1');
    expect(body.totals).toMatchObject({ answered: 1, transitions: { AWAITING: 4, SYNCHRONISED: 1 } });
    expect(body.totals.synchronised.count).toBe(1);
    const synchronised = sink.events.filter(
      (event) =>
        event.type === 'pds.confirmation.changed' &&
        JSON.stringify(event.data).includes('"state":"SYNCHRONISED"'),
    );
    expect(synchronised).toHaveLength(1);
  });

  it('answer 404 naming what exists for a recipient never counted, and 400 for a window out of range', async () => {
    const { store } = await publishedLedger();

    const unknown = await get(store, `/confirmations/recipients/gdsn-de/${RETAILER_GLN}`);
    const tooLong = await get(store, '/confirmations/recipients?days=365');

    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('GET /confirmations/recipients lists those it has');
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.detail).toContain('days must be an integer from 1 to 90');
  });

  it('merge days bucket by bucket, so a window’s p50/p95 come from its days’ histograms', () => {
    const day = (times: number[]) => {
      const counts = emptyCounts();
      for (const time of times) {
        const at = LATENCY_BUCKETS_MS.findIndex((bound) => time <= bound);
        const bucket = at === -1 ? LATENCY_BUCKETS_MS.length : at;
        counts.synchronised.buckets[bucket] = (counts.synchronised.buckets[bucket] ?? 0) + 1;
        counts.synchronised.count += 1;
        counts.synchronised.maxMs = Math.max(counts.synchronised.maxMs, time);
      }
      return counts;
    };
    const merged = addCounts(addCounts(emptyCounts(), day([60_000, 60_000, 60_000])), day([20 * 86_400_000]));

    expect(latencyQuantile(merged.synchronised, 0.5)).toBe(60_000);
    expect(latencyQuantile(merged.synchronised, 0.95)).toBe(20 * 86_400_000); // beyond the last bound: the longest
    expect(latencyQuantile(emptyCounts().synchronised, 0.5)).toBeUndefined();
  });
});
