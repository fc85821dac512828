/**
 * EVENT_DESTINATIONS: where each event family goes (its SQS queue, the EventBridge bus, or both),
 * read by the base configuration (./base.ts) and applied by routing (./event-routing.ts) and
 * packages/bridge/src/lambda/adapters.ts. Default: the queue only, for every family.
 */

/** The destinations an event family can go to: its SQS queue, the EventBridge bus, or both. */
export const EVENT_DESTINATIONS = Object.freeze(['sqs', 'eventbridge', 'both'] as const);
export type EventDestination = (typeof EVENT_DESTINATIONS)[number];

/** The family names EVENT_DESTINATIONS accepts (`publication=eventbridge`), each an event-type prefix. */
export const EVENT_FAMILIES = Object.freeze({
  ingest: 'pds.ingest.',
  'messaging-asset': 'pds.messaging-asset.',
  'supplier-review': 'pds.supplier-review.',
  publication: 'pds.publication.',
  confirmation: 'pds.confirmation.',
} as const);
export type EventFamily = keyof typeof EVENT_FAMILIES;

/** EVENT_DESTINATIONS read: the destination of every family, and the families that differ. */
export interface EventDestinations {
  readonly default: EventDestination;
  readonly families: Readonly<Partial<Record<EventFamily, EventDestination>>>;
}

/** SQS only, for every family: what a configuration without EVENT_DESTINATIONS gets. */
export const DEFAULT_EVENT_DESTINATIONS: EventDestinations = Object.freeze({
  default: 'sqs',
  families: Object.freeze({}),
});

const isDestination = (value: string): value is EventDestination =>
  (EVENT_DESTINATIONS as readonly string[]).includes(value);

/**
 * Reads EVENT_DESTINATIONS: a comma-separated list of a destination for every family and/or
 * `family=destination` overrides, e.g. `sqs,publication=both,confirmation=eventbridge`. Returns the
 * problem (completing "EVENT_DESTINATIONS …") for a word it does not know.
 *
 * @example
 * ```ts
 * parseEventDestinations('both,ingest=sqs'); // { ok: true, value: { default: 'both', families: { ingest: 'sqs' } } }
 * ```
 */
export function parseEventDestinations(
  raw: string,
): { ok: true; value: EventDestinations } | { ok: false; problem: string } {
  let fallback: EventDestination = 'sqs';
  const families: Partial<Record<EventFamily, EventDestination>> = {};
  const hint = `${EVENT_DESTINATIONS.join(', ')} or family=destination for a family of ${Object.keys(EVENT_FAMILIES).join(', ')}, comma-separated (e.g. sqs,publication=both)`;
  for (const part of raw.split(',').map((each) => each.trim())) {
    if (part === '') continue;
    const [name, value, ...rest] = part.split('=').map((each) => each.trim());
    if (value === undefined) {
      if (!isDestination(part)) return { ok: false, problem: `has ${JSON.stringify(part)}: must be ${hint}` };
      fallback = part;
    } else if (rest.length > 0 || !Object.hasOwn(EVENT_FAMILIES, name ?? '') || !isDestination(value)) {
      return { ok: false, problem: `has ${JSON.stringify(part)}: must be ${hint}` };
    } else {
      families[name as EventFamily] = value;
    }
  }
  return { ok: true, value: Object.freeze({ default: fallback, families: Object.freeze(families) }) };
}

/**
 * The destination of an event type under `destinations`: its family's, else the default.
 *
 * @example
 * ```ts
 * eventDestinationFor({ default: 'sqs', families: { publication: 'both' } }, 'pds.publication.failed'); // 'both'
 * ```
 */
export function eventDestinationFor(
  destinations: EventDestinations | undefined,
  eventType: string,
): EventDestination {
  const chosen = destinations ?? DEFAULT_EVENT_DESTINATIONS;
  for (const [family, prefix] of Object.entries(EVENT_FAMILIES)) {
    if (eventType.startsWith(prefix)) return chosen.families[family as EventFamily] ?? chosen.default;
  }
  return chosen.default;
}

/** True when events of `eventType` go to the SQS queue. */
export const goesToQueue = (destinations: EventDestinations | undefined, eventType: string): boolean =>
  eventDestinationFor(destinations, eventType) !== 'eventbridge';

/** True when events of `eventType` go to the EventBridge bus. */
export const goesToBus = (destinations: EventDestinations | undefined, eventType: string): boolean =>
  eventDestinationFor(destinations, eventType) !== 'sqs';
