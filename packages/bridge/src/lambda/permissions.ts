/**
 * The vocabulary of the permission tables: what each function's code calls AWS for, on which resource.
 *
 * Each flow keeps its table beside its code (`packages/bridge/src/ingest/permissions.ts`, `packages/bridge/src/polling/permissions.ts`,
 * `packages/bridge/src/api/permissions.ts`, `packages/bridge/src/publications/permissions.ts`), composed from the actions each adapter
 * exports next to the SDK calls it makes (for example `STATE_STORE_ACTIONS` in packages/bridge/src/state/s3/store.ts).
 * test/integration/serverless-iam.test.ts holds every function's role in the packaged template to its
 * table, and the table to the SDK calls found in the function's bundle (docs/deployment.md,
 * "Permissions").
 *
 * Resources are named the way the code finds them, never by ARN: the state bucket and a key pattern
 * in it (imported from the module that builds those keys, so a renamed prefix moves the table with
 * it), the drop bucket the S3 notifications name, the queue or secret a configuration variable names,
 * the queue whose messages invoke the function. The grants several flows share (PDS credentials,
 * claim-check, event queues) are written here once.
 */
import { EVENTBRIDGE_PUBLISHER_ACTIONS } from '../events/eventbridge/index.ts';
import { PUBLISH_FAILURES_PREFIX } from '../events/index.ts';
import { CLAIM_CHECK_ACTIONS, CLAIM_CHECK_PREFIX, EVENT_PUBLISHER_ACTIONS } from '../events/sqs/index.ts';
import { SECRET_CREDENTIALS_ACTIONS } from '../pds/index.ts';
import { STATE_STORE_ACTIONS } from '../state/s3/index.ts';

/** Where a call goes. */
export type Resource =
  /**
   * The state bucket itself (STATE_BUCKET), listed only under `prefixes` (key patterns such as
   * `watch/*`, granted with a `StringLike` condition on `s3:prefix`): see {@link listsStateBucket}.
   */
  | { readonly kind: 'state-bucket'; readonly prefixes: readonly string[] }
  /** Objects of the state bucket: one key (`checkpoints/messaging-assets.json`) or a prefix and `*`. */
  | { readonly kind: 'state-objects'; readonly pattern: string }
  /**
   * The drop bucket itself, whose notifications reach the ingest, listed only under `<ingestPrefix>*`
   * (a `StringLike` condition on `s3:prefix`).
   */
  | { readonly kind: 'drop-bucket' }
  /** The drop bucket's objects under `ingestPrefix` (every object when no prefix is set). */
  | { readonly kind: 'drop-objects' }
  /** The queue whose URL a configuration variable holds (`PUBLICATION_QUEUE_URL`). */
  | { readonly kind: 'queue'; readonly variable: string }
  /** The queue an event type is routed to (its family's override variable, else EVENTS_QUEUE_URL). */
  | { readonly kind: 'event-queue'; readonly eventType: string }
  /** The queue whose messages invoke the function (the code finds it in the record's eventSourceARN). */
  | { readonly kind: 'trigger-queue' }
  /** The Secrets Manager secret a configuration variable names (`PDS_CREDENTIALS_SECRET_ID`). */
  | { readonly kind: 'secret'; readonly variable: string }
  /**
   * Secrets Manager secrets by name: `pattern` (`webhooks/ep_*`) after the prefix a configuration
   * variable holds (`WEBHOOK_SECRETS_PREFIX`, deployed `pds-bridge/<stage>/`).
   */
  | { readonly kind: 'secret-names'; readonly variable: string; readonly pattern: string }
  /** The EventBridge bus a configuration variable names (`EVENT_BUS_NAME`; deploy/eventbridge.yml). */
  | { readonly kind: 'event-bus'; readonly variable: string };

/** Actions the code calls on one resource, and why, in a few words. */
export interface Grant {
  readonly resource: Resource;
  readonly actions: readonly string[];
  readonly why: string;
}

/** A function's grants, by the name of its handler (`packages/bridge/functions/<name>.ts`). */
export type PermissionTable = Readonly<Record<string, readonly Grant[]>>;

export const dropBucket: Resource = Object.freeze({ kind: 'drop-bucket' });
export const dropObjects: Resource = Object.freeze({ kind: 'drop-objects' });
export const triggerQueue: Resource = Object.freeze({ kind: 'trigger-queue' });

/**
 * Objects of the state bucket: a key, or a prefix (`WATCH_PREFIX`, `INGEST_PROGRESS_PREFIX`, …, each from the
 * module that owns it), which stands for every key under it.
 *
 * @example
 * ```ts
 * stateObjects(WATCH_PREFIX); // watch/*
 * stateObjects(leaseKey('poll-messaging-assets')); // leases/poll-messaging-assets.json
 * ```
 */
export function stateObjects(keyOrPrefix: string): Resource {
  return { kind: 'state-objects', pattern: keyOrPrefix.endsWith('/') ? `${keyOrPrefix}*` : keyOrPrefix };
}

/**
 * The ListBucket grant on the state bucket of a role whose other grants are `grants`: listed only
 * under the key patterns the role may read (`s3:GetObject`), as one `StringLike` condition on
 * `s3:prefix`. That covers both uses: every `store.list(prefix)` of the code lists under a prefix
 * the role reads, and a read answered 403 lists its exact key to tell a missing key from a forbidden
 * one (packages/bridge/src/state/s3/store.ts), which only a role that may read the key needs.
 *
 * @example
 * ```ts
 * const row = [listsStateBucket(grants, 'lists the watch list'), ...grants];
 * ```
 */
