/**
 * `pds bridge webhooks …` and `pds bridge deliveries`: webhook endpoints, their delivery log and
 * replays, read and changed in the stage's state bucket (the same records as the API's /webhooks
 * routes, packages/bridge/src/webhooks), replays queued on the stage's webhook queue. docs/webhooks.md.
 */
import { UsageError } from '@pds-bridge/bridge/core';
import { EVENT_TYPES } from '@pds-bridge/bridge/events';
import {
  type DeliveryRecord,
  type DeliveryStatus,
  deleteEndpoint,
  type EndpointRecord,
  endpointView,
  listDeliveries,
  URL_POLICIES,
  type UrlPolicy,
  type WebhookDelivery,
  WebhookError,
} from '@pds-bridge/bridge/webhooks';
import { booleanFlag, integerFlag, listFlag, stringFlag } from '../args.ts';
import type { Command, CommandContext } from '../command.ts';
import type { OperatorConnection } from '../ops/connect.ts';
import { parseTimeFlag, targetOptions, withConnection } from './bridge.ts';

const webhookOptions = {
  ...targetOptions,
  'queue-url': {
    type: 'string',
    value: 'URL',
    description: "the webhook queue (default: the stage's pds-bridge-<stage>-webhooks)",
  },
  'url-policy': {
    type: 'string',
    value: 'POLICY',
    description:
      'public (https, public addresses only) or any (default: public for a deployed stage, whatever the environment says; $WEBHOOK_URL_POLICY or any for the local stack)',
  },
} as const;

const filterOptions = {
  'event-type': {
    type: 'string',
    multiple: true,
    value: 'TYPE',
    description: 'deliver only this event type (repeat for more; default every type)',
  },
  subject: {
    type: 'string',
    value: 'SUBJECT',
    description: 'deliver only events with this subject (a prefix when it ends with *)',
  },
  description: { type: 'string', value: 'TEXT', description: 'what the endpoint is for' },
  header: {
    type: 'string',
    multiple: true,
    value: "'NAME: VALUE'",
    description:
      'a custom header sent on every attempt (an API key the receiver requires); kept in the secret store, never shown again (repeat for more; on update, replaces them all)',
  },
} as const;

/** The `--header 'Name: value'` flags as a header map; undefined when none is given. */
function headersOf(context: CommandContext): Record<string, string> | undefined {
  const given = context.flags.header;
  if (given === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const each of (Array.isArray(given) ? given : [given]).map(String)) {
    const colon = each.indexOf(':');
    if (colon <= 0) {
      throw new UsageError(`--header must be 'NAME: VALUE', got '${each.split(':')[0]}…'`, context.command);
    }
    headers[each.slice(0, colon).trim()] = each.slice(colon + 1).trim();
  }
  return headers;
}

function policyOf({ flags, io, command }: CommandContext): UrlPolicy {
  return webhookUrlPolicy(
    stringFlag(flags, 'url-policy'),
    stringFlag(flags, 'stage') ?? io.env.PDS_BRIDGE_STAGE,
    io.env,
    command,
  );
}

/**
 * The URL policy the CLI checks endpoints with: `--url-policy` when given; for a deployed stage the
 * policy its function runs with (public), never a shell's WEBHOOK_URL_POLICY, which would let an
 * operator register what the deployed bridge then refuses, or worse; for the local stack the
 * environment's, else any.
 */
export function webhookUrlPolicy(
  flag: string | undefined,
  stage: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  command = '',
): UrlPolicy {
  const local = stage === undefined || stage === 'local';
  const policy = flag ?? (local ? (env.WEBHOOK_URL_POLICY ?? 'any') : 'public');
  if (!(URL_POLICIES as readonly string[]).includes(policy)) {
    throw new UsageError(
      `${flag !== undefined ? '--url-policy' : 'WEBHOOK_URL_POLICY'} must be one of ${URL_POLICIES.join(', ')}, got '${policy}'`,
      command,
    );
  }
  return policy as UrlPolicy;
}

/** Runs `fn` with the stage's webhook delivery; a refused URL or unknown endpoint is a usage error. */
async function withWebhooks<T>(
  context: CommandContext,
  fn: (webhooks: WebhookDelivery, connection: OperatorConnection) => Promise<T>,
): Promise<T> {
  try {
    return await withConnection(context, async (connection) => {
      const queueUrl = stringFlag(context.flags, 'queue-url');
      const policy = policyOf(context);
      return fn(await connection.webhooks({ policy, ...(queueUrl ? { queueUrl } : {}) }), connection);
    });
  } catch (error) {
    if (error instanceof WebhookError) throw new UsageError(error.message, context.command);
    throw error;
  }
}

