/**
 * What the publish worker calls AWS for: its row of the permission table (lib/permissions.ts;
 * test/integration/serverless-iam.test.ts holds deploy/api.yml to it). The api function's row is
 * lib/api/permissions.ts.
 *
 * Publication records are never deleted, by the worker or the api (lib/publications/submit.ts).
 */
import { CONFIRMATION_GRANTS } from '../confirmations/permissions.ts';
import { CLAIM_CHECK_ACTIONS, CLAIM_CHECK_PREFIX, EVENT_PUBLISHER_ACTIONS } from '../events/sqs/index.ts';
import { SECRET_CREDENTIALS_ACTIONS } from '../pds/index.ts';
import {
  actions,
  eventQueueOf,
  type PermissionTable,
  secretNamedBy,
  stateBucket,
  stateObjects,
} from '../permissions.ts';
import { WATCH_PREFIX } from '../state/index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { PUBLICATIONS_PREFIX } from './keys.ts';
import { PUBLICATION_EVENT_TYPES } from './settings.ts';

const { read, write, bucket } = STATE_STORE_ACTIONS;

export const PUBLICATION_PERMISSIONS: PermissionTable = {
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
    {
      resource: secretNamedBy('PDS_CREDENTIALS_SECRET_ID'),
      actions: actions(SECRET_CREDENTIALS_ACTIONS),
      why: 'reads the PDS credentials',
    },
  ],
};