export function listsStateBucket(grants: readonly Grant[], why: string): Grant {
  const prefixes = new Set<string>();
  for (const grant of grants) {
    if (grant.resource.kind === 'state-objects' && grant.actions.includes('s3:GetObject')) {
      prefixes.add(grant.resource.pattern);
    }
  }
  if (prefixes.size === 0) throw new TypeError('a role that reads no state key needs no ListBucket grant');
  return {
    resource: Object.freeze({ kind: 'state-bucket', prefixes: Object.freeze([...prefixes].sort()) }),
    actions: actions(STATE_STORE_ACTIONS.bucket),
    why,
  };
}

/** A row whose ListBucket grant on the state bucket follows its reads ({@link listsStateBucket}), first. */
export function withStateListing(why: string, grants: readonly Grant[]): Grant[] {
  return [listsStateBucket(grants, why), ...grants];
}

/** The queue whose URL the configuration variable `variable` holds. */
export function queueNamedBy(variable: string): Resource {
  return { kind: 'queue', variable };
}

/** The queue events of `eventType` are routed to (packages/bridge/src/config/event-routing.ts). */
export function eventQueueOf(eventType: string): Resource {
  return { kind: 'event-queue', eventType };
}

/** The secret the configuration variable `variable` names. */
export function secretNamedBy(variable: string): Resource {
  return { kind: 'secret', variable };
}

/** The secrets named `pattern` below the prefix in `variable`. */
export function secretsNamed(variable: string, pattern: string): Resource {
  return { kind: 'secret-names', variable, pattern };
}

/** The actions of several adapters on one resource, once each, sorted. */
export function actions(...lists: ReadonlyArray<readonly string[]>): readonly string[] {
  return [...new Set(lists.flat())].sort();
}

/** Every function that calls the PDS: reads its credentials from the secret PDS_CREDENTIALS_SECRET_ID. */
export const pdsCredentialsGrant: Grant = Object.freeze({
  resource: secretNamedBy('PDS_CREDENTIALS_SECRET_ID'),
  actions: actions(SECRET_CREDENTIALS_ACTIONS),
  why: 'reads the PDS credentials',
});

/** Every function that emits events: stores the bodies too large for SQS in the state bucket (claim-check). */
export const claimCheckGrant: Grant = Object.freeze({
  resource: stateObjects(CLAIM_CHECK_PREFIX),
  actions: actions(CLAIM_CHECK_ACTIONS.store),
  why: 'stores event bodies too large for SQS',
});

/** Every function that emits events: records what a destination did not accept, by the hour (events/publish-failures.ts). */
export const publishFailureGrant: Grant = Object.freeze({
  resource: stateObjects(PUBLISH_FAILURES_PREFIX),
  actions: actions(STATE_STORE_ACTIONS.read, STATE_STORE_ACTIONS.write),
  why: 'records the events a destination did not accept, by the hour',
});

/** Every function that emits events: offers them to webhooks through WEBHOOK_QUEUE_URL (packages/bridge/src/lambda/adapters.ts). */
export const webhookOfferGrant: Grant = Object.freeze({
  resource: queueNamedBy('WEBHOOK_QUEUE_URL'),
  actions: actions(EVENT_PUBLISHER_ACTIONS),
  why: 'offers its events to webhooks',
});

/**
 * Every function that emits events: publishes the families EVENT_DESTINATIONS routes to the bus in
 * EVENT_BUS_NAME (packages/bridge/src/lambda/adapters.ts). deploy/eventbridge.yml grants it only when a bus is configured.
 */
export const eventBusGrant: Grant = Object.freeze({
  resource: Object.freeze({ kind: 'event-bus', variable: 'EVENT_BUS_NAME' }),
  actions: actions(EVENTBRIDGE_PUBLISHER_ACTIONS),
  why: 'publishes the families EVENT_DESTINATIONS routes to EventBridge (checks the bus first)',
});

/** A function that emits `eventType`: sends it to the queue it is routed to. */
export function sendsEvent(eventType: string): Grant {
  return {
    resource: eventQueueOf(eventType),
    actions: actions(EVENT_PUBLISHER_ACTIONS),
    why: `sends ${eventType}`,
  };
}

/** A resource as the docs name it: `state bucket: ingest/*`, `queue in PUBLICATION_QUEUE_URL`. */
export function describeResource(resource: Resource): string {
  switch (resource.kind) {
    case 'state-bucket':
      return `state bucket, listed under ${resource.prefixes.map((prefix) => `\`${prefix}\``).join(', ')}`;
    case 'state-objects':
      return `state bucket: \`${resource.pattern}\``;
    case 'drop-bucket':
      return 'drop bucket, listed under `<ingestPrefix>*`';
    case 'drop-objects':
      return 'drop bucket: `<ingestPrefix>*`';
    case 'queue':
      return `queue in \`${resource.variable}\``;
    case 'event-queue':
      return `queue of \`${resource.eventType}\``;
    case 'trigger-queue':
      return 'its trigger queue';
    case 'secret':
      return `secret in \`${resource.variable}\``;
    case 'secret-names':
      return `secrets \`<${resource.variable}>${resource.pattern}\``;
    case 'event-bus':
      return `bus in \`${resource.variable}\``;
  }
}

/**
 * The table as Markdown, one line per grant (docs/deployment.md, "Permissions", shows it and a test
 * keeps the two equal).
 */
export function renderPermissionTable(table: PermissionTable): string {
  const lines = ['| function | resource | actions | why |', '|---|---|---|---|'];
  for (const [name, grants] of Object.entries(table)) {
    for (const grant of grants) {
      const granted = grant.actions.map((action) => `\`${action}\``).join(', ');
      lines.push(`| ${name} | ${describeResource(grant.resource)} | ${granted} | ${grant.why} |`);
    }
  }
  return lines.join('\n');
}
