/**
 * Small ports the publication logic reports through, so it stays free of Powertools and testable:
 * handlers pass the Powertools logger and a metrics adapter; tests pass nothing or a recorder.
 */

import type { Log } from '../core/index.ts';

/** The levels the publication logic logs at (lib/core `Log`; the Powertools Logger fits). */
export type LogPort = Pick<Log, 'info' | 'warn' | 'error'>;

/** Counts things that happened, e.g. `count('PublicationsPublished')`. */
export type CountMetric = (name: string, value?: number) => void;
