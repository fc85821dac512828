/**
 * The confirmation ledger's configuration variables (README, "Configuration").
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `CONFIRMATION_DEADLINE_HOURS` | 48 | hours a published item may wait for its recipient's answer before it is OVERDUE |
 *
 * Its events go to `CONFIRMATION_EVENTS_QUEUE_URL` when set, else `EVENTS_QUEUE_URL` (lib/events/routing.ts).
 */
import { setting } from '../config.ts';

export const DEFAULT_DEADLINE_HOURS = 48;

export const CONFIRMATION_SETTINGS = {
  CONFIRMATION_DEADLINE_HOURS: setting.integer(
    'hours a published item may wait for its recipient to answer before it is OVERDUE, e.g. 48',
    { min: 1, max: 24 * 90, default: DEFAULT_DEADLINE_HOURS },
  ),
};

/** Hours to milliseconds. */
export function deadlineMs(hours: number): number {
  return hours * 3_600_000;
}
