/**
 * What the pollers call AWS for: their rows of the permission table (packages/bridge/src/lambda/permissions.ts;
 * test/integration/serverless-iam.test.ts holds deploy/pollers.yml to it).
 *
 * The checkpoint is only ever rewritten, never deleted; a lease is deleted when its run ends
 * (packages/bridge/src/state/lease.ts), and an expired watch entry when a run meets it (`purgeIfExpired`). The review
 * pollers never write watch entries: what they emitted goes to their progress (./supplier-reviews/review-progress.ts).
 */
import { CONFIRMATION_GRANTS } from '../confirmations/permissions.ts';
import {
  actions,
  claimCheckGrant,
  eventBusGrant,
  type Grant,
  type PermissionTable,
  pdsCredentialsGrant,
  publishFailureGrant,
  queueNamedBy,
  sendsEvent,
  stateObjects,
  webhookOfferGrant,
  withStateListing,
} from '../lambda/permissions.ts';
import { PUBLICATIONS_PREFIX } from '../publications/keys.ts';
import { PUBLICATION_QUEUE_ACTIONS } from '../publications/sqs/queue.ts';
import { leaseKey, WATCH_PREFIX } from '../state/index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { POLLER_LEASES } from './exclusive.ts';
import { MESSAGING_ASSETS_AUDIT_KEY, MESSAGING_ASSETS_CHECKPOINT, REVIEW_PROGRESS_PREFIX } from './keys.ts';
import { REVIEW_KEY_QUEUE_ACTIONS } from './supplier-reviews/sqs/review-queue.ts';

const { read, write, delete: remove } = STATE_STORE_ACTIONS;

const BUCKET_WHY = 'tells a missing record (404) from a forbidden one';

/** What every poller does: claim-check large events, send its events, read the PDS credentials. */
function shared(eventType: string): Grant[] {
  return [
    claimCheckGrant,
    publishFailureGrant,
    webhookOfferGrant,
    eventBusGrant,
    sendsEvent(eventType),
    pdsCredentialsGrant,
  ];
}

/** The review pollers' state: the watch entries they read and purge, and their own progress. */
const reviewState: Grant[] = [
  {
    resource: stateObjects(WATCH_PREFIX),
    actions: actions(read, remove),
    why: 'reads a watch entry the listing shows changed, purges expired entries',
  },
  {
    resource: stateObjects(REVIEW_PROGRESS_PREFIX),
    actions: actions(read, write),
    why: 'reads and records the reviews emitted per key, one document per shard of keys',
  },
];

export const POLLING_PERMISSIONS: PermissionTable = {
  'poll-messaging-assets': withStateListing(BUCKET_WHY, [
    ...shared('pds.messaging-asset.received'),
    {
      resource: stateObjects(MESSAGING_ASSETS_CHECKPOINT),
      actions: actions(read, write),
      why: 'reads and moves the checkpoint',
    },
    {
      resource: stateObjects(MESSAGING_ASSETS_AUDIT_KEY),
      actions: actions(read, write),
      why: "records the scheduled audit's last report",
    },
    ...CONFIRMATION_GRANTS.answers,
    {
      resource: stateObjects(PUBLICATIONS_PREFIX),
      actions: actions(read, write),
      why: "records a resend request's republication (REPUBLISH_ON_RESEND_REQUEST), as POST /publications does",
    },
    {
      resource: queueNamedBy('PUBLICATION_QUEUE_URL'),
      actions: actions(PUBLICATION_QUEUE_ACTIONS),
      why: "queues a resend request's republication for the publish worker (REPUBLISH_ON_RESEND_REQUEST)",
    },
    {
      resource: stateObjects(leaseKey(POLLER_LEASES.messagingAssets)),
      actions: actions(read, write, remove),
      why: 'holds the run lease and deletes it when the run ends',
    },
  ]),
  'poll-supplier-reviews': withStateListing(`lists the watch list; ${BUCKET_WHY}`, [
    ...shared('pds.supplier-review.received'),
    ...reviewState,
    ...CONFIRMATION_GRANTS.deadlines,
    {
      resource: stateObjects(leaseKey(POLLER_LEASES.supplierReviews)),
      actions: actions(read, write, remove),
      why: 'holds the run lease and deletes it when the run ends',
    },
    {
      resource: queueNamedBy('REVIEW_POLL_QUEUE_URL'),
      actions: actions(REVIEW_KEY_QUEUE_ACTIONS),
      why: 'fans a large watch list out in chunks',
    },
  ]),
  'poll-supplier-reviews-worker': withStateListing(BUCKET_WHY, [
    ...shared('pds.supplier-review.received'),
    ...reviewState,
    ...CONFIRMATION_GRANTS.answers,
  ]),
};
