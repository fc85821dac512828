/**
 * Which SQS queue each event type goes to: `EVENTS_QUEUE_URL` for all, unless a family has its own
 * queue (`INGEST_`, `MESSAGING_ASSET_`, `SUPPLIER_REVIEW_`, `PUBLICATION_EVENTS_QUEUE_URL`).
 */
import { EventConfigError } from './errors.ts';
import { EVENT_TYPES, type EventType } from './types.ts';

export type EventFamily = 'ingest' | 'messagingAsset' | 'supplierReview' | 'publication';

/** Queue URLs per family; `default` serves every family without its own. */
export interface EventQueueUrls {
  default?: string | undefined;
  ingest?: string | undefined;
  messagingAsset?: string | undefined;
  supplierReview?: string | undefined;
  publication?: string | undefined;
}

/** The environment variable behind each field of {@link EventQueueUrls}. */
export const EVENT_QUEUE_ENV = {
  default: 'EVENTS_QUEUE_URL',
  ingest: 'INGEST_EVENTS_QUEUE_URL',
  messagingAsset: 'MESSAGING_ASSET_EVENTS_QUEUE_URL',
  supplierReview: 'SUPPLIER_REVIEW_EVENTS_QUEUE_URL',
  publication: 'PUBLICATION_EVENTS_QUEUE_URL',
} as const satisfies Record<keyof EventQueueUrls, string>;

/** Returns the queue URL for an event type. */
export type QueueUrlResolver = (type: EventType) => string;

const FAMILY_OF: Record<EventType, EventFamily> = {
  'pds.ingest.completed': 'ingest',
  'pds.ingest.failed': 'ingest',
  'pds.messaging-asset.received': 'messagingAsset',
  'pds.supplier-review.received': 'supplierReview',
  'pds.publication.completed': 'publication',
  'pds.publication.failed': 'publication',
};

/** The family an event type belongs to, e.g. `pds.ingest.failed` → `ingest`. */
export function eventFamily(type: EventType): EventFamily {
  return FAMILY_OF[type];
}

/**
 * Reads {@link EventQueueUrls} from the environment; empty values count as unset.
 *
 * @example
 * const resolver = createQueueUrlResolver(eventQueueUrlsFromEnv(process.env));
 */
export function eventQueueUrlsFromEnv(env: Record<string, string | undefined> = process.env): EventQueueUrls {
  const urls: EventQueueUrls = {};
  for (const [field, variable] of Object.entries(EVENT_QUEUE_ENV) as Array<[keyof EventQueueUrls, string]>) {
    const value = env[variable]?.trim();
    if (value) urls[field] = value;
  }
  return urls;
}

/**
 * A resolver that has a queue for every event type, checked now rather than at the first event:
 * throws {@link EventConfigError} naming the variables to set.
 *
 * @example
 * const resolve = createQueueUrlResolver({ default: 'https://sqs.eu-west-1.amazonaws.com/123/events' });
 * resolve('pds.ingest.completed'); // the default queue
 */
export function createQueueUrlResolver(urls: EventQueueUrls): QueueUrlResolver {
  const missing = new Set<string>();
  for (const type of EVENT_TYPES) {
    const family = FAMILY_OF[type];
    if (!urls[family] && !urls.default) missing.add(EVENT_QUEUE_ENV[family]);
  }
  if (missing.size > 0) {
    throw new EventConfigError(
      `No event queue for ${[...missing].join(', ')}: set ${EVENT_QUEUE_ENV.default} (used for every event type) or each of ${[...missing].join(', ')}.`,
      [EVENT_QUEUE_ENV.default, ...missing],
    );
  }
  return (type) => {
    const url = urls[FAMILY_OF[type]] || urls.default;
    if (!url) throw new EventConfigError(`No event queue for event type ${type}`, [EVENT_QUEUE_ENV.default]);
    return url;
  };
}
