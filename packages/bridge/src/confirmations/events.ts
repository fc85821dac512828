/**
 * `pds.confirmation.changed`: one event per transition of a ledger entry. Its id comes from the
 * entry's state key, the fact that caused the transition and the two states, so a transition
 * published twice (a crash between publishing and clearing the outbox) carries the same id.
 */

import type { ConfirmationChangedData } from '../events/data/index.ts';
import { type CloudEvent, createEvent, eventId } from '../events/index.ts';
import type { PendingChange } from './entry.ts';

const TYPE = 'pds.confirmation.changed';

function idParts(stateKey: string, factId: string, data: ConfirmationChangedData): string[] {
  return [stateKey, factId, data.previousState ?? '', data.state];
}

/** The id the event of this transition has (recorded in the entry's history). */
export function confirmationEventId(stateKey: string, factId: string, data: ConfirmationChangedData): string {
  return eventId(TYPE, idParts(stateKey, factId, data));
}

/**
 * @example
 * confirmationChangedEvent('confirmations/0401/gdsn-de/_.json', 'publication:7d3f…', data).subject; // 'item/0401'
 */
export function confirmationChangedEvent(
  stateKey: string,
  factId: string,
  data: ConfirmationChangedData,
  options: { source?: string | undefined; time?: Date } = {},
): CloudEvent<typeof TYPE> {
  return createEvent({
    type: TYPE,
    subject: `item/${data.entry.primaryKey}`,
    idParts: idParts(stateKey, factId, data),
    ...(options.source ? { source: options.source } : {}),
    ...(options.time ? { time: options.time } : {}),
    data,
  });
}

/** The identity of an outbox change: the fact and the transition it caused. */
export function pendingId(change: PendingChange): string {
  return JSON.stringify([change.factId, change.data.previousState ?? '', change.data.state]);
}
