/**
 * The confirmation ledger as operators read it (`pds bridge confirmations`, `pds bridge why
 * PUBLICATION_ID`): one row per item and recipient, with the corrective actions in one line.
 */
import {
  countByState,
  entriesOfPublication,
  listEntries,
  resolveStates,
  type StoredEntry,
} from '@pds-bridge/bridge/confirmations/read.ts';
import type { PublicationRecord } from '@pds-bridge/bridge/publications/records.ts';
import { readPublication } from '@pds-bridge/bridge/publications/records.ts';
import type { StateStore } from '@pds-bridge/bridge/state';

/** One entry, flat. */
export interface ConfirmationRow {
  primaryKey: string;
  channelId: string;
  gtin?: string;
  recipientGln?: string;
  targetMarket?: string;
  state: string;
  since: string;
  deadline: string;
  /** `CODE: description (expected corrective information)`, one per corrective action. */
  correctiveActions: string[];
  /** Why, in one line: `CODE: text`, the data pool's error or the recipient's long description. */
  reason?: string;
  publications: string[];
  /**
   * The recipient's resend requests (packages/bridge/src/confirmations/resend.ts), one line each:
   * `messaging asset 601 (recipient 0614141000043) → republication <id>`.
   */
  resendRequests?: string[];
}

export interface ConfirmationsAnswer {
  /** What was asked. */
  query: { publicationId?: string; primaryKey?: string; states?: string[] };
  /** Set for a publication: whether it exists and where it stands. */
  publicationStatus?: PublicationRecord['status'] | 'not-found';
  summary: Record<string, number>;
  rows: ConfirmationRow[];
  /** More entries exist than shown (`--limit`). */
  truncated: boolean;
}

/** One stored entry as a flat row (what `pds bridge confirmations` and the console show). */
export function rowOf({ entry }: StoredEntry): ConfirmationRow {
  return {
    ...entry.key,
    state: entry.state,
    since: entry.since,
    deadline: entry.deadline,
    correctiveActions: entry.correctiveActions.map((action) =>
      [
        [action.statusCode, action.code].filter(Boolean).join(' '),
        action.description ? `: ${action.description}` : '',
        action.expectedCorrectiveInformation ? ` (${action.expectedCorrectiveInformation})` : '',
      ].join(''),
    ),
    ...(entry.reason ? { reason: [entry.reason.code, entry.reason.text].filter(Boolean).join(': ') } : {}),
    publications: entry.publications.map((publication) => publication.publicationId),
    ...(entry.resendRequests?.length
      ? {
          resendRequests: entry.resendRequests.map(
            (link) =>
              `messaging asset ${link.messagingAssetId}${link.recipientGln ? ` (recipient ${link.recipientGln})` : ''} → republication ${link.publicationId}`,
          ),
        }
      : {}),
  };
}

/** The entries of one publication, or `undefined` when the publication does not exist. */
export async function confirmationsOfPublication(
  store: StateStore,
  publicationId: string,
): Promise<ConfirmationsAnswer> {
  const stored = await readPublication(store, publicationId);
  if (!stored) {
    return {
      query: { publicationId },
      publicationStatus: 'not-found',
      summary: {},
      rows: [],
      truncated: false,
    };
  }
  const { request, status } = stored.value;
  const entries = await entriesOfPublication(store, { publicationId, ...request });
  return {
    query: { publicationId },
    publicationStatus: status,
    summary: countByState(entries),
    rows: entries.map(rowOf),
    truncated: false,
  };
}

/**
 * Entries of one item and/or in some states, at most `limit`. States are matched in any case; an
 * unknown one throws UnknownConfirmationStateError naming the valid states.
 */
export async function findConfirmations(
  store: StateStore,
  query: { primaryKey?: string; states?: string[] },
  limit: number,
): Promise<ConfirmationsAnswer> {
  if (query.states !== undefined) query = { ...query, states: await resolveStates(store, query.states) };
  const page = await listEntries(store, { ...query, limit });
  return {
    query,
    summary: countByState(page.entries),
    rows: page.entries.map(rowOf),
    truncated: page.next !== undefined,
  };
}
