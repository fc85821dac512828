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
  secretsNamed,
  sendsEvent,
  stateObjects,
  withStateListing,
} from '../lambda/permissions.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';
import { WEBHOOKS_PREFIX } from './keys.ts';
import { SIGNING_KEY_SECRET } from './secrets.ts';
import { SECRET_STORE_ACTIONS } from './secretsmanager/store.ts';
import { DELIVERY_QUEUE_ACTIONS } from './sqs/queue.ts';

const { read, write, delete: remove } = STATE_STORE_ACTIONS;

/** The variable holding the secret names' prefix (deployed `pds-bridge/<stage>/`). */
const PREFIX_VARIABLE = 'WEBHOOK_SECRETS_PREFIX';
/** Every endpoint's secrets and custom headers (`webhooks/<endpoint id>/…`; ids start `ep_`). */
const ENDPOINT_SECRETS = secretsNamed(PREFIX_VARIABLE, 'webhooks/ep_*');
/** The signing key; `-??????` is the random suffix Secrets Manager adds to every secret's ARN. */
const SIGNING_KEY = secretsNamed(PREFIX_VARIABLE, `${SIGNING_KEY_SECRET}-??????`);

/** The api's /webhooks routes: the registry, the delivery log and the key; replays queued. */
export const WEBHOOK_API_GRANTS: readonly Grant[] = [
  {
    resource: stateObjects(WEBHOOKS_PREFIX),
    actions: actions(read, write, remove),
    why: 'registers, changes and removes webhook endpoints; reads the delivery log and the public key',
  },
  {
    resource: ENDPOINT_SECRETS,
    actions: actions(SECRET_STORE_ACTIONS.create, SECRET_STORE_ACTIONS.delete),
    why: "creates an endpoint's secrets and custom headers, deletes them (rotated out, replaced, the endpoint deleted); never reads them",
  },
  {
    resource: SIGNING_KEY,
    actions: actions(SECRET_STORE_ACTIONS.create),
    why: 'creates the signing key when the public key is asked for first; never reads it',
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
        why: 'reads endpoints and the public key, keeps events for replay, records every attempt',
      },
      {
        resource: ENDPOINT_SECRETS,
        actions: actions(SECRET_STORE_ACTIONS.read, SECRET_STORE_ACTIONS.create, SECRET_STORE_ACTIONS.delete),
        why: 'reads the secrets it signs with and the custom headers it sends; moves secrets of records written before the secret store; deletes rotated-out ones after the overlap',
      },
      {
        resource: SIGNING_KEY,
        actions: actions(SECRET_STORE_ACTIONS.read, SECRET_STORE_ACTIONS.create),
        why: 'reads the signing key (v1a); creates it on first use',
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
