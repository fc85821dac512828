/**
 * Recipients: how long does each recipient take, and who never answers? From the per-recipient daily
 * aggregates the ledger keeps as entries change (packages/bridge/src/confirmations/recipient-stats.ts),
 * read as `pds bridge recipients` and GET /confirmations/recipients read them
 * (packages/cli/src/ops/recipients.ts): a page costs one listing and a read per recipient and day,
 * whatever the ledger's size.
 */
import { ConsoleInputError } from '../../errors.ts';
import { type RecipientFigures, recipientSeries, recipientsOverview } from '../../ops/recipients.ts';
import { barChart, lineChart } from '../charts.ts';
import { type Html, html, query } from '../html.ts';
import { duration, figure, table, tiles } from '../layout.ts';
import type { PageContext } from '../page.ts';

/** Days shown by default, and at most (the API's `days`). */
const DEFAULT_DAYS = 7;
const MAX_DAYS = 90;
/** Recipients on the overview, at most. */
export const RECIPIENTS_SHOWN = 50;

function daysOf(url: URL): number {
  const text = url.searchParams.get('days');
  const days = text === null || text === '' ? DEFAULT_DAYS : Number(text);
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) {
    throw new ConsoleInputError(`The window (days=…) must be a whole number of days from 1 to ${MAX_DAYS}.`);
  }
  return days;
}

function share(figures: RecipientFigures): string {
  return figures.unansweredShare === null ? '—' : `${Math.round(figures.unansweredShare * 100)} %`;
}

function ms(value: number | null): string {
  return value === null ? '—' : duration(value);
}

function states(figures: RecipientFigures): string {
  const entries = Object.entries(figures.transitions).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '—' : entries.map(([state, count]) => `${state} ${count}`).join(', ');
}

function windowForm(days: number, hidden: Record<string, string> = {}): Html {
  return html`<form class="filters" method="get" aria-label="Window">
${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div><label for="days">Days (UTC, up to today)</label><input type="text" inputmode="numeric" id="days" name="days" value="${days}" maxlength="2"></div>
<button type="submit">Show</button></form>`;
}

export async function recipientsPage(context: PageContext): Promise<Html> {
  const days = daysOf(context.url);
  const answer = await recipientsOverview(context.connection.store, {
    days,
    limit: RECIPIENTS_SHOWN,
    now: new Date(context.now),
  });
  const rows = answer.recipients;
  const label = (row: (typeof rows)[number]) => `${row.channelId} · ${row.recipient}`;
  const published = rows.reduce((sum, row) => sum + row.totals.published, 0);
  const answered = rows.reduce((sum, row) => sum + row.totals.answered, 0);
  return html`${windowForm(days)}
${tiles([
  { label: 'recipients', value: rows.length },
  { label: `publications to them in ${days} days`, value: published },
  { label: 'answered with a CIC', value: answered },
  {
    label: 'never answered',
    value: published === 0 ? '—' : `${Math.round((100 * Math.max(0, published - answered)) / published)} %`,
    tone: published > answered ? 'bad' : 'good',
  },
])}
${
  rows.length > 0
    ? figure(
        barChart({
          title: `Share of publications never answered, per recipient (last ${days} days)`,
          description: rows.map((row) => `${label(row)}: ${share(row.totals)}`).join('; '),
          bars: rows.map((row) => ({ label: label(row), value: 100 * (row.totals.unansweredShare ?? 0) })),
          unit: ' %',
          formatValue: (value) => String(Math.round(value)),
        }),
        'Share never answered',
        ['recipient', 'never answered'],
        rows.map((row) => [html`${label(row)}`, html`${share(row.totals)}`]),
      )
    : ''
}
${table(
  `Recipients over the last ${days} days${answer.truncated ? ` (the first ${RECIPIENTS_SHOWN})` : ''}`,
  [
    'recipient',
    'GLNs',
    'published',
    'answered',
    'never answered',
    'synchronised',
    'p50 to SYNCHRONISED',
    'p95',
    'transitions by state',
  ],
  rows.map((row) => [
    html`<a href="/recipients/one${query({ channel: row.channelId, recipient: row.recipient, days })}">${label(row)}</a>`,
    html`${row.recipientGlns.join(', ') || '—'}`,
    html`${row.totals.published}`,
    html`${row.totals.answered}`,
    html`${share(row.totals)}`,
    html`${row.totals.synchronised.count}`,
    html`${ms(row.totals.synchronised.p50Ms)}`,
    html`${ms(row.totals.synchronised.p95Ms)}`,
    html`${states(row.totals)}`,
  ]),
  'No recipient has had a transition counted yet (the aggregates start with the first publication).',
)}
<p><code>pds bridge recipients --days ${days}${context.stageFlag}</code> prints the same.</p>`;
}

/** The unit a chart of durations up to `maxMs` reads best in. */
function unitFor(maxMs: number): { name: string; ms: number } {
  if (maxMs < 120_000) return { name: 'seconds', ms: 1000 };
  if (maxMs < 120 * 60_000) return { name: 'minutes', ms: 60_000 };
  if (maxMs < 48 * 3_600_000) return { name: 'hours', ms: 3_600_000 };
  return { name: 'days', ms: 86_400_000 };
}

