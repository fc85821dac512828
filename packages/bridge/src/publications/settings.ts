/**
 * The configuration variables of the publish-worker function, and the watch-list expiry it shares
 * with the api function (packages/bridge/src/api/settings.ts) and the pollers.
 */

import { setting } from '../config/index.ts';
import { CONFIRMATION_SETTINGS } from '../confirmations/settings.ts';

const DAY_MS = 86_400_000;

/** How long published or operator-added keys stay on the watch list; shared with the pollers. */
export const WATCH_TTL_SETTING = setting.integer(
  'days a primary key stays on the supplier-review watch list after it was (re-)added, e.g. 30',
  { min: 1, max: 3650, default: 30 },
);

/** Variables of the publish-worker function. */
export const WORKER_SETTINGS = Object.freeze({
  PUBLICATION_MAX_ATTEMPTS: setting.integer(
    'deliveries of a publication message before a transient PDS failure becomes final, e.g. 5',
    { min: 1, max: 100, default: 5 },
  ),
  WATCH_TTL_DAYS: WATCH_TTL_SETTING,
  ...CONFIRMATION_SETTINGS,
});

/**
 * The event types the publish worker emits (each needs a queue at cold start): its outcome, and the
 * AWAITING entries of the confirmation ledger.
 */
export const PUBLICATION_EVENT_TYPES = [
  'pds.publication.completed',
  'pds.publication.failed',
  'pds.confirmation.changed',
] as const;

/** Milliseconds of a WATCH_TTL_DAYS value. */
export function watchTtlMsOf(days: number): number {
  return days * DAY_MS;
}
