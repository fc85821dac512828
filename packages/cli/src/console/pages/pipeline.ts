/**
 * Pipeline: is anything waiting, stuck or behind? The same facts as `pds bridge status`
 * (packages/cli/src/ops/status.ts, read the same way): each queue's depth and the age of its oldest
 * message, and its dead-letter queue's (the ages from the connection's source, labelled: CloudWatch
 * for a deployed stage, "not available locally" otherwise), the pollers' last runs, the checkpoint's
 * age, the scheduled audit's last report, ingests in flight. A DLQ with messages offers the
 * redrive dry run (packages/cli/src/ops/redrive.ts), and, when the console allows actions, the move back.
 */
import { ConsoleInputError } from '../../errors.ts';
import type { QueueAge } from '../../ops/ports.ts';
import { type BridgeStatus, bridgeStatus } from '../../ops/status.ts';
import { barChart } from '../charts.ts';
import { type Html, html } from '../html.ts';
import { ago, duration, figure, table, tiles } from '../layout.ts';
import type { PageContext } from '../page.ts';

export async function pipelinePage(context: PageContext): Promise<Html> {
  const { connection } = context;
  const hours = hoursOf(context.url);
  const status = await bridgeStatus(connection.store, connection.queues, {
    stage: connection.stage,
    stateBucket: connection.stateBucket,
    now: context.now,
    windowMs: hours * 3_600_000,
    queueAges: connection.queueAges,
  });
  return html`${summary(status)}
<h2>Queues</h2>
${queueFigure(status)}
${queueTable(status)}
<p class="source">${status.queueAges.source}${status.queueAges.error ? html`: <span class="bad">could not be read</span> (${status.queueAges.error})` : ''}</p>
<h2>Pollers</h2>
${pollerTable(status, context.now)}
<h2>Audit of the messaging assets</h2>
${auditSection(status, context.now)}
<h2>Ingests in flight</h2>
${ingestTable(status, context.now)}
<h2>Ingests finished in the last ${hours} hours</h2>
<form class="filters" method="get" aria-label="Window"><div><label for="hours">Hours</label><input type="text" inputmode="numeric" id="hours" name="hours" value="${hours}" maxlength="3"></div><button type="submit">Show</button></form>
${failedTable(status, context.now)}
<p>State bucket <code>${status.stateBucket}</code>, read at ${status.at}; <code>pds bridge status${context.stageFlag}</code> prints the same.</p>`;
}

/** Hours of finished ingests shown by default, and at most (`pds bridge status --since`). */
const DEFAULT_HOURS = 24;
const MAX_HOURS = 720;

function hoursOf(url: URL): number {
  const text = url.searchParams.get('hours');
  const hours = text === null || text === '' ? DEFAULT_HOURS : Number(text);
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_HOURS) {
    throw new ConsoleInputError(
      `The window (hours=…) must be a whole number of hours from 1 to ${MAX_HOURS}.`,
    );
  }
  return hours;
}

