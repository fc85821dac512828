/**
 * What the messaging-asset poller takes and gives back: its dependencies, its options and the report
 * of a run, plus the values its stages hand on (an asset fetched and parsed, a page of candidates).
 */
import type { ConfirmationRecorder } from '../../confirmations/ports.ts';
import type { Log } from '../../core/index.ts';
import type { CloudEvent, EventSink } from '../../events/index.ts';
import type { MessagingAssetSummary, PdsClient } from '../../pds/index.ts';
import type { StateStore } from '../../state/index.ts';
import type { ParseOptions } from '../../xml/index.ts';
import type { FirstRun } from '../checkpoint.ts';
import type { ListingPagingMode, ListingRead } from '../listing.ts';

export interface MessagingAssetPollDeps {
  pds: Pick<PdsClient, 'streamMessagingAssets' | 'getMessagingAsset'>;
  store: StateStore;
  sink: EventSink;
  logger?: Log;
  /** The confirmation ledger, told of each asset SQS accepted before the checkpoint moves past it. */
  confirmations?: ConfirmationRecorder;
}

export interface MessagingAssetPollOptions {
  /** Without a checkpoint: `now` (default) records the current assets as done, `backlog` emits them all. */
  firstRun?: FirstRun;
  /** PDS requests in flight at once; default 8. */
  concurrency?: number;
  /** Assets per page (one publish and one checkpoint write each); default 100. */
  pageSize?: number;
  /** Cap of the retry list; see checkpoint.ts. */
  maxRetry?: number;
  /** `auto` (default): read only the listing's new part where the PDS pages it (listing.ts); `off`: whole. */
  paging?: ListingPagingMode;
  /** Entries asked for per paged request of the listing; default 1000. */
  listingPageLimit?: number;
  /** Most new assets one run takes on (the rest wait for the next run); default 10 000. */
  maxAssetsPerRun?: number;
  /** Consecutive failed runs after which an asset is emitted with `messageError` and passed; default 5. */
  failureLimit?: number;
  /** Epoch ms after which no new page is started (the Lambda's remaining time minus a margin). */
  deadline?: number;
  /** CloudEvents `source`; default `urn:pds-bridge`. */
  source?: string;
  /** Limits of each asset's XML (XML_MAX_BYTES, XML_MAX_DEPTH, XML_MAX_ELEMENTS, XML_MAX_ATTRIBUTES); defaults of packages/bridge/src/xml. */
  xmlLimits?: ParseOptions;
  now?: () => Date;
}

/** What one run did; the handler turns it into metrics and a log line. */
export interface MessagingAssetPollReport {
  /** True when this run only created the checkpoint (first run `now`). */
  initialised: boolean;
  /** Listing entries this run read (only the new part where the PDS pages the listing). */
  listed: number;
  /** PDS requests the listing took. */
  listingRequests: number;
  /** Why a paged read of the listing was replaced by a whole one, if it was (listing.ts). */
  listingFellBack?: ListingRead['fellBack'];
  /** Ids recorded as done without an event: by a first run `now`, or carried over from a version-1 floor. */
  recordedAsDone: number;
  /** Assets that were new or waiting for a retry. */
  candidates: number;
  /** Events SQS accepted. */
  emitted: number;
  /** Of those, assets whose XML could not be parsed (emitted with `parseError` and the raw text). */
  parseErrors: number;
  /**
   * Assets that failed in this run: their fetch failed, or SQS refused their event as invalid. Those
   * recorded wait in the retry list; those that reached the failure limit are in `emittedAsFailed` too.
   */
  failed: number;
  /** Of the emitted, assets passed with `messageError` after failing on `failureLimit` consecutive runs. */
  emittedAsFailed: number;
  /** Retry entries dropped because the PDS no longer lists their asset. */
  gone: number;
  /** Retry entries given up because the retry list was full. */
  abandoned: number;
  /** Assets waiting for a retry after this run. */
  retryPending: number;
  /** Candidates this run did not get to, and new assets beyond POLL_MAX_ASSETS_PER_RUN (they stay new). */
  remaining: number;
  /** Events of fetched assets that SQS did not accept (they stay new). */
  unpublished: number;
  /**
   * Why the run stopped before the end, if it did: the deadline came, every fetch of a page failed
   * for a PDS-wide reason, or SQS did not accept every event of a page.
   */
  stopped?: 'deadline' | 'pds-unavailable' | 'publish-failed';
  /** The highest emitted id after the run. */
  highestId: number | null;
  /** Ids in the checkpoint's record of emitted assets, and the ranges it is kept as. */
  emittedIds: number;
  emittedRanges: number;
  /**
   * How far the checkpoint lags behind the PDS after the run: the age of the oldest listed asset it
   * has not passed yet (new, or waiting for a retry), in seconds; 0 when it is caught up.
   */
  checkpointAgeSeconds: number;
}

/** An asset after the fetch and parse stages: its event, or why it has none. */
export type Fetched =
  | {
      ok: true;
      asset: MessagingAssetSummary;
      event: CloudEvent<'pds.messaging-asset.received'>;
      parseError: boolean;
    }
  | {
      ok: false;
      asset: MessagingAssetSummary;
      error: unknown;
      /** Set when the failed runs already count this one (an interrupted asset passed unfetched). */
      counted?: true;
    };

/** Assets fetched and published together; a `suspect` page holds one asset a run died on. */
export interface CandidatePage {
  assets: MessagingAssetSummary[];
  suspect: boolean;
}