function endpointLine(endpoint: EndpointRecord): string {
  const types = endpoint.eventTypes.length === 0 ? 'every type' : endpoint.eventTypes.join(', ');
  const subject = endpoint.subject ? ` · subject ${endpoint.subject}` : '';
  const failing =
    endpoint.failures > 0 ? ` · ${endpoint.failures} failed attempts since ${endpoint.failingSince}` : '';
  const budget = endpoint.slowAfterMs !== undefined ? `, answers past ${endpoint.slowAfterMs} ms` : '';
  const slow = endpoint.slowSince ? ` · slow since ${endpoint.slowSince}${budget} (slow lane)` : '';
  const disabled = endpoint.status === 'disabled' ? ` (${endpoint.disabledReason ?? 'disabled'})` : '';
  // Header names only: their values are secrets.
  const headers = endpoint.headerNames?.length ? ` · headers ${endpoint.headerNames.join(', ')}` : '';
  return `${endpoint.id}  ${endpoint.status}${disabled}  ${endpoint.url}  ${types}${subject}${headers}${failing}${slow}`;
}

function filtersOf(context: CommandContext) {
  const eventTypes = listFlag(context.flags, 'event-type');
  const subject = stringFlag(context.flags, 'subject');
  const description = stringFlag(context.flags, 'description');
  const headers = headersOf(context);
  return {
    ...(eventTypes ? { eventTypes } : {}),
    ...(subject !== undefined ? { subject } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(headers !== undefined ? { headers } : {}),
  };
}

const create: Command = {
  name: 'bridge webhooks create',
  summary: 'register a webhook endpoint; prints its secret once',
  description: `Event types: ${EVENT_TYPES.join(', ')}. The secret (whsec_…) is shown only here: store it in the receiver.`,
  args: 'URL',
  minArgs: 1,
  maxArgs: 1,
  options: { ...webhookOptions, ...filterOptions },
  examples: [
    'pds bridge webhooks create https://erp.example.com/pds-hooks --event-type pds.publication.completed --stage prod',
    'pds bridge webhooks create http://127.0.0.1:8080/hook',
    "pds bridge webhooks create https://erp.example.com/pds-hooks --header 'X-Api-Key: k-123' --stage prod",
  ],
  async run(context) {
    const { endpoint, secret } = await withWebhooks(context, (webhooks) =>
      webhooks.registry.create({ url: context.args[0] as string, ...filtersOf(context) }),
    );
    return {
      data: { endpoint: endpointView(endpoint), secret },
      text: () => `${endpointLine(endpoint)}\nsecret (shown once): ${secret}`,
    };
  },
};

const list: Command = {
  name: 'bridge webhooks list',
  summary: 'the webhook endpoints, their status and failures',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: webhookOptions,
  examples: ['pds bridge webhooks list --stage prod'],
  async run(context) {
    const endpoints = await withWebhooks(context, (webhooks) => webhooks.registry.list());
    return {
      data: endpoints.map(endpointView),
      text: () =>
        endpoints.length === 0 ? '(no webhook endpoints)' : endpoints.map(endpointLine).join('\n'),
    };
  },
};

/** A command on one endpoint: `pds bridge webhooks <verb> ENDPOINT_ID`. */
function onEndpoint(
  verb: string,
  summary: string,
  act: (webhooks: WebhookDelivery, id: string, context: CommandContext) => Promise<EndpointRecord>,
  extra: Partial<Command> = {},
): Command {
  return {
    name: `bridge webhooks ${verb}`,
    summary,
    args: 'ENDPOINT_ID',
    minArgs: 1,
    maxArgs: 1,
    options: webhookOptions,
    examples: [`pds bridge webhooks ${verb} ep_5f0c3a9e1b2d4c6a8e9f0a1b`],
    async run(context) {
      const endpoint = await withWebhooks(context, (webhooks) =>
        act(webhooks, context.args[0] as string, context),
      );
      return { data: endpointView(endpoint), text: () => endpointLine(endpoint) };
    },
    ...extra,
  };
}

const show = onEndpoint('show', 'one webhook endpoint', (webhooks, id) => webhooks.registry.require(id));
const update = onEndpoint(
  'update',
  'change the URL (--url), event types, subject filter, description or custom headers (--header; --clear-headers removes them) of an endpoint',
  (webhooks, id, context) => {
    const url = stringFlag(context.flags, 'url');
    const clear = booleanFlag(context.flags, 'clear-headers');
    if (clear && context.flags.header !== undefined) {
      throw new UsageError('give --header or --clear-headers, not both', context.command);
    }
    return webhooks.registry.update(id, {
      ...filtersOf(context),
      ...(url ? { url } : {}),
      ...(clear ? { headers: {} } : {}),
    });
  },
  {
    options: {
      ...webhookOptions,
      ...filterOptions,
      url: { type: 'string', value: 'URL', description: 'the new URL' },
      'clear-headers': { type: 'boolean', description: 'remove every custom header' },
    },
    examples: ['pds bridge webhooks update ep_5f0c3a9e1b2d4c6a8e9f0a1b --event-type pds.ingest.failed'],
  },
);
const disable = onEndpoint(
  'disable',
  'stop deliveries to an endpoint (what it misses can be replayed)',
  (webhooks, id) => webhooks.registry.disable(id, 'disabled by an operator (pds bridge webhooks disable)'),
);
const enable = onEndpoint('enable', 'resume deliveries to an endpoint', (webhooks, id) =>
  webhooks.registry.enable(id),
);

const rotate: Command = {
  name: 'bridge webhooks rotate',
  summary: 'a new secret for an endpoint; the old one keeps signing for --overlap-hours',
  args: 'ENDPOINT_ID',
  minArgs: 1,
  maxArgs: 1,
  options: {
    ...webhookOptions,
    'overlap-hours': { type: 'string', value: 'N', description: 'hours both secrets sign (default 24)' },
  },
  examples: ['pds bridge webhooks rotate ep_5f0c3a9e1b2d4c6a8e9f0a1b --overlap-hours 48'],
  async run(context) {
    const hours = integerFlag(context.flags, 'overlap-hours', context.command, { min: 0, max: 720 }) ?? 24;
    const { endpoint, secret } = await withWebhooks(context, (webhooks) =>
      webhooks.registry.rotate(context.args[0] as string, hours * 3_600_000),
    );
    return {
      data: { endpoint: endpointView(endpoint), secret },
      text: () => `${endpointLine(endpoint)}\nnew secret (shown once): ${secret}`,
    };
  },
};

const remove: Command = {
  name: 'bridge webhooks delete',
  summary: 'remove a webhook endpoint (its delivery log stays until it expires)',
  args: 'ENDPOINT_ID',
  minArgs: 1,
  maxArgs: 1,
  options: webhookOptions,
  examples: ['pds bridge webhooks delete ep_5f0c3a9e1b2d4c6a8e9f0a1b'],
  async run(context) {
    const id = context.args[0] as string;
    await withConnection(context, async (connection) => {
      const webhooks = await connection.webhooks({ policy: policyOf(context) }).catch(() => undefined);
      if (!webhooks)
        throw new UsageError(
          'the stage has no webhook queue; is the webhooks part deployed?',
          context.command,
        );
      try {
        await deleteEndpoint(webhooks.registry, connection.store, id);
      } catch (error) {
        if (error instanceof WebhookError) throw new UsageError(error.message, context.command);
        throw error;
      }
    });
    return { data: { deleted: id }, text: () => `${id} deleted` };
  },
};

const replay: Command = {
  name: 'bridge webhooks replay',
  summary: 'send events to an endpoint again, with their original ids',
  description:
    'By id (--event-id, repeatable) or by time (--since, --until), optionally only those not delivered (--failed-only). Events that came while the endpoint did not exist or was disabled are included.',
  args: 'ENDPOINT_ID',
  minArgs: 1,
  maxArgs: 1,
  options: {
    ...webhookOptions,
    'event-id': { type: 'string', multiple: true, value: 'ID', description: 'an event id (repeat for more)' },
    since: { type: 'string', value: 'TIME', description: 'events from this time (RFC 3339, or 12h, 3d ago)' },
    until: { type: 'string', value: 'TIME', description: 'events before this time (default now)' },
    'failed-only': { type: 'boolean', description: 'only events not delivered to this endpoint' },
  },
  examples: [
    'pds bridge webhooks replay ep_5f0c3a9e1b2d4c6a8e9f0a1b --since 24h --failed-only',
    'pds bridge webhooks replay ep_5f0c3a9e1b2d4c6a8e9f0a1b --event-id 7bfb442d-f912-8353-bc5b-240ff8c780c6',
  ],
  async run(context) {
    const { flags, command } = context;
    const now = Date.now();
    const eventIds = listFlag(flags, 'event-id');
    const since = stringFlag(flags, 'since');
    const until = stringFlag(flags, 'until');
    if (!eventIds && since === undefined)
      throw new UsageError('name the events: --event-id ID or --since TIME', command);
    // A time range is replayed page by page (each page one call, as the API answers it), until
    // none is left; `until` is fixed first so the pages end where the first one would have.
    const untilAt = new Date(until !== undefined ? parseTimeFlag(until, 'until', command, now) : now);
    const { queued, skipped } = await withWebhooks(context, async (webhooks) => {
      const all = { queued: [] as string[], skipped: [] as Array<{ eventId: string; reason: string }> };
      let from = since !== undefined ? new Date(parseTimeFlag(since, 'since', command, now)) : undefined;
      do {
        const page = await webhooks.replay(context.args[0] as string, {
          ...(eventIds ? { eventIds } : { since: from as Date, until: untilAt }),
          failedOnly: booleanFlag(flags, 'failed-only'),
        });
        all.queued.push(...page.queued);
        all.skipped.push(...page.skipped);
        from = page.next ? new Date(page.next) : undefined;
      } while (!eventIds && from);
      return all;
    });
    return {
      data: { queued, skipped },
      text: () =>
        [
          `${queued.length} event(s) queued${queued.length ? `: ${queued.join(', ')}` : ''}`,
          ...skipped.map((each) => `skipped ${each.eventId}: ${each.reason}`),
        ].join('\n'),
    };
  },
};

const publicKey: Command = {
  name: 'bridge webhooks public-key',
  summary: 'the whpk_ ed25519 key that verifies the v1a signatures of every delivery',
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: targetOptions,
  examples: ['pds bridge webhooks public-key --stage prod'],
  async run(context) {
    const key = await withWebhooks(context, (webhooks) => webhooks.secrets.publicKey());
    return { data: { publicKey: key, algorithm: 'ed25519' }, text: () => key };
  },
};

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'undelivered'];

