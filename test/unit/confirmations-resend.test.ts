/**
 * Resend requests matched to the ledger (packages/bridge/src/confirmations/resend.ts): which items and which channel,
 * the key that makes a republication once per request, and the setting's wiring.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../packages/bridge/src/config/index.ts';
import type { ConfirmationEntry } from '../../packages/bridge/src/confirmations/entry.ts';
import {
  isResendRequest,
  resendChannel,
  resendIdempotencyKey,
  resendRequestedKeys,
  withResendLink,
} from '../../packages/bridge/src/confirmations/resend.ts';
import { republishQueueOf } from '../../packages/bridge/src/polling/handlers.ts';
import { publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import type { PublicationRecord } from '../../packages/bridge/src/publications/records.ts';
import {
  publicationRepublisher,
  republicationRequest,
} from '../../packages/bridge/src/publications/republish.ts';
import { publicationIdFor } from '../../packages/bridge/src/publications/submit.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import type { GdsnMessageSummary } from '../../packages/bridge/src/xml/index.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const request = (items: Array<{ gtin: string }>): GdsnMessageSummary => ({
  messageType: 'requestForCatalogueItemNotification',
  gdsnVersion: '3.1',
  isReload: false,
  items,
});

const at = (channelId: string, recipientGln?: string) => ({
  entry: { key: { primaryKey: '00614141123476', channelId, ...(recipientGln ? { recipientGln } : {}) } },
});

describe('resend requests', () => {
  it('are the RequestForCatalogueItemNotification summaries only', () => {
    expect(isResendRequest(request([]))).toBe(true);
    expect(isResendRequest({ ...request([]), messageType: 'catalogueItemConfirmation' })).toBe(false);
    expect(isResendRequest(undefined)).toBe(false);
  });

  it('name the asset’s primary key, else the GTIN-14 of each item, once each', () => {
    expect(resendRequestedKeys(request([{ gtin: '614141123476' }]), 'KEY-1')).toEqual(['KEY-1']);
    expect(
      resendRequestedKeys(
        request([{ gtin: '614141123476' }, { gtin: '00614141123476' }, { gtin: '1' }]),
        undefined,
      ),
    ).toEqual(['00000000000001', '00614141123476']);
    // A reload naming no item: nothing the bridge can tell; only the event.
    expect(resendRequestedKeys(request([]), undefined)).toEqual([]);
  });

  it('go to the one channel the item was published to, else the one naming the recipient, never a guess', () => {
    expect(resendChannel([at('gdsn-se'), at('gdsn-se', '111')], '999')).toBe('gdsn-se');
    expect(resendChannel([at('gdsn-se', '111'), at('gdsn-de', '222')], '222')).toBe('gdsn-de');
    expect(resendChannel([at('gdsn-se'), at('gdsn-de')], '222')).toBeUndefined();
    expect(resendChannel([at('gdsn-se', '111'), at('gdsn-de', '222')], undefined)).toBeUndefined();
    expect(resendChannel([], '222')).toBeUndefined();
  });

  it('derive one publication id per request and channel, and the same body however the keys come', () => {
    const key = resendIdempotencyKey(601, 'gdsn-se');
    expect(key).toBe(resendIdempotencyKey(601, 'gdsn-se'));
    expect(key).not.toBe(resendIdempotencyKey(602, 'gdsn-se'));
    expect(key).not.toBe(resendIdempotencyKey(601, 'gdsn-de'));
    expect(publicationIdFor('resend-request', key)).toBe(publicationIdFor('resend-request', key));
    expect(republicationRequest(['b', 'a', 'b'], 'gdsn-se')).toEqual({
      primaryKeys: ['a', 'b'],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-se' }],
    });
  });

  it('are linked on an entry once', () => {
    const entry = { resendRequests: undefined } as unknown as ConfirmationEntry;
    const link = { messagingAssetId: 601, publicationId: 'r-1', recordedAt: '2026-11-28T08:00:00.000Z' };
    const linked = withResendLink(entry, link);
    expect(linked?.resendRequests).toEqual([link]);
    expect(linked && withResendLink(linked, { ...link, recordedAt: 'later' })).toBeUndefined();
  });
});

describe('REPUBLISH_ON_RESEND_REQUEST', () => {
  it('is off unless true, and on without PUBLICATION_QUEUE_URL is a ConfigError naming both', () => {
    expect(republishQueueOf({ REPUBLISH_ON_RESEND_REQUEST: false, PUBLICATION_QUEUE_URL: 'https://q' })).toBe(
      undefined,
    );
    expect(() => republishQueueOf({ REPUBLISH_ON_RESEND_REQUEST: true })).toThrow(ConfigError);
    expect(() => republishQueueOf({ REPUBLISH_ON_RESEND_REQUEST: true })).toThrow(
      /REPUBLISH_ON_RESEND_REQUEST is true but PUBLICATION_QUEUE_URL is not set/,
    );
  });
});

describe('publicationRepublisher', () => {
  it('submits once per key; the same request naming other items later is not submitted again', async () => {
    // arrange
    const store = new MemoryStateStore();
    const queue = new RecordingQueue();
    const republisher = publicationRepublisher({ store, queue });
    const key = resendIdempotencyKey(601, 'gdsn-se');

    // act
    const first = await republisher.republish({
      primaryKeys: ['b', 'a'],
      channelId: 'gdsn-se',
      idempotencyKey: key,
    });
    const again = await republisher.republish({
      primaryKeys: ['a', 'b'],
      channelId: 'gdsn-se',
      idempotencyKey: key,
    });
    const other = await republisher.republish({
      primaryKeys: ['a'],
      channelId: 'gdsn-se',
      idempotencyKey: key,
    });

    // assess
    expect(first).toEqual({ publicationId: publicationIdFor('resend-request', key), replayed: false });
    expect(again).toEqual({ publicationId: first.publicationId, replayed: true });
    expect(other).toEqual({ publicationId: first.publicationId, replayed: true });
    expect(queue.sent).toEqual([{ publicationId: first.publicationId }]);
    const record = (await store.get<PublicationRecord>(publicationKey(first.publicationId)))?.value;
    expect(record).toMatchObject({ requestedBy: 'resend-request', request: { primaryKeys: ['a', 'b'] } });
  });
});
