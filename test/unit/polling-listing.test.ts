import { describe, expect, it } from 'vitest';
import {
  type MessagingAssetListOptions,
  type MessagingAssetSummary,
  PdsBadRequestError,
} from '../../packages/bridge/src/pds/index.ts';
import type { ListingState } from '../../packages/bridge/src/polling/checkpoint.ts';
import { readListing } from '../../packages/bridge/src/polling/listing.ts';

type Behaviour = 'pages' | 'ignores' | 'refuses' | 'caps';

/** A PDS listing `ids` in this order that pages them, ignores the parameters, refuses them (400), or caps `limit` at 3. */
function listing(ids: number[], behaviour: Behaviour) {
  const requests: Array<{ limit: number; offset: number } | undefined> = [];
  return {
    ids,
    requests,
    async *streamMessagingAssets(
      options: MessagingAssetListOptions = {},
    ): AsyncGenerator<MessagingAssetSummary> {
      requests.push(options.page);
      const { page } = options;
      if (page && behaviour === 'refuses') {
        throw new PdsBadRequestError(
          400,
          { method: 'GET', path: '/api/v1/messaging/messagingassets/' },
          'bad',
        );
      }
      const limit =
        page && behaviour !== 'ignores'
          ? Math.min(page.limit, behaviour === 'caps' ? 3 : page.limit)
          : ids.length;
      const offset = page && behaviour !== 'ignores' ? page.offset : 0;
      for (const id of ids.slice(offset, offset + limit))
        yield { id, createdAt: id, contentType: 'application/xml' };
    },
  };
}

const fresh: ListingState = { paging: 'unknown', position: null };

async function read(pds: ReturnType<typeof listing>, state: ListingState, limit = 4) {
  const seen: number[] = [];
  let restarts = 0;
  const result = await readListing(
    pds,
    state,
    { paging: 'auto', limit },
    (asset) => seen.push(asset.id),
    () => restarts++,
  );
  return { ...result, seen, restarts };
}

describe('readListing', () => {
  it('pages from the start with one-entry overlaps, then reads only what follows the position', async () => {
    // prepare
    const pds = listing([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'pages');

    // act
    const first = await read(pds, fresh);
    const quiet = await read(pds, first.listing);
    pds.ids.push(11, 12);
    const more = await read(pds, quiet.listing);

    // assess
    expect(first).toMatchObject({ whole: true, seen: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
    expect(first.fellBack).toBeUndefined();
    expect(first.listing).toEqual({ paging: 'honoured', position: { offset: 10, firstId: 1, lastId: 10 } });
    expect(quiet).toMatchObject({ whole: false, requests: 1, seen: [] });
    expect(pds.requests.at(-3)).toEqual({ limit: 4, offset: 9 });
    expect(more).toMatchObject({ whole: false, requests: 2, seen: [11, 12] });
    expect(more.listing.position).toEqual({ offset: 12, firstId: 1, lastId: 12 });
  });

  it('reads the whole listing when entries moved before the position (an insertion, a removal, newest first)', async () => {
    // prepare
    const pds = listing([2, 4, 6, 8], 'pages');
    const { listing: state } = await read(pds, fresh);

    // act: 3 shows up between listed ones
    pds.ids.splice(1, 0, 3);
    const moved = await read(pds, state);

    // assess
    expect(moved).toMatchObject({ whole: true, fellBack: 'moved', restarts: 1 });
    expect(moved.seen).toContain(3);
    expect(moved.listing).toEqual({ paging: 'honoured', position: { offset: 5, firstId: 2, lastId: 8 } });
  });

  it('finds out that the PDS ignores the parameters and reads whole from then on', async () => {
    // prepare: 3 entries fit in one page, so only the second request shows it
    const small = listing([1, 2, 3], 'ignores');
    const large = listing([1, 2, 3, 4, 5, 6], 'ignores');

    // act
    const smallRead = await read(small, fresh);
    const largeRead = await read(large, fresh);
    const later = await read(large, largeRead.listing);

    // assess
    expect(smallRead).toMatchObject({ fellBack: 'offset-ignored', listing: { paging: 'ignored' } });
    expect(largeRead).toMatchObject({
      fellBack: 'limit-ignored',
      requests: 2,
      listing: { paging: 'ignored' },
    });
    expect(later).toMatchObject({ whole: true, requests: 1, seen: [1, 2, 3, 4, 5, 6] });
    expect(large.requests.at(-1)).toBeUndefined();
  });

  it('reads whole when the PDS refuses the parameters, and goes on paging a PDS that caps the page size', async () => {
    // prepare
    const refusing = listing([1, 2, 3], 'refuses');
    const capping = listing([1, 2, 3, 4, 5, 6, 7, 8, 9], 'caps');

    // act
    const refused = await read(refusing, fresh);
    const capped = await read(capping, fresh, 100);

    // assess
    expect(refused).toMatchObject({ fellBack: 'refused', whole: true, seen: [1, 2, 3] });
    expect(capped).toMatchObject({ seen: [1, 2, 3, 4, 5, 6, 7, 8, 9], listing: { paging: 'honoured' } });
    expect(capped.fellBack).toBeUndefined();
  });
});