function deliveryLines(record: DeliveryRecord): string[] {
  const head = `${record.eventId}  ${record.eventType}  ${record.status}${record.reason ? ` (${record.reason})` : ''}${record.nextAttemptAt ? ` · next attempt ${record.nextAttemptAt}` : ''}`;
  return [
    head,
    ...record.attempts.map(
      (a) =>
        `    #${a.attempt} ${a.at}  ${a.status ?? 'no answer'}  ${a.latencyMs} ms${a.replay ? ' (replay)' : ''}  ${a.response.slice(0, 80).replace(/\s+/g, ' ')}`,
    ),
  ];
}

const deliveries: Command = {
  name: 'bridge deliveries',
  summary: 'the webhook delivery log of an endpoint: every attempt, its status, latency and answer',
  args: 'ENDPOINT_ID',
  minArgs: 1,
  maxArgs: 1,
  options: {
    ...webhookOptions,
    status: {
      type: 'string',
      value: 'STATUS',
      description: `only ${STATUSES.join(', ')} (failed: given up, or retrying after a failed attempt)`,
    },
    limit: { type: 'string', value: 'N', description: 'at most N records (default 100)' },
  },
  examples: ['pds bridge deliveries ep_5f0c3a9e1b2d4c6a8e9f0a1b --status failed --stage prod'],
  async run(context) {
    const { flags, command } = context;
    const status = stringFlag(flags, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
      throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`, command);
    }
    const limit = integerFlag(flags, 'limit', command, { min: 1, max: 10_000 }) ?? 100;
    const id = context.args[0] as string;
    const records = await withWebhooks(context, async (webhooks, connection) => {
      // An unknown endpoint is an error, as for `webhooks show`, not an empty log.
      await webhooks.registry.require(id);
      return listDeliveries(connection.store, id, {
        limit,
        ...(status ? { status: status as DeliveryStatus } : {}),
      });
    });
    return {
      data: records,
      text: () =>
        records.length === 0 ? '(no deliveries recorded)' : records.flatMap(deliveryLines).join('\n'),
    };
  },
};

/** The webhook commands of `pds bridge`. */
export const webhookCommands: Command[] = [
  create,
  list,
  show,
  update,
  disable,
  enable,
  rotate,
  remove,
  replay,
  publicKey,
  deliveries,
];
