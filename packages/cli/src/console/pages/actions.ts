/**
 * The console's actions, each in two steps: a page that shows exactly what would happen (the CLI's
 * dry run: `pds bridge redrive QUEUE`, the failed deliveries a replay would send again) and, only when
 * the console allows actions, a form whose button does it through the same code as the CLI's
 * `--apply` (packages/cli/src/ops/redrive.ts, WebhookDelivery.replay).
 */
import { listDeliveries } from '@pds-bridge/bridge/webhooks';
import { ConsoleInputError } from '../../errors.ts';
import { applyRedrive, planRedrive } from '../../ops/redrive.ts';
import { redrivePair } from '../../ops/target.ts';
import { type Html, html, query } from '../html.ts';
import { table } from '../layout.ts';
import type { PageContext } from '../page.ts';

/** Messages a second a redrive moves, as `pds bridge redrive --apply` by default. */
const REDRIVE_RATE = 10;

function pairOf(context: PageContext, queue: string | null) {
  const pair = queue ? redrivePair(context.connection.stage, queue) : undefined;
  if (!pair)
    throw new ConsoleInputError(
      'Name a queue of the bridge: /pipeline/redrive?queue=ROLE (follow a link of the Pipeline page).',
    );
  return pair;
}

/** The confirmation: a button that posts the action, and a Cancel link back to `cancel` that changes nothing. */
function confirmForm(
  context: PageContext,
  action: string,
  fields: Record<string, string>,
  label: string,
  cancel: string,
): Html {
  if (!context.actions) {
    return html`<p class="notice">This console is read-only. To do it, run the command below, or start the console with <code>--allow-actions</code>.</p>`;
  }
  return html`<form method="post" action="${action}">
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<input type="hidden" name="form-token" value="${context.formToken}">
<button type="submit" class="danger">${label}</button> <a href="${cancel}">Cancel</a>
</form>`;
}

export async function redrivePlanPage(context: PageContext): Promise<Html> {
  const pair = pairOf(context, context.url.searchParams.get('queue'));
  const plan = await planRedrive(context.connection.queues, context.connection.store, pair, { sample: 50 });
  return html`<p><code>${plan.deadLetter}</code> holds ${plan.count} messages${plan.oldest ? `, the oldest sent ${plan.oldest}` : ''}. ${plan.sampled} were looked at (they stay in the queue).</p>
${table(
  'Why they failed',
  ['reason', 'messages', 'example'],
  plan.reasons.map((reason) => [
    html`${reason.reason}`,
    html`${reason.count}`,
    html`<code>${reason.example}</code>`,
  ]),
  'No message to look at.',
)}
${
  plan.source && plan.count > 0
    ? html`<h2>Move them back</h2><p>Moves every message of <code>${plan.deadLetter}</code> back to <code>${plan.source}</code>, at most ${REDRIVE_RATE} a second. Fix the cause first, or they come back.</p>
${confirmForm(context, '/pipeline/redrive', { queue: pair.role }, `Move ${plan.count} messages back to ${plan.source}`, '/pipeline')}`
    : ''
}
<p><code>pds bridge redrive ${pair.role}${context.stageFlag}${plan.source ? ' --apply' : ''}</code> does the same.</p>`;
}

export async function redriveApply(context: PageContext, form: URLSearchParams): Promise<Html> {
  const pair = pairOf(context, form.get('queue'));
  const moved = await applyRedrive(context.connection.queues, pair, { perSecond: REDRIVE_RATE });
  return html`<p class="notice">${
    moved.method === 'move-task'
      ? `SQS started a message move task (${moved.taskHandle}) from ${pair.deadLetter} to ${pair.source}.`
      : `${moved.moved} messages moved from ${pair.deadLetter} to ${pair.source}.`
  }</p><p><a href="/pipeline">Back to the pipeline</a></p>`;
}

function endpointIdOf(value: string | null): string {
  if (!value || !/^[A-Za-z0-9_-]{1,100}$/.test(value)) {
    throw new ConsoleInputError(
      'Name the endpoint: /deliveries/replay?id=ENDPOINT_ID (follow a link of the endpoint page).',
    );
  }
  return value;
}

export async function replayPlanPage(context: PageContext): Promise<Html> {
  const id = endpointIdOf(context.url.searchParams.get('id'));
  const failed = await listDeliveries(context.connection.store, id, { status: 'failed', limit: 100 });
  return html`<p>${failed.length} failed deliveries to endpoint <code>${id}</code> (the first 100 listed), each to be queued again with its original event id.</p>
${table(
  'Failed deliveries',
  ['event', 'type', 'reason', 'last attempt'],
  failed.map((record) => [
    html`<code>${record.eventId}</code>`,
    html`${record.eventType}`,
    html`${record.reason ?? ''}`,
    html`${record.attempts.at(-1)?.at ?? '—'}`,
  ]),
  'Nothing to replay.',
)}
${failed.length > 0 ? confirmForm(context, '/deliveries/replay', { id }, `Replay ${failed.length} failed deliveries`, `/deliveries/endpoint${query({ id })}`) : ''}
<p><a href="/deliveries/endpoint${query({ id })}">Back to the endpoint</a></p>`;
}

export async function replayApply(context: PageContext, form: URLSearchParams): Promise<Html> {
  const id = endpointIdOf(form.get('id'));
  // The same failed deliveries the plan page listed, replayed by id as `pds bridge webhooks replay
  // --event-id` does (the endpoint's filters honoured, deliveries done since then left out).
  const failed = await listDeliveries(context.connection.store, id, { status: 'failed', limit: 100 });
  const webhooks = await context.connection.webhooks({ policy: 'any' });
  const { queued, skipped } =
    failed.length > 0
      ? await webhooks.replay(id, { eventIds: failed.map((record) => record.eventId), failedOnly: true })
      : { queued: [], skipped: [] };
  return html`<p class="notice">${queued.length} deliveries queued again for endpoint <code>${id}</code>${skipped.length > 0 ? `, ${skipped.length} skipped (the endpoint no longer takes them)` : ''}.</p>
<p><a href="/deliveries/endpoint${query({ id })}">Back to the endpoint</a></p>`;
}
