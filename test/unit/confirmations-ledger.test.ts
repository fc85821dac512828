import { describe, expect, it } from 'vitest';
import { checkConfirmationDeadlines } from '../../lib/confirmations/deadlines.ts';
import { ConfirmationDeadlineError } from '../../lib/confirmations/errors.ts';
import { ConfirmationLedger } from '../../lib/confirmations/ledger.ts';
import { listEntries } from '../../lib/confirmations/read.ts';
import { StateStoreError } from '../../lib/state/errors.ts';
import { MemoryStateStore } from '../../lib/state/memory.ts';
import { describeConfirmationLedger } from '../helpers/confirmation-ledger-suite.ts';
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
