/**
 * Where each event type goes: the SQS queue, the EventBridge bus or both (EVENT_DESTINATIONS, per
 * family; default the queue only), and which queue: its family's override variable when set, else
 * EVENTS_QUEUE_URL (README, Configuration). The routing is configuration: `loadConfig`
 * reads it at cold start (every type a function emits must have a queue), and packages/bridge/src/events, a layer
 * above, re-exports it for the SQS sink, which asks it per event. It lives here, not in packages/bridge/src/events,
 * so that imports run down the layers only (test/unit/module-graph.test.ts).
 */

import { ConfigError } from '../core/index.ts';
import type { BaseSettings } from './base.ts';
import { goesToBus, goesToQueue } from './event-destinations.ts';

/** Event-type prefixes and the variable that may route that family to its own queue. */
export const EVENT_QUEUE_OVERRIDES = Object.freeze({
  'pds.ingest.': 'INGEST_EVENTS_QUEUE_URL',
  'pds.messaging-asset.': 'MESSAGING_ASSET_EVENTS_QUEUE_URL',
  'pds.supplier-review.': 'SUPPLIER_REVIEW_EVENTS_QUEUE_URL',
  'pds.publication.': 'PUBLICATION_EVENTS_QUEUE_URL',
  'pds.confirmation.': 'CONFIRMATION_EVENTS_QUEUE_URL',
} as const);

type EventQueueOverride = (typeof EVENT_QUEUE_OVERRIDES)[keyof typeof EVENT_QUEUE_OVERRIDES];

/** The routing variables, each `undefined` when unset. */
export type EventQueueSettings = Partial<
  Pick<BaseSettings, 'EVENTS_QUEUE_URL' | EventQueueOverride | 'EVENT_BUS_NAME' | 'EVENT_DESTINATIONS'>
>;

/**
 * The override variable for an event type's family (`pds.ingest.completed` → `INGEST_EVENTS_QUEUE_URL`),
 * or `undefined` for a type outside the known families.
 *
 * @example
 * ```ts
 * eventQueueOverrideFor('pds.publication.failed'); // 'PUBLICATION_EVENTS_QUEUE_URL'
 * ```
 */
export function eventQueueOverrideFor(eventType: string): EventQueueOverride | undefined {
  for (const [prefix, variable] of Object.entries(EVENT_QUEUE_OVERRIDES)) {
    if (eventType.startsWith(prefix)) return variable;
  }
  return undefined;
}

function missingEventQueue(eventType: string, override: EventQueueOverride | undefined): string {
  return `EVENTS_QUEUE_URL${override ? ` or ${override}` : ''} is required to send ${eventType} events (the SQS queue URL for events)`;
}

/**
 * One configuration problem per event type (duplicates once) that no queue variable routes, when its
 * family goes to the queue; one naming EVENT_BUS_NAME when a family the function emits goes to the bus
 * and no bus is set.
 *
 * @example
 * ```ts
 * unroutedEventTypeProblems({}, ['pds.ingest.failed']); // ['EVENTS_QUEUE_URL or INGEST_EVENTS_QUEUE_URL is required …']
 * ```
 */
export function unroutedEventTypeProblems(
  settings: EventQueueSettings,
  eventTypes: readonly string[],
): string[] {
  const problems: string[] = [];
  const toBus: string[] = [];
  for (const eventType of new Set(eventTypes)) {
    if (goesToBus(settings.EVENT_DESTINATIONS, eventType)) toBus.push(eventType);
    if (!goesToQueue(settings.EVENT_DESTINATIONS, eventType)) continue;
    const override = eventQueueOverrideFor(eventType);
    if (
      settings.EVENTS_QUEUE_URL === undefined &&
      (override === undefined || settings[override] === undefined)
    ) {
      problems.push(missingEventQueue(eventType, override));
    }
  }
  if (toBus.length > 0 && settings.EVENT_BUS_NAME === undefined) {
    problems.push(
      `EVENT_BUS_NAME is required: EVENT_DESTINATIONS sends ${toBus.join(', ')} to EventBridge (set the bus name or ARN, or route those families to sqs)`,
    );
  }
  return problems;
}

/**
 * The queue an event type goes to: its family's override when set, else EVENTS_QUEUE_URL.
 * Throws a {@link ConfigError} naming both variables when neither is set.
 *
 * @example
 * ```ts
 * eventQueueUrlFor(config, 'pds.ingest.completed'); // INGEST_EVENTS_QUEUE_URL ?? EVENTS_QUEUE_URL
 * ```
 */
export function eventQueueUrlFor(
  config: { readonly settings: EventQueueSettings },
  eventType: string,
): string {
  const override = eventQueueOverrideFor(eventType);
  const url = (override && config.settings[override]) || config.settings.EVENTS_QUEUE_URL;
  if (!url) throw ConfigError.fromProblems([missingEventQueue(eventType, override)]);
  return url;
}
