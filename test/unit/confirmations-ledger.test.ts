import { describe, expect, it } from 'vitest';
import {
  checkConfirmationDeadlines,
  expireConfirmations,
} from '../../packages/bridge/src/confirmations/deadlines.ts';
import { ConfirmationDeadlineError } from '../../packages/bridge/src/confirmations/errors.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import { StateStoreError } from '../../packages/bridge/src/state/errors.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { describeConfirmationLedger, reviewReceived } from '../helpers/confirmation-ledger-suite.ts';
import { RecordingSink } from '../helpers/event-sink.ts';

describeConfirmationLedger('confirmation ledger on the memory store', () => new MemoryStateStore());

describeConfirmationLedger(
  'confirmation ledger on a memory store that yields before every operation',
  () => new MemoryStateStore({ beforeOperation: () => new Promise((resolve) => setImmediate(resolve)) }),
);

describe('the deadline check with a failing publication', () => {
  it('brings the other due publications up to date and leaves the failing one for the next run', async () => {
    const HOUR = 3_600_000;
    let failOnce = false;
    const store = new MemoryStateStore({
      beforeOperation: (operation) => {
        if (failOnce && operation.kind === 'get' && operation.key.startsWith('confirmation-deadlines/')) {
          failOnce = false;
          throw new StateStoreError(operation.key, 'S3 is unavailable (simulated)', true);
        }
      },
    });
    const clock = { now: new Date('2026-11-20T08:00:00.000Z') };
    const ledger = new ConfirmationLedger({
      store,
      sink: new RecordingSink(),
      deadlineMs: 48 * HOUR,
      now: () => clock.now,
    });
    for (const id of ['p1', 'p2']) {
      await ledger.recordPublication({
        publicationId: id,
        publishedAt: clock.now.toISOString(),
        primaryKeys: [`key-${id}`],
        destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
      });
    }
    clock.now = new Date(clock.now.getTime() + 48 * HOUR);
    failOnce = true; // the first due publication's mark cannot be read

    const first = checkConfirmationDeadlines(store, ledger, clock.now);
    await expect(first).rejects.toThrow(ConfirmationDeadlineError);
    const between = (await listEntries(store)).entries.map((stored) => stored.entry.state).sort();
    const second = await checkConfirmationDeadlines(store, ledger, clock.now);

    expect(between).toEqual(['AWAITING', 'OVERDUE']);
    expect(second).toMatchObject({ due: 1, transitions: { OVERDUE: 1 } });
    expect((await listEntries(store)).entries.map((stored) => stored.entry.state)).toEqual([
      'OVERDUE',
      'OVERDUE',
    ]);
  });
});

describe('the retention of settled entries', () => {
  it('deletes SYNCHRONISED entries once their retention ended, with their markers, and keeps unresolved ones', async () => {
    // prepare
    const DAY = 86_400_000;
    const store = new MemoryStateStore();
    const clock = { now: new Date('2026-11-20T10:00:00.000Z') };
    const ledger = new ConfirmationLedger({
      store,
      sink: new RecordingSink(),
      deadlineMs: 48 * 3_600_000,
      retentionMs: 90 * DAY,
      now: () => clock.now,
    });
    await ledger.recordPublication({
      publicationId: 'p1',
      publishedAt: clock.now.toISOString(),
      primaryKeys: ['k1', 'k2'],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
    });
    await ledger.recordReviews([
      reviewReceived('k1', 'gdsn-de', 1, undefined, { reviewStatus: 'SYNCHRONISED' }),
      reviewReceived('k2', 'gdsn-de', 2, undefined, { reviewStatus: 'REVIEW' }),
    ]);

    // act
    const early = await expireConfirmations(store, new Date(clock.now.getTime() + 89 * DAY), 90 * DAY);
    const due = await expireConfirmations(store, new Date(clock.now.getTime() + 92 * DAY), 90 * DAY);
    const left: string[] = [];
    for await (const key of store.list('confirmation')) left.push(key);

    // assess
    expect(early).toEqual({ expired: 0, dropped: 0 });
    expect(due).toEqual({ expired: 1, dropped: 0 });
    expect(left.filter((key) => key.includes('/k1/'))).toEqual([]);
    expect(left.filter((key) => key.includes('/k2/')).length).toBeGreaterThan(1);
  });
});
