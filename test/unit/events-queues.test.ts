import { describe, expect, it } from 'vitest';
import {
  createQueueUrlResolver,
  EVENT_TYPES,
  EventConfigError,
  eventQueueUrlsFromEnv,
} from '../../lib/events/index.ts';

describe('createQueueUrlResolver', () => {
  it('sends every type to EVENTS_QUEUE_URL unless its family has its own queue', () => {
    // prepare
    const urls = eventQueueUrlsFromEnv({
      EVENTS_QUEUE_URL: 'https://sqs/events',
      INGEST_EVENTS_QUEUE_URL: 'https://sqs/ingest',
      PUBLICATION_EVENTS_QUEUE_URL: '  ',
    });

    // act
    const resolve = createQueueUrlResolver(urls);

    // assess
    expect(Object.fromEntries(EVENT_TYPES.map((type) => [type, resolve(type)]))).toEqual({
      'pds.ingest.completed': 'https://sqs/ingest',
      'pds.ingest.failed': 'https://sqs/ingest',
      'pds.messaging-asset.received': 'https://sqs/events',
      'pds.supplier-review.received': 'https://sqs/events',
      'pds.publication.completed': 'https://sqs/events',
      'pds.publication.failed': 'https://sqs/events',
    });
  });

  it('works with one queue per family and no default', () => {
    // act
    const resolve = createQueueUrlResolver(
      eventQueueUrlsFromEnv({
        INGEST_EVENTS_QUEUE_URL: 'i',
        MESSAGING_ASSET_EVENTS_QUEUE_URL: 'm',
        SUPPLIER_REVIEW_EVENTS_QUEUE_URL: 's',
        PUBLICATION_EVENTS_QUEUE_URL: 'p',
      }),
    );

    // assess
    expect(EVENT_TYPES.map(resolve)).toEqual(['i', 'i', 'm', 's', 'p', 'p']);
  });

  it('names every variable that is missing, at creation', () => {
    // act
    const build = () => createQueueUrlResolver(eventQueueUrlsFromEnv({ INGEST_EVENTS_QUEUE_URL: 'i' }));

    // assess
    expect(build).toThrow(EventConfigError);
    expect(build).toThrow(
      /EVENTS_QUEUE_URL.*MESSAGING_ASSET_EVENTS_QUEUE_URL.*SUPPLIER_REVIEW_EVENTS_QUEUE_URL.*PUBLICATION_EVENTS_QUEUE_URL/,
    );
  });
});
