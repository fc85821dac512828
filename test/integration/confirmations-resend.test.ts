/**
 * A recipient's resend request (the fixture's 2.8 RequestForCatalogueItemNotification) on the ledger
 * and the publication path: with REPUBLISH_ON_RESEND_REQUEST on, the item the request names is
 * republished to its channel once, however often the asset is read, through the publication record,
 * the publication queue and the publish worker; the entry links the republication and `why` shows it.
 * Off, the request is only its event.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedChannelDirectory } from '../../packages/bridge/src/confirmations/channel-directory.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import type { PdsClient, PublicationRequest } from '../../packages/bridge/src/pds/index.ts';
import { messagingAssetEvent } from '../../packages/bridge/src/polling/events.ts';
import { publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import type { PublicationRecord } from '../../packages/bridge/src/publications/records.ts';
import { publicationRepublisher } from '../../packages/bridge/src/publications/republish.ts';
import { processPublication } from '../../packages/bridge/src/publications/worker.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { explanationText } from '../../packages/cli/src/commands/bridge-text.ts';
import { explain } from '../../packages/cli/src/ops/why.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const HOUR = 3_600_000;
const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const RESEND = readFileSync(path.join(fixtures, 'rfcin-2.8-resend.xml'), 'utf8');
/** The item the fixture's request names. */
const ITEM = '00614141123476';
const CHANNEL = { destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: 'gdsn-se' };
const PUBLISHED_AT = '2026-11-27T06:00:00.000Z';

async function setup(republish: boolean) {
  const store = new MemoryStateStore();
  const sink = new RecordingSink();
  const queue = new RecordingQueue();
  const now = () => new Date('2026-11-28T08:00:00.000Z');
  const ledger = new ConfirmationLedger({
    store,
    sink,
    deadlineMs: 48 * HOUR,
    now,
    // The channel's record names its recipient (the fixture's requester), as the simulator's do.
    channels: fixedChannelDirectory([], { 'gdsn-se': ['0614141000043'] }),
    ...(republish ? { republisher: publicationRepublisher({ store, queue, now }) } : {}),
  });
  const calls = { selections: [] as string[][], publications: [] as PublicationRequest[] };
  const pds: PdsClient = new FakePds({
    createSelection: async (primaryKeys) => {
      calls.selections.push([...primaryKeys]);
      return { selectionId: `sel-${calls.selections.length}`, numberOfItems: primaryKeys.length };
    },
    publish: async (request) => {
      calls.publications.push(request);
    },
  });
  const worker = {
    store,
    pds,
    events: sink,
    confirmations: ledger,
    maxAttempts: 3,
    watchTtlMs: 30 * 24 * HOUR,
    now,
  };
  // The first publication, as POST /publications and the worker left it.
  const request = { primaryKeys: [ITEM], destinations: [CHANNEL] };
  await store.create<PublicationRecord>(publicationKey('p-1'), {
    publicationId: 'p-1',
    status: 'published',
    request,
    bodyHash: 'hash',
    requestedBy: 'local',
    createdAt: PUBLISHED_AT,
    updatedAt: PUBLISHED_AT,
    publishedAt: PUBLISHED_AT,
    attempts: 1,
  });
  await ledger.recordPublication({ publicationId: 'p-1', publishedAt: PUBLISHED_AT, ...request });
  /** Delivers every queued message to the publish worker, as the queue's event source would. */
  const drain = async () => {
    for (const message of queue.sent.splice(0)) await processPublication(worker, message.publicationId, 1);
  };
  return { store, queue, ledger, calls, drain };
}

const resendEvent = (id: number) =>
  messagingAssetEvent(
    { id, createdAt: Date.parse('2026-11-28T07:00:00.000Z'), contentType: 'application/xml' },
    RESEND,
  );

