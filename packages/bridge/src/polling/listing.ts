/**
 * How the messaging-asset poller reads the PDS's listing: as a stream, and, where the PDS honours the
 * spec's general paging conventions (`limit` with `offset`), only from where the last read ended.
 *
 * The spec does not say whether this listing pages, nor how it is ordered (docs/spec-gaps.md), so
 * nothing here trusts a guess; every paged request proves its own place:
 *
 * - The position is the number of entries the last read saw (`offset`) and the id of the last one.
 *   The next read asks for `limit` entries from `offset - 1`: its first entry must be that same id.
 *   Every later request overlaps the page before it by one entry the same way. A page holding only
 *   the overlap means the end: a run with nothing new costs one request of one entry.
 * - When the first entry is another (entries were inserted or removed before the position, the
 *   listing is not ordered the way paging needs, or the PDS ignores `offset`), or the PDS refuses
 *   the parameters (400), the run reads the whole listing instead, and starts afresh from its end.
 *   A page that starts with the listing's first entry although it was asked for a later offset
 *   shows the PDS ignores `offset`; an answer longer than `limit` shows it ignores `limit`. Either
 *   is remembered (`paging: 'ignored'`) and later runs read the whole listing without parameters.
 *
 * What paging cannot see: an entry inserted before the position while another before it is removed
 * in the same interval (the entry at the position stays the same). The daily audit reads the whole
 * listing and emits what a paged read missed (docs/operations.md).
 */
import type { MessagingAssetSummary, PdsClient } from '../pds/index.ts';
import { PdsBadRequestError } from '../pds/index.ts';
import type { ListingPosition, ListingState } from './checkpoint.ts';

/** `auto`: page where the PDS honours it (detected); `off`: always read the whole listing. */
export type ListingPagingMode = 'auto' | 'off';

export interface ListingReadOptions {
  paging: ListingPagingMode;
  /** Entries asked for per paged request. */
  limit: number;
}

/** What one read did. */
export interface ListingRead {
  /** The read began at the listing's first entry (so it saw every listed asset). */
  whole: boolean;
  /** PDS requests sent. */
  requests: number;
  /** Entries read (the overlap entries of paged requests are not counted; after a fallback, the whole read's). */
  entries: number;
  /** The listing state after the read, to store in the checkpoint. */
  listing: ListingState;
  /** Why a paged read was replaced by a whole one, if it was. */
  fellBack?: 'moved' | 'offset-ignored' | 'limit-ignored' | 'refused';
}

type Pds = Pick<PdsClient, 'streamMessagingAssets'>;

/**
 * Reads the listing (or its new part) and hands each entry to `visit`. A read that falls back to the
 * whole listing calls `restart` first and may then hand an entry twice; the caller keeps what it
 * takes by id.
 *
 * @example
 * const read = await readListing(pds, checkpoint.listing, { paging: 'auto', limit: 1000 }, (asset) => take(asset));
 */
export async function readListing(
  pds: Pds,
  state: ListingState,
  options: ListingReadOptions,
  visit: (asset: MessagingAssetSummary) => void,
  restart: () => void = () => undefined,
): Promise<ListingRead> {
  if (options.paging === 'off' || state.paging === 'ignored') {
    const read = await wholeRead(pds, visit);
    return { ...read, listing: { paging: state.paging, position: read.position } };
  }
  const paged = await pagedRead(pds, state, options.limit, visit);
  if (paged.fellBack === undefined) {
    return {
      whole: paged.whole,
      requests: paged.requests,
      entries: paged.entries,
      listing: { paging: paged.paging, position: paged.position },
    };
  }
  restart();
  const read = await wholeRead(pds, visit);
  const ignored = paged.fellBack === 'offset-ignored' || paged.fellBack === 'limit-ignored';
  return {
    whole: true,
    requests: paged.requests + read.requests,
    entries: read.entries,
    listing: { paging: ignored ? 'ignored' : state.paging, position: read.position },
    fellBack: paged.fellBack,
  };
}

interface PartRead {
  whole: boolean;
  requests: number;
  entries: number;
  position: ListingPosition | null;
}

/** One request without paging parameters: the whole listing, streamed. */
async function wholeRead(pds: Pds, visit: (asset: MessagingAssetSummary) => void): Promise<PartRead> {
  let entries = 0;
  let firstId = 0;
  let lastId = 0;
  for await (const asset of pds.streamMessagingAssets()) {
    if (entries === 0) firstId = asset.id;
    lastId = asset.id;
    entries += 1;
    visit(asset);
  }
  return {
    whole: true,
    requests: 1,
    entries,
    position: entries > 0 ? { offset: entries, firstId, lastId } : null,
  };
}

interface PagedResult extends PartRead {
  paging: ListingState['paging'];
  fellBack?: ListingRead['fellBack'];
}

/** Overlapping paged requests from the stored position (or the start) to a page with nothing new. */
async function pagedRead(
  pds: Pds,
  state: ListingState,
  limit: number,
  visit: (asset: MessagingAssetSummary) => void,
): Promise<PagedResult> {
  const start = state.position;
  let paging = state.paging;
  let offset = start ? start.offset - 1 : 0;
  let expected: number | undefined = start?.lastId;
  let firstId = start?.firstId;
  let lastId = start?.lastId ?? 0;
  let listed = start?.offset ?? 0;
  let requests = 0;
  let entries = 0;
  const result = (fellBack?: PagedResult['fellBack']): PagedResult => ({
    whole: start === null,
    requests,
    entries,
    paging,
    position: firstId === undefined ? null : { offset: listed, firstId, lastId },
    ...(fellBack ? { fellBack } : {}),
  });

  for (;;) {
    requests += 1;
    let seen = 0;
    let fresh = 0;
    let mismatch: number | 'none' | undefined;
    let overLimit = false;
    try {
      for await (const asset of pds.streamMessagingAssets({ page: { limit, offset } })) {
        seen += 1;
        if (seen === 1 && expected !== undefined) {
          if (asset.id !== expected) {
            mismatch = asset.id;
            break;
          }
          continue;
        }
        if (seen > limit) {
          overLimit = true; // more than asked for: the PDS ignores `limit`
          break;
        }
        if (firstId === undefined) firstId = asset.id;
        lastId = asset.id;
        fresh += 1;
        entries += 1;
        listed += 1;
        visit(asset);
      }
    } catch (error) {
      // A PDS that refuses the parameters on this listing: read it whole, as without paging.
      if (error instanceof PdsBadRequestError) return result('refused');
      throw error;
    }
    if (seen === 0 && expected !== undefined) mismatch = 'none';
    if (mismatch !== undefined) {
      return result(offset > 0 && mismatch === firstId ? 'offset-ignored' : 'moved');
    }
    if (overLimit) return result('limit-ignored');
    if (offset > 0 && expected !== undefined) paging = 'honoured';
    if (fresh === 0) return result();
    offset = listed - 1;
    expected = lastId;
  }
}
