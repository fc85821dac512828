/**
 * What the ingest function calls AWS for: its row of the permission table (packages/bridge/src/lambda/permissions.ts;
 * test/integration/serverless-iam.test.ts holds deploy/ingest.yml to it).
 *
 * The progress records are never deleted: a claim is given back by writing the record without a live
 * lease (packages/bridge/src/ingest/progress.ts), so the next delivery resumes from what it holds.
 */
import {
  actions,
  claimCheckGrant,
  dropBucket,
  dropObjects,
  eventBusGrant,
  type PermissionTable,
  pdsCredentialsGrant,
  publishFailureGrant,
  sendsEvent,
  stateObjects,
  triggerQueue,
  webhookOfferGrant,
  withStateListing,
} from '../lambda/permissions.ts';
import { activityFamilyPrefix } from '../state/activity-index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { INGEST_PROGRESS_PREFIX } from './keys.ts';
import { INGEST_ACTIVITY } from './progress.ts';
import { OBJECT_SOURCE_ACTIONS, OBJECT_TAGGER_ACTIONS } from './s3/adapters.ts';
import { INGEST_EVENT_TYPES } from './settings.ts';
import { RETRY_DELAY_ACTIONS } from './sqs/retry-delay.ts';

export const INGEST_PERMISSIONS: PermissionTable = {
  ingest: withStateListing('tells a progress record not written yet (404) from a forbidden one', [
    {
      resource: dropObjects,
      actions: actions(OBJECT_SOURCE_ACTIONS.objects, OBJECT_TAGGER_ACTIONS.objects),
      why: 'streams the announced version of each drop and merges the ingest tags into its tag set',
    },
    {
      resource: dropBucket,
      actions: actions(OBJECT_SOURCE_ACTIONS.bucket),
      why: 'tells a deleted drop (404) from a forbidden one',
    },
    {
      resource: stateObjects(activityFamilyPrefix(INGEST_ACTIVITY)),
      actions: actions(STATE_STORE_ACTIONS.read, STATE_STORE_ACTIONS.write, STATE_STORE_ACTIONS.delete),
      why: 'writes the activity-index markers status and replay find each progress record by',
    },
    {
      resource: stateObjects(INGEST_PROGRESS_PREFIX),
      actions: actions(STATE_STORE_ACTIONS.read, STATE_STORE_ACTIONS.write),
      why: 'claims and advances the progress record of each write',
    },
    claimCheckGrant,
    publishFailureGrant,
    webhookOfferGrant,
    eventBusGrant,
    ...INGEST_EVENT_TYPES.map(sendsEvent),
    {
      resource: triggerQueue,
      actions: actions(RETRY_DELAY_ACTIONS),
      why: 'brings a failed record back after its back-off instead of the visibility timeout',
    },
    pdsCredentialsGrant,
  ]),
};
