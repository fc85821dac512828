/**
 * The confirmation ledger's configuration variables (README, "Configuration").
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `CONFIRMATION_DEADLINE_HOURS` | 48 | hours a published item may wait for its recipient's answer before it is OVERDUE |
 * | `CONFIRMATION_DEADLINE_SECONDS` | (unset) | the same deadline in seconds, replacing the hours: OVERDUE within minutes in the local stack or a test stage |
 * | `CONFIRMATION_RETENTION_DAYS` | 90 | days a settled entry (SYNCHRONISED, ACCEPTED) is kept after it settled; unresolved entries never expire |
 * | `DATA_POOL_GLNS` | none | comma-separated GLNs of the data pools and the Global Registry whose refusals (and relayed confirmations) the ledger believes (./channel-directory.ts) |
 *
 * Its events go to `CONFIRMATION_EVENTS_QUEUE_URL` when set, else `EVENTS_QUEUE_URL` (packages/bridge/src/events/routing.ts).
 */
import { setting } from '../config/index.ts';

export const DEFAULT_DEADLINE_HOURS = 48;

/** A quarter: a settled answer stays visible through the next quarterly range review, then goes. */
export const DEFAULT_RETENTION_DAYS = 90;

export const CONFIRMATION_SETTINGS = {
  CONFIRMATION_RETENTION_DAYS: setting.integer(
    'days a settled confirmation entry (SYNCHRONISED, ACCEPTED) is kept after it settled, e.g. 90',
    { min: 1, max: 3650, default: DEFAULT_RETENTION_DAYS },
  ),
  DATA_POOL_GLNS: setting.string(
    'comma-separated 13-digit GLNs of the data pools and the Global Registry whose refusals the confirmation ledger believes, e.g. 0614141000029,0614141000036',
    { pattern: /^\d{13}(\s*,\s*\d{13})*$/, hint: 'a comma-separated list of 13-digit GLNs' },
  ),
  CONFIRMATION_DEADLINE_HOURS: setting.integer(
    'hours a published item may wait for its recipient to answer before it is OVERDUE, e.g. 48',
    { min: 1, max: 24 * 90, default: DEFAULT_DEADLINE_HOURS },
  ),
  CONFIRMATION_DEADLINE_SECONDS: setting.integer(
    'seconds a published item may wait for its recipient to answer before it is OVERDUE, replacing CONFIRMATION_DEADLINE_HOURS when set: a deadline of minutes, to see OVERDUE in the local stack or a test stage, e.g. 120',
    { min: 1, max: 86_400 * 90 },
  ),
};

/** Days to milliseconds. */
export function retentionMs(days: number): number {
  return days * 86_400_000;
}

/**
 * The deadline in milliseconds: CONFIRMATION_DEADLINE_SECONDS when set, else the hours.
 *
 * @example
 * ```ts
 * deadlineMs({ CONFIRMATION_DEADLINE_HOURS: 48 }); // 172_800_000
 * deadlineMs({ CONFIRMATION_DEADLINE_HOURS: 48, CONFIRMATION_DEADLINE_SECONDS: 120 }); // 120_000
 * ```
 */
export function deadlineMs(settings: {
  CONFIRMATION_DEADLINE_HOURS: number;
  CONFIRMATION_DEADLINE_SECONDS?: number | undefined;
}): number {
  const seconds = settings.CONFIRMATION_DEADLINE_SECONDS;
  return seconds === undefined ? settings.CONFIRMATION_DEADLINE_HOURS * 3_600_000 : seconds * 1000;
}

/** The GLNs of `DATA_POOL_GLNS` (already checked by its pattern); none when unset. */
export function dataPoolGlns(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(',').map((gln) => gln.trim());
}