/** One recipient: p50/p95 to SYNCHRONISED per day, the distribution over the window, counts per day. */
export async function recipientPage(context: PageContext): Promise<Html> {
  const days = daysOf(context.url);
  const channel = context.url.searchParams.get('channel') ?? '';
  const recipient = context.url.searchParams.get('recipient') ?? '';
  if (!channel || !recipient || channel.length > 200 || recipient.length > 200) {
    throw new ConsoleInputError(
      'Name the recipient: /recipients/one?channel=CHANNEL&recipient=GLN (follow a link of the Recipients page).',
    );
  }
  const answer = await recipientSeries(context.connection.store, channel, recipient, {
    days,
    now: new Date(context.now),
  });
  if (!answer.record || !answer.totals) {
    return html`<p class="error">The ledger never counted a transition of recipient <code>${recipient}</code> on channel <code>${channel}</code>.</p>`;
  }
  const totals = answer.totals;
  const dayX = (day: string) => Date.parse(`${day}T00:00:00Z`);
  const unit = unitFor(Math.max(0, ...answer.days.map((day) => day.synchronised.p95Ms ?? 0)));
  const points = (pick: (figures: RecipientFigures) => number | null) =>
    answer.days.flatMap((day) => {
      const value = pick(day);
      return value === null ? [] : [{ x: dayX(day.day), y: value / unit.ms }];
    });
  const p50 = points((day) => day.synchronised.p50Ms);
  const p95 = points((day) => day.synchronised.p95Ms);
  const bounds = totals.synchronised.bucketBoundsMs;
  const buckets = totals.synchronised.buckets.map((count, at) => ({
    label:
      at < bounds.length ? `≤ ${duration(bounds[at] as number)}` : `> ${duration(bounds.at(-1) as number)}`,
    value: count,
  }));
  return html`${windowForm(days, { channel, recipient })}
<p>Recipient <code>${recipient}</code> on channel <code>${channel}</code>${answer.record.recipientGlns.length > 0 ? `, GLN ${answer.record.recipientGlns.join(', ')}` : ''}; first counted ${answer.record.firstDay}, last ${answer.record.lastDay}.</p>
${tiles([
  { label: 'published', value: totals.published },
  { label: 'answered with a CIC', value: totals.answered },
  { label: 'never answered', value: share(totals), tone: (totals.unansweredShare ?? 0) > 0 ? 'bad' : 'good' },
  { label: 'p50 to SYNCHRONISED', value: ms(totals.synchronised.p50Ms) },
  { label: 'p95 to SYNCHRONISED', value: ms(totals.synchronised.p95Ms) },
])}
<h2>Time from publication to SYNCHRONISED</h2>
${
  p50.length > 0
    ? figure(
        lineChart({
          title: `Publication to SYNCHRONISED, per day (${unit.name})`,
          description: `p50 and p95 on each day with a synchronisation, over the last ${days} days; over the window p50 ${ms(totals.synchronised.p50Ms)}, p95 ${ms(totals.synchronised.p95Ms)}.`,
          xLabel: 'day (UTC)',
          yLabel: unit.name,
          xDomain: [dayX(answer.days[0]?.day ?? ''), dayX(answer.days.at(-1)?.day ?? '')],
          series: [
            { name: 'p50', points: p50 },
            { name: 'p95', points: p95 },
          ],
          formatX: (x) => new Date(x).toISOString().slice(5, 10),
          formatY: (y) => String(Number(y.toPrecision(3))),
        }),
        'Per day',
        ['day', 'synchronised', 'p50', 'p95'],
        answer.days.map((day) => [
          html`${day.day}`,
          html`${day.synchronised.count}`,
          html`${ms(day.synchronised.p50Ms)}`,
          html`${ms(day.synchronised.p95Ms)}`,
        ]),
      )
    : html`<p class="empty">No synchronisation in the last ${days} days.</p>`
}
${
  totals.synchronised.count > 0
    ? figure(
        barChart({
          title: 'How long synchronisations took (count per range)',
          description: buckets
            .filter((bucket) => bucket.value > 0)
            .map((bucket) => `${bucket.label}: ${bucket.value}`)
            .join('; '),
          bars: buckets.filter((bucket) => bucket.value > 0),
          formatValue: (value) => String(value),
        }),
        'Distribution',
        ['time to SYNCHRONISED', 'synchronisations'],
        buckets.map((bucket) => [html`${bucket.label}`, html`${bucket.value}`]),
      )
    : ''
}
<h2>Per day</h2>
${table(
  'Transitions per day',
  ['day', 'published', 'answered', 'transitions by state'],
  answer.days.map((day) => [
    html`${day.day}`,
    html`${day.published}`,
    html`${day.answered}`,
    html`${states(day)}`,
  ]),
  'No day in the window.',
)}
<p><code>pds bridge recipients ${channel} ${recipient} --days ${days}${context.stageFlag}</code> prints the same.</p>`;
}
