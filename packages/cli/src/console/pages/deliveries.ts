/**
 * Deliveries: which event destinations are failing? Webhook endpoints with their health, breaker,
 * lane, last success, failure rate and lag, from the endpoint registry and the delivery log
 * (packages/bridge/src/webhooks, as `pds bridge webhooks` and `pds bridge deliveries` read them); one
 * endpoint's attempts with the answers it gave (escaped: they are whatever the endpoint sent); what the
 * EventBridge bus and the SQS event queues did not accept in the last day, as the functions recorded it
 * (packages/bridge/src/events/publish-failures.ts, as `pds bridge status` reads it); the event queues'
 * dead-letter queues.
 */

import { recentPublishFailures } from '@pds-bridge/bridge/events';
import {
  type DeliveryRecord,
  type EndpointRecord,
  listDeliveries,
  type WebhookDelivery,
} from '@pds-bridge/bridge/webhooks';
import { unhealthy } from '@pds-bridge/bridge/webhooks/lanes.ts';
import { ConsoleInputError } from '../../errors.ts';
import { queueName } from '../../ops/target.ts';
import { barChart } from '../charts.ts';
import { type Html, html, query } from '../html.ts';
import { ago, duration, figure, table, tiles } from '../layout.ts';
import type { PageContext } from '../page.ts';

/** Delivery records read per endpoint for its figures (the most recent the log lists first). */
export const DELIVERIES_READ = 50;

/** The event queues consumers read, whose dead-letter queues hold what their consumers could not take. */
const EVENT_QUEUE_ROLES = ['events', 'messaging-asset-events', 'supplier-review-events'] as const;

/** An endpoint's figures over its recent delivery records. */
export interface EndpointHealth {
  readonly endpoint: EndpointRecord;
  readonly breaker: 'open' | 'closed' | 'half-open';
  readonly lane: 'main' | 'slow';
  readonly attempts: number;
  readonly failedAttempts: number;
  readonly lastSuccessAt?: string;
  /** Age of the oldest delivery still pending, ms. */
  readonly lagMs?: number;
  readonly records: readonly DeliveryRecord[];
}