describe('a resend request with REPUBLISH_ON_RESEND_REQUEST on', () => {
  it('republishes the item it names to its channel once, however often the asset is read', async () => {
    // arrange
    const { store, queue, ledger, calls, drain } = await setup(true);
    const event = resendEvent(601);
    expect(event.data.gdsn).toMatchObject({
      messageType: 'requestForCatalogueItemNotification',
      isReload: false,
    });

    // act: read, re-read before the worker ran, then replayed after it published
    await ledger.recordMessagingAssets([event]);
    const queuedFirst = queue.sent.length;
    await ledger.recordMessagingAssets([event]);
    await drain();
    await ledger.recordMessagingAssets([{ ...event, id: 'another-delivery' }]);
    await drain();

    // assess
    expect(queuedFirst).toBe(1);
    expect(calls.selections).toEqual([[ITEM]]);
    expect(calls.publications).toHaveLength(1);
    expect(calls.publications[0]?.destinations).toEqual([CHANNEL]);
    const [stored] = (await listEntries(store)).entries;
    const links = stored?.entry.resendRequests ?? [];
    expect(links).toHaveLength(1);
    const republicationId = links[0]?.publicationId ?? '';
    expect(links[0]).toMatchObject({ messagingAssetId: 601, recipientGln: expect.any(String) });
    expect(stored?.entry.publications.map((one) => one.publicationId)).toEqual(['p-1', republicationId]);
    const record = (await store.get<PublicationRecord>(publicationKey(republicationId)))?.value;
    expect(record).toMatchObject({ status: 'published', requestedBy: 'resend-request' });
    const why = explanationText(await explain(store, { kind: 'publication', publicationId: 'p-1' }));
    expect(why).toContain(`messaging asset 601`);
    expect(why).toContain(`republication ${republicationId}`);
  });

  it('leaves an item the bridge did not publish to the event', async () => {
    // arrange
    const { queue, ledger } = await setup(true);
    const unpublished = resendEvent(602);
    const gdsn = unpublished.data.gdsn;
    if (gdsn) gdsn.items = gdsn.items.map((item) => ({ ...item, gtin: '00614141999999' }));

    // act
    const report = await ledger.recordMessagingAssets([unpublished]);

    // assess
    expect(queue.sent).toEqual([]);
    expect(report.unmatched).toBe(1);
  });
});

describe('whom a resend request is believed from, and how often', () => {
  it('republishes nothing for a party the channel does not lead to, and counts it', async () => {
    // arrange: another party asks for the item, writing itself as sender and requester
    const { queue, ledger } = await setup(true);
    const stranger = messagingAssetEvent(
      { id: 603, createdAt: Date.parse('2026-11-28T07:00:00.000Z'), contentType: 'application/xml' },
      RESEND.replaceAll('0614141000043', '0614141000098'),
    );

    // act
    const report = await ledger.recordMessagingAssets([stranger]);

    // assess
    expect(queue.sent).toEqual([]);
    expect(report).toMatchObject({ untrusted: 1, unmatched: 1 });
  });

  it('republishes an item once per channel within the window, however many requests name it', async () => {
    // arrange: three requests (three messaging assets), two read in one page
    const { queue, ledger, calls, drain } = await setup(true);

    // act
    await ledger.recordMessagingAssets([resendEvent(604), resendEvent(605)]);
    await drain();
    const later = await ledger.recordMessagingAssets([resendEvent(606)]);
    await drain();

    // assess
    expect(calls.publications).toHaveLength(1);
    expect(queue.sent).toEqual([]);
    expect(later.unmatched).toBe(1);
  });
});

describe('a resend request with REPUBLISH_ON_RESEND_REQUEST off (the default)', () => {
  it('is only its event: nothing is queued, published or written to the entry', async () => {
    // arrange
    const { store, queue, ledger, calls, drain } = await setup(false);
    const before = (await listEntries(store)).entries[0]?.entry;

    // act
    const report = await ledger.recordMessagingAssets([resendEvent(601)]);
    await drain();

    // assess
    expect(queue.sent).toEqual([]);
    expect(calls.publications).toEqual([]);
    expect(report.entriesWritten).toBe(0);
    expect((await listEntries(store)).entries[0]?.entry).toEqual(before);
  });
});
