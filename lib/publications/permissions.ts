/**
 * What the api and the publish worker call AWS for: their rows of the permission table
 * (lib/permissions.ts; test/integration/serverless-iam.test.ts holds deploy/api.yml to it).
 *
 * Publication records (which also carry the Idempotency-Key) are never deleted: a submission that gives its claim back
 * writes the record without it (lib/publications/submit.ts). Only `DELETE /watch/{key}` deletes.
 */
import { CONFIRMATION_GRANTS } from '../confirmations/permissions.ts';
import {
  actions,
  claimCheckGrant,
  type PermissionTable,
  pdsCredentialsGrant,
  queueNamedBy,
  sendsEvent,
  stateBucket,
  stateObjects,
} from '../permissions.ts';
import { STATE_PREFIXES } from '../state/index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { PUBLICATION_EVENT_TYPES } from './settings.ts';
import { PUBLICATION_QUEUE_ACTIONS } from './sqs/queue.ts';

const { read, write, delete: remove, bucket } = STATE_STORE_ACTIONS;

export const PUBLICATION_PERMISSIONS: PermissionTable = {
  api: [
    {
      resource: stateBucket,
      actions: actions(bucket),
      why: 'lists the watch list (GET /watch); tells a missing record (404) from a forbidden one',
    },
    {
      resource: stateObjects(STATE_PREFIXES.publications),
      actions: actions(read, write),
      why: 'records each publication request with its Idempotency-Key, answers GET /publications/{id}',
    },
    {
      resource: stateObjects(STATE_PREFIXES.watch),
      actions: actions(read, write, remove),
      why: 'reads, refreshes and removes watch entries (/watch/{key})',
    },
    {
      resource: stateObjects(STATE_PREFIXES.reviewProgress),
      actions: actions(read, write),
      why: "shows the reviews seen per watched key; forgets a removed key's progress",
    },
    ...CONFIRMATION_GRANTS.read,
    {
      resource: queueNamedBy('PUBLICATION_QUEUE_URL'),
      actions: actions(PUBLICATION_QUEUE_ACTIONS),
      why: 'queues each accepted publication for the worker',
    },
    pdsCredentialsGrant,
  ],
  'publish-worker': [
    {
      resource: stateBucket,
      actions: actions(bucket),
      why: 'tells a missing record (404) from a forbidden one',
    },
    {
      resource: stateObjects(STATE_PREFIXES.publications),
      actions: actions(read, write),
      why: 'records the outcome of each publication',
    },
    {
      resource: stateObjects(STATE_PREFIXES.watch),
      actions: actions(read, write),
      why: 'puts the published keys on the watch list',
    },
    ...CONFIRMATION_GRANTS.publish,
    claimCheckGrant,
    ...PUBLICATION_EVENT_TYPES.map(sendsEvent),
    pdsCredentialsGrant,
  ],
};
