/**
 * What the webhook-delivery function calls AWS for (its row of the permission table,
 * packages/bridge/src/lambda/permissions.ts), and the grants the api's /webhooks routes and every emitting function add
 * (deploy/webhooks.yml attaches them to those roles). test/integration/serverless-iam.test.ts holds
 * the template to them.
 */
import { CLAIM_CHECK_ACTIONS, CLAIM_CHECK_PREFIX, EVENT_PUBLISHER_ACTIONS } from '../events/sqs/index.ts';
import {
  actions,
  eventBusGrant,
  type Grant,
  type PermissionTable,
  pdsCredentialsGrant,
  queueNamedBy,
  sendsEvent,
  stateObjects,
  withStateListing,
} from '../lambda/permissions.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { WEBHOOKS_PREFIX } from './keys.ts';
import { DELIVERY_QUEUE_ACTIONS } from './sqs/queue.ts';

const { read, write, delete: remove } = STATE_STORE_ACTIONS;

/** The api's /webhooks routes: the registry, the delivery log and the key; replays queued. */
export const WEBHOOK_API_GRANTS: readonly Grant[] = [
  {
    resource: stateObjects(WEBHOOKS_PREFIX),
    actions: actions(read, write, remove),
    why: 'registers, changes and removes webhook endpoints; reads the delivery log and the signing key',
  },
  {
    resource: queueNamedBy('WEBHOOK_QUEUE_URL'),
    actions: actions(DELIVERY_QUEUE_ACTIONS),
    why: 'queues replayed deliveries',
  },
];

export const WEBHOOK_PERMISSIONS: PermissionTable = {
  'webhook-delivery': withStateListing(
    'lists the endpoints; tells a missing record (404) from a forbidden one',
    [
      {
        resource: stateObjects(WEBHOOKS_PREFIX),
        actions: actions(read, write),
        why: 'reads endpoints and the signing key, keeps events for replay, records every attempt',
      },
      {
        resource: stateObjects(CLAIM_CHECK_PREFIX),
        actions: actions(CLAIM_CHECK_ACTIONS.resolve, CLAIM_CHECK_ACTIONS.store),
        why: 'reads events offered too large for SQS; stores its own large events',
      },
      {
        resource: queueNamedBy('WEBHOOK_QUEUE_URL'),
        actions: actions(DELIVERY_QUEUE_ACTIONS, EVENT_PUBLISHER_ACTIONS),
        why: 'queues one task per healthy endpoint; offers its own events to webhooks',
      },
      {
        resource: queueNamedBy('WEBHOOK_SLOW_QUEUE_URL'),
        actions: actions(DELIVERY_QUEUE_ACTIONS),
        why: 'queues the tasks of endpoints that are not healthy (the slow lane), each retry with its delay',
      },
      sendsEvent('pds.webhook.endpoint-disabled'),
      eventBusGrant,
      // It never calls the PDS, but its bundle carries the shared runtime's PDS client (packages/bridge/src/lambda/adapters.ts),
      // which this table must match call for call.
      pdsCredentialsGrant,
    ],
  ),
};