function failedTable(status: BridgeStatus, now: number): Html {
  const { window } = status.ingests;
  return html`<p>${window.finished} finished between ${window.since} and ${window.until}; <span class="${window.failedCount > 0 ? 'bad' : ''}">${window.failedCount} failed</span>${window.failedCount > window.failed.length ? ` (the latest ${window.failed.length} below)` : ''}.</p>
${table(
  'Ingests that failed in the window, latest first',
  ['object', 'failed', 'code', 'reason'],
  window.failed.map((failed) => [
    html`<code>s3://${failed.bucket}/${failed.key}</code>`,
    html`${ago(failed.updatedAt, now)}`,
    html`${failed.code ?? '—'}`,
    html`${failed.reason ?? ''}`,
  ]),
  'No ingest failed in the window.',
)}`;
}

function deadLettered(status: BridgeStatus): number {
  return status.queues.reduce((sum, queue) => sum + (queue.deadLetter?.visible ?? 0), 0);
}

function summary(status: BridgeStatus): Html {
  const waiting = status.queues.reduce(
    (sum, queue) => sum + (queue.visible ?? 0) + (queue.inFlight ?? 0) + (queue.delayed ?? 0),
    0,
  );
  const failing = status.pollers.filter((poller) => poller.lastRun && !poller.lastRun.ok).length;
  const stalled = status.ingests.inFlight.filter((ingest) => ingest.claim === 'stalled').length;
  const dead = deadLettered(status);
  return tiles([
    { label: 'messages waiting, in flight or delayed', value: waiting },
    { label: 'in dead-letter queues', value: dead, tone: dead > 0 ? 'bad' : 'good' },
    { label: 'pollers whose last run failed', value: failing, tone: failing > 0 ? 'bad' : 'good' },
    { label: 'ingests in flight', value: status.ingests.inFlight.length },
    {
      label: `ingests failed in ${Math.round((Date.parse(status.ingests.window.until) - Date.parse(status.ingests.window.since)) / 3_600_000)} h`,
      value: status.ingests.window.failedCount,
      tone: status.ingests.window.failedCount > 0 ? 'bad' : 'good',
    },
    { label: 'of them stalled', value: stalled, tone: stalled > 0 ? 'bad' : 'good' },
    {
      label: 'since the checkpoint moved',
      value: status.checkpoint ? duration(status.checkpoint.ageMs) : 'none yet',
    },
  ]);
}

function queueFigure(status: BridgeStatus): Html {
  const existing = status.queues.filter((queue) => queue.exists);
  const bars = existing.map((queue) => ({
    label: queue.role,
    value: (queue.visible ?? 0) + (queue.inFlight ?? 0) + (queue.delayed ?? 0),
  }));
  const total = bars.reduce((sum, bar) => sum + bar.value, 0);
  const chart = barChart({
    title: 'Messages per queue (waiting, in flight and delayed)',
    description: `${total} messages across ${bars.length} queues; ${deadLettered(status)} in their dead-letter queues.`,
    bars,
    formatValue: (value) => String(value),
  });
  return figure(
    chart,
    'Messages per queue',
    ['queue', 'messages'],
    bars.map((bar) => [html`${bar.label}`, html`${bar.value}`]),
  );
}

/** An age cell: the figure, "no recent figure" from a source that has none for the queue, or "n/a" where no source can tell. */
function ageCell(status: BridgeStatus, exists: boolean | undefined, age: QueueAge | undefined): Html {
  if (!exists) return html`—`;
  if (!status.queueAges.available) return html`<abbr title="${status.queueAges.source}">n/a</abbr>`;
  return age
    ? html`${duration(age.seconds * 1000)}`
    : html`<abbr title="no data point in the window">no recent figure</abbr>`;
}

function queueTable(status: BridgeStatus): Html {
  return table(
    'Each queue and its dead-letter queue',
    [
      'queue',
      'waiting',
      'in flight',
      'delayed',
      'oldest message',
      'dead-letter queue',
      'in DLQ',
      'oldest in DLQ',
      '',
    ],
    status.queues.map((queue) => {
      const dead = queue.deadLetter?.visible ?? 0;
      return [
        html`<code>${queue.name}</code>`,
        html`${queue.exists ? queue.visible : 'no such queue'}`,
        html`${queue.inFlight ?? ''}`,
        html`${queue.delayed ?? ''}`,
        ageCell(status, queue.exists, queue.age),
        html`${queue.deadLetter ? html`<code>${queue.deadLetter.name}</code>` : '—'}`,
        html`<span class="${dead > 0 ? 'bad' : ''}">${queue.deadLetter?.exists ? dead : '—'}</span>`,
        ageCell(status, queue.deadLetter?.exists, queue.deadLetter?.age),
        dead > 0
          ? html`<a href="/pipeline/redrive?queue=${encodeURIComponent(queue.role)}">why, and redrive…</a>`
          : html``,
      ];
    }),
    'No queues found for this stage.',
  );
}

function pollerTable(status: BridgeStatus, now: number): Html {
  const checkpoint = status.checkpoint;
  return html`${table(
    'The pollers',
    ['poller', 'running', 'last run', 'outcome', 'last success'],
    status.pollers.map((poller) => [
      html`${poller.name}`,
      html`${poller.running ? `since ${poller.runningSince ?? '?'}` : 'no'}`,
      html`${poller.lastRun ? ago(poller.lastRun.endedAt, now) : 'never'}`,
      poller.lastRun
        ? poller.lastRun.ok
          ? html`<span class="good">ok</span>`
          : html`<span class="bad">failed</span>: ${poller.lastRun.error ?? ''}`
        : html`—`,
      html`${ago(poller.lastSuccessAt, now)}`,
    ]),
    'No poller has run yet.',
  )}
${
  checkpoint
    ? html`<p>Messaging-asset checkpoint: ${checkpoint.emitted} ids emitted (highest ${checkpoint.highestId ?? 'none'}), ${checkpoint.retry} waiting for a retry, listing paging ${checkpoint.paging}; moved ${ago(checkpoint.updatedAt, now)}.</p>`
    : html`<p class="empty">No messaging-asset checkpoint yet: the poller has not recorded a run.</p>`
}
<p>Watch list: ${status.watchList.keys} keys.</p>`;
}

function ingestTable(status: BridgeStatus, now: number): Html {
  return table(
    'Ingests not finished',
    ['object', 'status', 'claim', 'attempts', 'updated', 'last error'],
    status.ingests.inFlight.map((ingest) => [
      html`<code>s3://${ingest.bucket}/${ingest.key}</code>`,
      html`${ingest.status}`,
      html`<span class="${ingest.claim === 'stalled' ? 'bad' : ''}">${ingest.claim}</span>`,
      html`${ingest.attempts}`,
      html`${ago(ingest.updatedAt, now)}`,
      html`${ingest.lastError ?? ''}`,
    ]),
    'No ingest is in flight.',
  );
}

/** The scheduled audit: when it last ran and how, what the last completed one found, or that it never ran. */
function auditSection(status: BridgeStatus, now: number): Html {
  const audit = status.audit;
  if (!audit) {
    return html`<p class="empty">The scheduled audit never ran: no report is recorded in the state bucket (a deployed stage runs it daily; the local stack does not schedule it).</p>`;
  }
  const run = audit.lastRun;
  const report = audit.lastReport;
  const found = report
    ? table(
        `What the audit that completed ${report.at} found`,
        [
          'listed',
          'recorded as emitted',
          'gaps (listed, never emitted)',
          'pending',
          'strays (no longer listed)',
          'gaps emitted',
        ],
        [
          [
            html`${report.listed}`,
            html`${report.recorded}`,
            html`<span class="${report.gaps > 0 ? 'bad' : 'good'}">${report.gaps}</span>${report.gapIds.length > 0 ? html`: ${report.gapIds.join(', ')}${report.gaps > report.gapIds.length ? ', …' : ''}` : ''}`,
            html`${report.pending}`,
            html`${report.strays}${report.strayIds.length > 0 ? html`: ${report.strayIds.join(', ')}${report.strays > report.strayIds.length ? ', …' : ''}` : ''}`,
            html`${report.applied ? report.gapsEmitted : 'not applied'}`,
          ],
        ],
        '',
      )
    : html`<p class="empty">No audit has completed yet.</p>`;
  return html`<p>Last run ${ago(run.endedAt, now)}: ${run.ok ? html`<span class="good">ok</span>` : html`<span class="bad">failed</span>: ${run.error ?? ''}`}.</p>
${found}`;
}
