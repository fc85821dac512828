/**
 * CONFIRMATION_DEADLINE_SECONDS: a deadline of minutes, so OVERDUE can be seen in the local stack or a
 * test stage without waiting CONFIRMATION_DEADLINE_HOURS (whole hours).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../packages/bridge/src/config/index.ts';
import { checkConfirmationDeadlines } from '../../packages/bridge/src/confirmations/deadlines.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import { CONFIRMATION_SETTINGS, deadlineMs } from '../../packages/bridge/src/confirmations/settings.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { RecordingSink } from '../helpers/event-sink.ts';

function settingsOf(env: Record<string, string>) {
  const base = { PDS_BASE_URL: 'https://pds.example.com', PDS_USERNAME: 'u', PDS_PASSWORD: 'p' };
  return loadConfig({ ...base, ...env }, { settings: CONFIRMATION_SETTINGS }).settings;
}

describe('CONFIRMATION_DEADLINE_SECONDS', () => {
  it('replaces the hours when set, and is refused when it is no whole number of seconds', () => {
    expect(deadlineMs(settingsOf({}))).toBe(48 * 3_600_000);
    expect(deadlineMs(settingsOf({ CONFIRMATION_DEADLINE_SECONDS: '120' }))).toBe(120_000);
    expect(() => settingsOf({ CONFIRMATION_DEADLINE_SECONDS: '2m' })).toThrow(
      /CONFIRMATION_DEADLINE_SECONDS/,
    );
  });

  it('turns an unanswered publication OVERDUE two minutes after it was published', async () => {
    // prepare
    const store = new MemoryStateStore();
    const clock = { now: new Date('2026-12-07T09:00:00.000Z') };
    const ledger = new ConfirmationLedger({
      store,
      sink: new RecordingSink(),
      deadlineMs: deadlineMs(settingsOf({ CONFIRMATION_DEADLINE_SECONDS: '120' })),
      now: () => clock.now,
    });
    await ledger.recordPublication({
      publicationId: 'p1',
      publishedAt: clock.now.toISOString(),
      primaryKeys: ['0614141000012'],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
    });
    const stateAt = async (seconds: number) => {
      clock.now = new Date(Date.parse('2026-12-07T09:00:00.000Z') + seconds * 1000);
      await checkConfirmationDeadlines(store, ledger, clock.now);
      return (await listEntries(store)).entries.map((stored) => stored.entry.state);
    };

    // act, assess
    expect(await stateAt(119)).toEqual(['AWAITING']);
    expect(await stateAt(120)).toEqual(['OVERDUE']);
  });
});
