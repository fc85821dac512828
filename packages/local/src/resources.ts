/**
 * The buckets and queues of the local stack, named as deploy/*.yml names them for a stage called
 * `local`, with the same dead-letter queues and receive counts. Visibility timeouts are shorter than
 * deployed ones so a failed delivery comes back within minutes on a developer's machine; each stays
 * above the local timeout of the function that consumes the queue (see LOCAL_FUNCTION_TIMEOUTS_MS).
 */
import type { FauxqsServer } from 'fauxqs';

/** Names of the local stack's buckets. */
export const LOCAL_BUCKETS = Object.freeze({
  drop: 'pds-bridge-local-drop',
  state: 'pds-bridge-local-state',
});

/** One queue, its dead-letter queue and redrive policy. */
export interface LocalQueueSpec {
  name: string;
  /** Seconds. */
  visibilityTimeout: number;
  dlq?: { name: string; maxReceiveCount: number };
}

/**
 * A queue named `pds-bridge-local-<name>` whose messages go to its dead-letter queue `…-dlq` after
 * `maxReceiveCount` receives.
 */
function queueWithDlq(
  name: string,
  { visibilityTimeout, maxReceiveCount }: { visibilityTimeout: number; maxReceiveCount: number },
): LocalQueueSpec {
  const queueName = `pds-bridge-local-${name}`;
  return { name: queueName, visibilityTimeout, dlq: { name: `${queueName}-dlq`, maxReceiveCount } };
}

/** Every queue the handlers use, by role. */
export const LOCAL_QUEUES = Object.freeze({
  /** S3 drop notifications → ingest (deploy/ingest.yml: DLQ after 5 receives). */
  ingest: queueWithDlq('ingest', { visibilityTimeout: 300, maxReceiveCount: 5 }),
  /** api → publish-worker (deploy/api.yml: DLQ after 10 receives, above PUBLICATION_MAX_ATTEMPTS). */
  publications: queueWithDlq('publications', { visibilityTimeout: 60, maxReceiveCount: 10 }),
  /** poll-supplier-reviews → its worker (deploy/pollers.yml: DLQ after 3 receives). */
  reviewPoll: queueWithDlq('review-poll', { visibilityTimeout: 120, maxReceiveCount: 3 }),
  /** events offered to webhooks and delivery tasks → webhook-delivery (deploy/webhooks.yml: DLQ after 5 receives). */
  webhooks: queueWithDlq('webhooks', { visibilityTimeout: 60, maxReceiveCount: 5 }),
  /** the slow lane: tasks of endpoints that are not healthy → webhook-delivery (deploy/webhooks.yml: DLQ after 5 receives). */
  webhooksSlow: queueWithDlq('webhooks-slow', { visibilityTimeout: 60, maxReceiveCount: 5 }),
  /** pds.ingest.* and pds.publication.* events (deploy/core.yml: DLQ after 5 receives). */
  events: queueWithDlq('events', { visibilityTimeout: 30, maxReceiveCount: 5 }),
  /** pds.messaging-asset.* events (deploy/pollers.yml: DLQ after 5 receives). */
  messagingAssetEvents: queueWithDlq('messaging-asset-events', { visibilityTimeout: 30, maxReceiveCount: 5 }),
  /** pds.supplier-review.* events (deploy/pollers.yml: DLQ after 5 receives). */
  supplierReviewEvents: queueWithDlq('supplier-review-events', { visibilityTimeout: 30, maxReceiveCount: 5 }),
} satisfies Record<string, LocalQueueSpec>);

export type LocalQueueRole = keyof typeof LOCAL_QUEUES;

/** The queues events arrive on, in the order `npm run events` reads them. */
export const EVENT_QUEUE_ROLES = ['events', 'messagingAssetEvents', 'supplierReviewEvents'] as const;

/** The time each function may run per invocation locally (the Lambda context's deadline). */
export const LOCAL_FUNCTION_TIMEOUTS_MS = Object.freeze({
  ingest: 240_000,
  publishWorker: 50_000,
  reviewWorker: 100_000,
  poller: 60_000,
  api: 29_000,
  webhookDelivery: 50_000,
});

/** URL and ARN of one created queue. */
export interface LocalQueue {
  name: string;
  url: string;
  arn: string;
}

/** What {@link createLocalResources} created. */
export interface LocalResources {
  buckets: typeof LOCAL_BUCKETS;
  /** Every queue by role. */
  queues: Record<LocalQueueRole, LocalQueue>;
  /** Every dead-letter queue, by the role of the queue it serves. */
  deadLetterQueues: Partial<Record<LocalQueueRole, LocalQueue>>;
}

/** The account fauxqs puts in every ARN and queue URL. */
const ACCOUNT_ID = '000000000000';

/**
 * Creates the buckets and queues on a running emulator; existing ones (restored from a data
 * directory) are kept with their messages and objects. Queue URLs name the emulator's own address,
 * so any SQS client reaches them whether it follows the queue URL's host or its configured endpoint.
 *
 * @example
 * ```ts
 * const resources = createLocalResources(server, 'http://127.0.0.1:4566');
 * resources.queues.ingest.url; // 'http://127.0.0.1:4566/000000000000/pds-bridge-local-ingest'
 * ```
 */
export function createLocalResources(server: FauxqsServer, endpoint: string): LocalResources {
  for (const bucket of Object.values(LOCAL_BUCKETS)) server.createBucket(bucket);
  const queues = {} as Record<LocalQueueRole, LocalQueue>;
  const deadLetterQueues: Partial<Record<LocalQueueRole, LocalQueue>> = {};
  const create = (name: string, attributes: Record<string, string>): LocalQueue => {
    // fauxqs's createQueue replaces an existing queue with an empty one: keep restored queues as they are.
    const existing = server.inspectQueue(name);
    const arn = existing ? existing.arn : server.createQueue(name, { attributes }).queueArn;
    return { name, url: `${endpoint}/${ACCOUNT_ID}/${name}`, arn };
  };
  for (const [role, spec] of Object.entries(LOCAL_QUEUES) as Array<[LocalQueueRole, LocalQueueSpec]>) {
    const attributes: Record<string, string> = {
      VisibilityTimeout: String(spec.visibilityTimeout),
      MessageRetentionPeriod: '1209600',
    };
    if (spec.dlq) {
      const dlq = create(spec.dlq.name, { MessageRetentionPeriod: '1209600' });
      deadLetterQueues[role] = dlq;
      attributes.RedrivePolicy = JSON.stringify({
        deadLetterTargetArn: dlq.arn,
        maxReceiveCount: String(spec.dlq.maxReceiveCount),
      });
    }
    queues[role] = create(spec.name, attributes);
  }
  return { buckets: LOCAL_BUCKETS, queues, deadLetterQueues };
}
