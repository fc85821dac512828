/**
 * What the publish worker calls AWS for: its row of the permission table (packages/bridge/src/lambda/permissions.ts;
 * test/integration/serverless-iam.test.ts holds deploy/api.yml to it). The api function's row is
 * packages/bridge/src/api/permissions.ts.
 *
 * Publication records are never deleted, by the worker or the api (packages/bridge/src/publications/submit.ts).
 */
import { CONFIRMATION_GRANTS } from '../confirmations/permissions.ts';
import {
  actions,
  claimCheckGrant,
  eventBusGrant,
  type PermissionTable,
  pdsCredentialsGrant,
  publishFailureGrant,
  sendsEvent,
  stateObjects,
  webhookOfferGrant,
  withStateListing,
} from '../lambda/permissions.ts';
import { activityFamilyPrefix } from '../state/activity-index.ts';
import { WATCH_PREFIX } from '../state/index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { PUBLICATIONS_PREFIX } from './keys.ts';
import { PUBLICATION_ACTIVITY } from './records.ts';
import { PUBLICATION_EVENT_TYPES } from './settings.ts';

const { read, write } = STATE_STORE_ACTIONS;

export const PUBLICATION_PERMISSIONS: PermissionTable = {
  'publish-worker': withStateListing('tells a missing record (404) from a forbidden one', [
    {
      resource: stateObjects(activityFamilyPrefix(PUBLICATION_ACTIVITY)),
      actions: actions(STATE_STORE_ACTIONS.read, STATE_STORE_ACTIONS.write),
      why: 'writes the activity-index marker replay finds each notified publication by',
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
    claimCheckGrant,
    publishFailureGrant,
    webhookOfferGrant,
    eventBusGrant,
    ...PUBLICATION_EVENT_TYPES.map(sendsEvent),
    pdsCredentialsGrant,
  ]),
};
