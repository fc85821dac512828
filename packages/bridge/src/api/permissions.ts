/**
 * What the api function calls AWS for: its row of the permission table (packages/bridge/src/lambda/permissions.ts;
 * test/integration/serverless-iam.test.ts holds deploy/api.yml to it).
 *
 * Publication records (which also carry the Idempotency-Key) are never deleted: a submission that
 * gives its claim back writes the record without it (packages/bridge/src/publications/submit.ts). Only
 * `DELETE /watch/{key}` deletes.
 */
import { CONFIRMATION_GRANTS } from '../confirmations/permissions.ts';
import {
  actions,
  type PermissionTable,
  pdsCredentialsGrant,
  queueNamedBy,
  stateObjects,
  withStateListing,
} from '../lambda/permissions.ts';
import { REVIEW_PROGRESS_PREFIX } from '../polling/keys.ts';
import { PUBLICATIONS_PREFIX } from '../publications/keys.ts';
import { PUBLICATION_QUEUE_ACTIONS } from '../publications/sqs/queue.ts';
import { WATCH_PREFIX } from '../state/index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { WEBHOOK_API_GRANTS } from '../webhooks/permissions.ts';

const { read, write, delete: remove } = STATE_STORE_ACTIONS;

export const API_PERMISSIONS: PermissionTable = {
  api: withStateListing(
    'lists the watch list (GET /watch); tells a missing record (404) from a forbidden one',
    [
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
      ...WEBHOOK_API_GRANTS,
      pdsCredentialsGrant,
    ],
  ),
};
