/**
 * `pds bridge recipients`: how each recipient answers, from the per-recipient daily aggregates the
 * ledger keeps (packages/bridge/src/confirmations/recipient-stats.ts), the same figures as
 * `GET /confirmations/recipients`. Reads one listing and one document per recipient and day, never
 * the ledger's entries.
 */
import {
  lastDays,
  listRecipients,
  type RecipientRecord,
  readRecipient,
  recipientFigures,
  recipientOver,
} from '@pds-bridge/bridge/confirmations/recipient-stats.ts';
import { mapAll } from '@pds-bridge/bridge/core';
import type { StateStore } from '@pds-bridge/bridge/state';

export type RecipientFigures = ReturnType<typeof recipientFigures>;

export interface RecipientsAnswer {
  /** The UTC days of the window, oldest first. */
  days: string[];
  recipients: Array<RecipientRecord & { totals: RecipientFigures }>;
  /** More recipients exist than shown (`--limit`). */
  truncated: boolean;
}

export interface RecipientSeriesAnswer {
  channelId: string;
  recipient: string;
  /** Undefined when the ledger never counted a transition of this recipient. */
  record?: RecipientRecord;
  totals?: RecipientFigures;
  days: Array<{ day: string } & RecipientFigures>;
}

/**
 * The first `limit` recipients with their figures over the last `days` days.
 *
 * @example
 * ```ts
 * const answer = await recipientsOverview(store, { days: 7, limit: 50, now: new Date() });
 * ```
 */
export async function recipientsOverview(
  store: StateStore,
  options: { days: number; limit: number; now: Date },
): Promise<RecipientsAnswer> {
  const days = lastDays(options.now, options.days);
  const page = await listRecipients(store, { limit: options.limit });
  const recipients = await mapAll(page.recipients, 4, async (record) => ({
    ...record,
    totals: recipientFigures((await recipientOver(store, record, days)).totals),
  }));
  return { days, recipients, truncated: page.next !== undefined };
}

/** One recipient's figures per day of the last `days` days. */
export async function recipientSeries(
  store: StateStore,
  channelId: string,
  recipient: string,
  options: { days: number; now: Date },
): Promise<RecipientSeriesAnswer> {
  const record = await readRecipient(store, channelId, recipient);
  if (!record) return { channelId, recipient, days: [] };
  const { series, totals } = await recipientOver(store, record, lastDays(options.now, options.days));
  return {
    channelId,
    recipient,
    record,
    totals: recipientFigures(totals),
    days: series.map(({ day, counts }) => ({ day, ...recipientFigures(counts) })),
  };
}
