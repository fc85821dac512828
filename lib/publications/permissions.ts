/**
 * What the api and the publish worker call AWS for: their rows of the permission table
 * (lib/permissions.ts; test/integration/serverless-iam.test.ts holds deploy/api.yml to it).
 *
 * Publication records (which also carry the Idempotency-Key) are never deleted: a submission that gives its claim back
 * writes the record without it (lib/publications/submit.ts). Only `DELETE /watch/{key}` deletes.
 */
import { CONFIRMATION_GRANTS } from '../confirmations/permissions.ts';
import { CLAIM_CHECK_ACTIONS, CLAIM_CHECK_PREFIX, EVENT_PUBLISHER_ACTIONS } from '../events/sqs/index.ts';
import { SECRET_CREDENTIALS_ACTIONS } from '../pds/index.ts';
import {
  actions,
  eventQueueOf,
  type Grant,
  type PermissionTable,
  queueNamedBy,
  secretNamedBy,
  stateBucket,
  stateObjects,
} from '../permissions.ts';
import { REVIEW_PROGRESS_PREFIX } from '../polling/keys.ts';
import { WATCH_PREFIX } from '../state/index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { PUBLICATIONS_PREFIX } from './keys.ts';
import { PUBLICATION_EVENT_TYPES } from './settings.ts';
import { PUBLICATION_QUEUE_ACTIONS } from './sqs/queue.ts';

const { read, write, delete: remove, bucket } = STATE_STORE_ACTIONS;

const credentials: Grant = {
  resource: secretNamedBy('PDS_CREDENTIALS_SECRET_ID'),
  actions: actions(SECRET_CREDENTIALS_ACTIONS),
  why: 'reads the PDS credentials',
};

export const PUBLICATION_PERMISSIONS: PermissionTable = {
  api: [
    {
      resource: stateBucket,
      actions: actions(bucket),
      why: 'lists the watch list (GET /watch); tells a missing record (404) from a forbidden one',
    },
    {
      resource: stateObjects(PUBLICATIONS_PREFIX),
      actions: actions(read, write),
      why: 'records each publication request with its Idempotency-Key, answers GET /publications/{id}',
    },
    {
      resource: stateObjects(WATCH_PREFIX),
      actions: actions(read, write, remove),
      why: 'reads, refreshes and removes watch entries (/watch/{key})',
    },
    {
      resource: stateObjects(REVIEW_PROGRESS_PREFIX),
      actions: actions(read, write),
      why: "shows the reviews seen per watched key; forgets a removed key's progress",
    },
    ...CONFIRMATION_GRANTS.read,
    {
      resource: queueNamedBy('PUBLICATION_QUEUE_URL'),
      actions: actions(PUBLICATION_QUEUE_ACTIONS),
      why: 'queues each accepted publication for the worker',
    },
    credentials,
  ],
  'publish-worker': [
    {
      resource: stateBucket,
      actions: actions(bucket),
      why: 'tells a missing record (404) from a forbidden one',
    },
    {
      resource: stateObjects(PUBLICATIONS_PREFIX),
      actions: actions(read, write),
      why: 'records the outcome of each publication',
    },
    {
      resource: stateObjects(WATCH_PREFIX),
      actions: actions(read, write),
      why: 'puts the published keys on the watch list',
    },
    ...CONFIRMATION_GRANTS.publish,
    {
      resource: stateObjects(CLAIM_CHECK_PREFIX),
      actions: actions(CLAIM_CHECK_ACTIONS.store),
      why: 'stores event bodies too large for SQS',
    },
    ...PUBLICATION_EVENT_TYPES.map((eventType) => ({
      resource: eventQueueOf(eventType),
      actions: actions(EVENT_PUBLISHER_ACTIONS),
      why: `sends ${eventType}`,
    })),
    credentials,
  ],
};
