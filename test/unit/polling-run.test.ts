import { describe, expect, it } from 'vitest';
import { runExclusive } from '../../packages/bridge/src/polling/exclusive.ts';
import { emptyMessagingAssetReport } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import {
  messagingAssetRunFailure,
  reviewChunkFailure,
} from '../../packages/bridge/src/polling/run-failures.ts';
import { runWindow } from '../../packages/bridge/src/polling/run-window.ts';
import { leaseKey } from '../../packages/bridge/src/state/keys.ts';
import { acquireLease, type LeaseRecord } from '../../packages/bridge/src/state/lease.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';

describe('runWindow', () => {
  it('stops starting work 20 s before a long invocation ends and leases for longer than it lives', () => {
    // act
    const window = runWindow({ getRemainingTimeInMillis: () => 300_000 }, 1_000_000);

    // assess
    expect(window).toEqual({ deadline: 1_000_000 + 280_000, leaseTtlMs: 360_000 });
  });

  it('keeps a fifth back on a short invocation', () => {
    expect(runWindow({ getRemainingTimeInMillis: () => 10_000 }, 0).deadline).toBe(8_000);
  });
});

describe('runExclusive', () => {
  it('runs once the lease is free and releases it afterwards, even when the run throws', async () => {
    // prepare
    const store = new MemoryStateStore();
    const options = { name: 'poll-test', ttlMs: 60_000, owner: 'run-1' };

    // act
    const failed = runExclusive(store, options, () => Promise.reject(new Error('boom')));
    await expect(failed).rejects.toThrow('boom');
    const result = await runExclusive(store, options, async () => 42);

    // assess
    expect(result).toEqual({ ran: true, value: 42 });
  });

  it('records in the lease how each judged run ended: a report judged failed, a throw, and the last success', async () => {
    // prepare
    const store = new MemoryStateStore();
    let clock = 1000;
    const options = {
      name: 'poll-test',
      ttlMs: 60_000,
      owner: 'run-1',
      now: () => clock,
      succeeded: (value: number) => (value > 0 ? true : { ok: false as const, error: 'nothing polled' }),
    };

    // act
    await runExclusive(store, options, async () => 1);
    clock = 2000;
    await runExclusive(store, options, async () => 0);
    clock = 3000;
    await expect(runExclusive(store, options, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    const stored = (await store.get<LeaseRecord>(leaseKey('poll-test')))?.value;

    // assess
    expect(stored).toMatchObject({
      expiresAt: 0,
      lastSuccessAt: 1000,
      lastRun: { ok: false, endedAt: 3000, error: expect.stringContaining('boom') },
    });
  });

  it('does not run while another run holds the lease, and says who holds it', async () => {
    // prepare
    const store = new MemoryStateStore();
    await acquireLease(store, 'poll-test', 60_000, 'run-0');
    let ran = false;

    // act
    const result = await runExclusive(
      store,
      { name: 'poll-test', ttlMs: 60_000, owner: 'run-1' },
      async () => {
        ran = true;
      },
    );

    // assess
    expect(ran).toBe(false);
    expect(result).toMatchObject({ ran: false, heldBy: 'run-0' });
  });
});

describe('run failures', () => {
  const base = emptyMessagingAssetReport();

  it('fails a messaging-asset run that stopped for the PDS or SQS, not one that finished or met its deadline', () => {
    expect(messagingAssetRunFailure(base)).toBeUndefined();
    expect(messagingAssetRunFailure({ ...base, stopped: 'deadline' })).toBeUndefined();
    expect(messagingAssetRunFailure({ ...base, stopped: 'pds-unavailable', failed: 3 })?.message).toMatch(
      /PDS looks unavailable/,
    );
    expect(messagingAssetRunFailure({ ...base, stopped: 'publish-failed', unpublished: 2 })?.message).toMatch(
      /did not accept 2 events/,
    );
  });

  it('fails a review chunk with failed or deferred keys, naming them', () => {
    // prepare
    const report = {
      keys: 3,
      keysPolled: 2,
      keysFailed: 1,
      keysPurged: 0,
      keysNotFound: 0,
      keysUnwatched: 0,
      keysDeferred: 0,
      reviewsEmitted: 0,
      parseErrors: 0,
      reviewsFailed: 1,
      reviewsEmittedAsFailed: 0,
      failedKeys: ['A1'],
    };

    // act / assess
    expect(reviewChunkFailure(report)?.message).toMatch(/1 failed \(A1\)/);
    expect(reviewChunkFailure({ ...report, keysFailed: 0, failedKeys: [] })).toBeUndefined();
  });
});