function succeeded(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

/** The figures of one endpoint from its records (pure). */
export function endpointHealth(
  endpoint: EndpointRecord,
  records: readonly DeliveryRecord[],
  now: number,
): EndpointHealth {
  const attempts = records.flatMap((record) => record.attempts);
  const successes = attempts.filter((attempt) => succeeded(attempt.status)).map((attempt) => attempt.at);
  const pendingSince = records
    .filter((record) => record.status === 'pending')
    .map((record) => Date.parse(record.attempts[0]?.at ?? record.updatedAt))
    .filter((at) => !Number.isNaN(at));
  const open = endpoint.breakerOpenUntil !== undefined && Date.parse(endpoint.breakerOpenUntil) > now;
  const lastSuccessAt = successes.sort().at(-1);
  return {
    endpoint,
    breaker: open ? 'open' : endpoint.failures > 0 ? 'half-open' : 'closed',
    lane: unhealthy(endpoint) ? 'slow' : 'main',
    attempts: attempts.length,
    failedAttempts: attempts.length - successes.length,
    ...(lastSuccessAt ? { lastSuccessAt } : {}),
    ...(pendingSince.length > 0 ? { lagMs: now - Math.min(...pendingSince) } : {}),
    records,
  };
}

async function webhooksOf(context: PageContext): Promise<WebhookDelivery | string> {
  try {
    return await context.connection.webhooks({ policy: 'any' });
  } catch (error) {
    return (error as Error).message;
  }
}

function rate(health: EndpointHealth): string {
  return health.attempts === 0 ? '—' : `${Math.round((100 * health.failedAttempts) / health.attempts)} %`;
}

export async function deliveriesPage(context: PageContext): Promise<Html> {
  const webhooks = await webhooksOf(context);
  const endpoints = typeof webhooks === 'string' ? [] : await webhooks.registry.list();
  const healths = await Promise.all(
    endpoints.map(async (endpoint) =>
      endpointHealth(
        endpoint,
        await listDeliveries(context.connection.store, endpoint.id, { limit: DELIVERIES_READ }),
        context.now,
      ),
    ),
  );
  const failing = healths.filter(
    (health) => health.endpoint.failures > 0 || health.endpoint.status === 'disabled',
  );
  return html`${tiles([
    { label: 'webhook endpoints', value: healths.length },
    { label: 'failing or disabled', value: failing.length, tone: failing.length > 0 ? 'bad' : 'good' },
    { label: 'breakers open', value: healths.filter((health) => health.breaker === 'open').length },
  ])}
<h2>Webhook endpoints</h2>
${typeof webhooks === 'string' ? html`<p class="notice">${webhooks}</p>` : ''}
${healths.length > 0 ? failureFigure(healths) : ''}
${table(
  `Endpoints, each over its ${DELIVERIES_READ} most recent deliveries`,
  ['endpoint', 'health', 'breaker', 'lane', 'last success', 'failed attempts', 'oldest pending'],
  healths.map((health) => [
    html`<a href="/deliveries/endpoint${query({ id: health.endpoint.id })}">${health.endpoint.url}</a>${health.endpoint.description ? html`<br>${health.endpoint.description}` : ''}`,
    health.endpoint.status === 'disabled'
      ? html`<span class="bad">disabled</span>: ${health.endpoint.disabledReason ?? ''}`
      : health.endpoint.failures > 0
        ? html`<span class="bad">failing</span> (${health.endpoint.failures} in a row since ${health.endpoint.failingSince ?? '?'})`
        : health.endpoint.slowSince !== undefined
          ? html`<span class="bad">slow</span> (answers past the main lane's budget${health.endpoint.slowAfterMs !== undefined ? ` of ${health.endpoint.slowAfterMs} ms` : ''} since ${health.endpoint.slowSince})`
          : html`<span class="good">healthy</span>`,
    html`${health.breaker}${health.endpoint.breakerOpenUntil && health.breaker === 'open' ? ` until ${health.endpoint.breakerOpenUntil}` : ''}`,
    html`${health.lane}`,
    html`${ago(health.lastSuccessAt, context.now)}`,
    html`${rate(health)} of ${health.attempts}`,
    html`${health.lagMs === undefined ? '—' : duration(health.lagMs)}`,
  ]),
  'No webhook endpoint is registered (pds bridge webhooks add URL).',
)}
<h2>EventBridge and SQS destinations</h2>
${await destinationFailures(context)}
<h2>Event queues</h2>
${await eventQueues(context)}`;
}

/** Hours of destination failures the page shows. */
const FAILURE_WINDOW_HOURS = 24;

/** What each event destination did not accept in the window: counts, and its latest failures with their reasons (escaped). */
async function destinationFailures(context: PageContext): Promise<Html> {
  const since = context.now - FAILURE_WINDOW_HOURS * 3_600_000;
  const destinations = Object.entries(
    await recentPublishFailures(context.connection.store, since, context.now),
  ).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (destinations.length === 0) {
    return html`<p class="empty">Every event published in the last ${FAILURE_WINDOW_HOURS} hours was accepted by its queue or bus.</p>`;
  }
  return html`${table(
    `Destinations that did not accept events in the last ${FAILURE_WINDOW_HOURS} hours`,
    ['destination', 'failed events', 'failed publishes', 'last failure'],
    destinations.map(([destination, failures]) => [
      html`<code>${destination}</code>`,
      html`<span class="bad">${failures.failedEvents}</span>`,
      html`${failures.failedPublishes}`,
      html`${ago(failures.lastAt, context.now)}`,
    ]),
    '',
  )}
${table(
  'Their latest failures, newest first',
  ['at', 'destination', 'event', 'code', 'reason'],
  destinations
    .flatMap(([destination, failures]) => failures.recent.map((failure) => ({ destination, failure })))
    .sort((a, b) => b.failure.at.localeCompare(a.failure.at))
    .map(({ destination, failure }) => [
      html`${failure.at}`,
      html`<code>${destination}</code>`,
      html`${failure.type}<br><code>${failure.eventId}</code>`,
      html`${failure.code}`,
      html`${failure.reason}`,
    ]),
  '',
)}
<p>A failed publish is not dropped: the function that made it sends the events again (its checkpoint or record does not move past them) or ends in its dead-letter queue. <code>pds bridge status${context.stageFlag}</code> prints the same counts.</p>`;
}

function failureFigure(healths: readonly EndpointHealth[]): Html {
  const bars = healths.map((health) => ({
    label: health.endpoint.url.replace(/^https?:\/\//, '').slice(0, 36),
    value: health.attempts === 0 ? 0 : (100 * health.failedAttempts) / health.attempts,
  }));
  return figure(
    barChart({
      title: 'Failed attempts per endpoint (%)',
      description: bars.map((bar) => `${bar.label}: ${Math.round(bar.value)} %`).join('; '),
      bars,
      unit: ' %',
      formatValue: (value) => String(Math.round(value)),
    }),
    'Failed attempts per endpoint',
    ['endpoint', 'failed attempts'],
    healths.map((health) => [html`${health.endpoint.url}`, html`${rate(health)} of ${health.attempts}`]),
  );
}

async function eventQueues(context: PageContext): Promise<Html> {
  const { queues, stage } = context.connection;
  const rows = await Promise.all(
    EVENT_QUEUE_ROLES.map(async (role) => {
      const [queue, dead] = await Promise.all([
        queues.depth(queueName(stage, role)),
        queues.depth(queueName(stage, role, { deadLetter: true })),
      ]);
      return { role, queue, dead };
    }),
  );
  return table(
    'SQS event queues and what their consumers could not take (their dead-letter queues)',
    ['queue', 'waiting', 'in dead-letter queue'],
    rows
      .filter((row) => row.queue !== undefined)
      .map((row) => [
        html`<code>${queueName(stage, row.role)}</code>`,
        html`${row.queue?.visible ?? 0}`,
        html`<span class="${(row.dead?.visible ?? 0) > 0 ? 'bad' : ''}">${row.dead ? row.dead.visible : 'no DLQ'}</span>`,
      ]),
    'No event queue found for this stage.',
  );
}

/** One endpoint: its record and every recent attempt with the answer it gave. */
export async function endpointPage(context: PageContext): Promise<Html> {
  const id = context.url.searchParams.get('id') ?? '';
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) {
    throw new ConsoleInputError(
      'Name the endpoint: /deliveries/endpoint?id=ENDPOINT_ID (follow a link of the Deliveries page).',
    );
  }
  const webhooks = await webhooksOf(context);
  if (typeof webhooks === 'string') return html`<p class="notice">${webhooks}</p>`;
  const endpoint = await webhooks.registry.get(id);
  if (!endpoint) return html`<p class="error">There is no webhook endpoint <code>${id}</code>.</p>`;
  const records = await listDeliveries(context.connection.store, id, { limit: DELIVERIES_READ });
  const health = endpointHealth(endpoint, records, context.now);
  const attempts = records
    .flatMap((record) => record.attempts.map((attempt) => ({ record, attempt })))
    .sort((a, b) => b.attempt.at.localeCompare(a.attempt.at));
  return html`<p>Endpoint <code>${endpoint.id}</code>: <code>${endpoint.url}</code> — ${endpoint.status}, breaker ${health.breaker}, lane ${health.lane}, ${rate(health)} of ${health.attempts} attempts failed.</p>
${context.actions ? html`<p><a href="/deliveries/replay${query({ id })}">Replay its failed deliveries…</a></p>` : ''}
${table(
  'Attempts, newest first',
  ['at', 'event', 'delivery', 'attempt', 'answer status', 'latency', 'answer'],
  attempts.map(({ record, attempt }) => [
    html`${attempt.at}`,
    html`${record.eventType}<br><code>${record.eventId}</code>`,
    html`<span class="${record.status === 'delivered' ? 'good' : record.status === 'pending' ? '' : 'bad'}">${record.status}</span>${record.reason ? html`: ${record.reason}` : ''}`,
    html`${attempt.attempt}${attempt.replay ? ' (replay)' : ''}`,
    html`<span class="${succeeded(attempt.status) ? 'good' : 'bad'}">${attempt.status ?? 'no answer'}</span>`,
    html`${attempt.latencyMs} ms`,
    html`<code>${attempt.response}</code>`,
  ]),
  'No delivery recorded for this endpoint yet.',
)}
<p><code>pds bridge deliveries ${endpoint.id}${context.stageFlag}</code> prints the same.</p>`;
}
