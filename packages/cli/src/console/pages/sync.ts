/**
 * Synchronisation: which recipients have not synchronised what we published, and why? The exception
 * list reads the ledger as GET /confirmations does (packages/bridge/src/confirmations/read.ts `listEntries`:
 * by state through the index, a page at a time, the next page from the position the last one ended
 * at); one publication's items × recipients; one entry's history.
 */

import { type ConfirmationEntry, REFUSED_BY_DATA_POOL } from '@pds-bridge/bridge/confirmations/entry.ts';
import { UnknownConfirmationStateError } from '@pds-bridge/bridge/confirmations/errors.ts';
import { CONFIRMATION_INDEX_PREFIX, CONFIRMATIONS_PREFIX } from '@pds-bridge/bridge/confirmations/keys.ts';
import { listEntries, resolveStates, type StoredEntry } from '@pds-bridge/bridge/confirmations/read.ts';
import { ConsoleInputError } from '../../errors.ts';
import { type ConfirmationRow, confirmationsOfPublication, rowOf } from '../../ops/confirmations.ts';
import { barChart } from '../charts.ts';
import { type Html, html, query } from '../html.ts';
import { ago, figure, table, tiles } from '../layout.ts';
import type { PageContext } from '../page.ts';

/** What needs attention: the exception list's states, checked by default. */
export const EXCEPTION_STATES = ['OVERDUE', 'REVIEW', 'REJECTED', REFUSED_BY_DATA_POOL] as const;
const OTHER_STATES = ['AWAITING', 'RECEIVED', 'ACCEPTED', 'SYNCHRONISED'] as const;

/** Entries per page by default, and at most (the API's `limit`). */
export const SYNC_PAGE_SIZE = 50;
const MAX_SYNC_PAGE_SIZE = 200;

/** The filters of the exception list, read from the page's query. */
interface SyncFilters {
  states: string[];
  limit: number;
  recipient?: string;
  channel?: string;
  market?: string;
  gtin?: string;
  after?: string;
}

const MAX_FILTER = 512;

function filterValue(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name)?.trim();
  if (!value) return undefined;
  if (value.length > MAX_FILTER) {
    throw new ConsoleInputError(`The filter ${name} is longer than ${MAX_FILTER} characters; shorten it.`);
  }
  return value;
}

function filtersOf(url: URL): SyncFilters {
  const states = url.searchParams.getAll('state').filter(Boolean);
  const after = filterValue(url, 'after');
  if (after && !after.startsWith(CONFIRMATIONS_PREFIX) && !after.startsWith(CONFIRMATION_INDEX_PREFIX)) {
    throw new ConsoleInputError(
      'The page position (after=…) is not one this console gave; start again from the first page.',
    );
  }
  const named = (name: string) => {
    const value = filterValue(url, name);
    return value === undefined ? {} : { [name]: value };
  };
  const limitText = url.searchParams.get('limit');
  const limit = limitText === null || limitText === '' ? SYNC_PAGE_SIZE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SYNC_PAGE_SIZE) {
    throw new ConsoleInputError(
      `The page size (limit=…) must be a whole number from 1 to ${MAX_SYNC_PAGE_SIZE}.`,
    );
  }
  return {
    states: states.length > 0 ? states : [...EXCEPTION_STATES],
    limit,
    ...named('recipient'),
    ...named('channel'),
    ...named('market'),
    ...named('gtin'),
    ...(after ? { after } : {}),
  };
}

/**
 * Recipient, channel and target market narrow the page that was read (GET /confirmations pages by
 * state and GTIN only), so a page may show fewer rows than it read; the pager goes on from where the
 * read ended, so nothing is skipped.
 */
function matches(entry: ConfirmationEntry, filters: SyncFilters): boolean {
  const { key } = entry;
  if (filters.recipient && key.recipientGln !== filters.recipient) return false;
  if (filters.channel && key.channelId !== filters.channel) return false;
  if (filters.market && key.targetMarket !== filters.market) return false;
  return true;
}

export async function syncPage(context: PageContext): Promise<Html> {
  const filters = filtersOf(context.url);
  const states = await resolveStates(context.connection.store, filters.states).catch((error: unknown) => {
    if (error instanceof UnknownConfirmationStateError) throw new ConsoleInputError(error.message);
    throw error;
  });
  const page = await listEntries(context.connection.store, {
    states,
    limit: filters.limit,
    ...(filters.gtin ? { gtin: filters.gtin } : {}),
    ...(filters.after ? { after: filters.after } : {}),
  });
  const shown = page.entries.filter((stored) => matches(stored.entry, filters));
  const counts = countStates(shown);
  return html`${filterForm(filters)}
${tiles(EXCEPTION_STATES.map((state) => ({ label: state, value: counts[state] ?? 0, tone: (counts[state] ?? 0) > 0 ? 'bad' : 'good' })))}
<p>${shown.length} of the ${page.entries.length} entries read on this page match${filters.after ? ' (not the first page)' : ''}.</p>
${shown.length > 0 ? stateFigure(counts) : ''}
${exceptionTable(shown, context.now)}
${pager(filters, page.next)}
<h2>One publication</h2>
<form class="filters" method="get" action="/sync/publication"><label for="publication-id">Publication id</label>
<input type="text" id="publication-id" name="id" required maxlength="200"><button type="submit">Show its items × recipients</button></form>`;
}

function countStates(entries: readonly StoredEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { entry } of entries) counts[entry.state] = (counts[entry.state] ?? 0) + 1;
  return counts;
}

function filterForm(filters: SyncFilters): Html {
  const box = (state: string) =>
    html`<input type="checkbox" id="state-${state}" name="state" value="${state}"${filters.states.includes(state) ? html` checked` : ''}><label for="state-${state}">${state}</label> `;
  const text = (name: keyof SyncFilters, label: string, hint: string) =>
    html`<div><label for="filter-${name}">${label}</label><input type="text" id="filter-${name}" name="${name}" value="${(filters[name] as string | undefined) ?? ''}" placeholder="${hint}" maxlength="${MAX_FILTER}"></div>`;
  return html`<form class="filters" method="get" action="/sync" aria-label="Filter the exception list">
<fieldset><legend>States</legend>${EXCEPTION_STATES.map(box)}${OTHER_STATES.map(box)}</fieldset>
${text('recipient', 'Recipient GLN', '0614141000043')}
${text('channel', 'Channel', 'channel id')}
${text('market', 'Target market', '276')}
${text('gtin', 'GTIN', '00614141123452')}
${filters.limit === SYNC_PAGE_SIZE ? '' : html`<input type="hidden" name="limit" value="${filters.limit}">`}
<button type="submit">Filter</button> <a href="/sync">Clear</a>
</form>`;
}

function stateFigure(counts: Record<string, number>): Html {
  const bars = Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, value]) => ({ label, value }));
  const chart = barChart({
    title: 'Entries on this page by state',
    description: bars.map((bar) => `${bar.label}: ${bar.value}`).join(', '),
    bars,
    formatValue: (value) => String(value),
  });
  return figure(
    chart,
    'Entries by state',
    ['state', 'entries'],
    bars.map((bar) => [html`${bar.label}`, html`${bar.value}`]),
  );
}

function reasonOf(row: ConfirmationRow): Html {
  return html`${row.reason ?? ''}${row.correctiveActions.length > 0 ? html`<ul>${row.correctiveActions.map((action) => html`<li>${action}</li>`)}</ul>` : ''}`;
}

function exceptionTable(entries: readonly StoredEntry[], now: number): Html {
  return table(
    'The exception list',
    [
      'state',
      'item',
      'recipient',
      'channel',
      'market',
      'since',
      'reason and corrective action',
      'publication',
    ],
    entries.map(({ stateKey, entry }) => {
      const row = rowOfEntry(entry);
      const publication = row.publications.at(-1);
      return [
        html`<a class="state-${entry.state}" href="/sync/entry${query({ key: stateKey })}">${entry.state}</a>`,
        html`${entry.key.primaryKey}${entry.key.gtin && entry.key.gtin !== entry.key.primaryKey ? html`<br>GTIN ${entry.key.gtin}` : ''}`,
        html`${entry.key.recipientGln ?? '—'}`,
        html`${entry.key.channelId}`,
        html`${entry.key.targetMarket ?? '—'}`,
        html`${ago(entry.since, now)}`,
        reasonOf(row),
        publication
          ? html`<a href="/sync/publication${query({ id: publication })}">${publication}</a>`
          : html`—`,
      ];
    }),
    'Nothing on this page needs attention with these filters.',
  );
}

function pager(filters: SyncFilters, next: string | undefined): Html {
  const link = (after: string | undefined) =>
    `/sync${query({ state: filters.states, recipient: filters.recipient, channel: filters.channel, market: filters.market, gtin: filters.gtin, limit: filters.limit === SYNC_PAGE_SIZE ? undefined : filters.limit, after })}`;
  return html`<nav class="pager" aria-label="Pages of the exception list">
${filters.after ? html`<a href="${link(undefined)}">First page</a>` : ''}
${next ? html`<a href="${link(next)}" rel="next">Next page</a>` : html`<span>Last page</span>`}
</nav>`;
}

/** The CLI's flat row (corrective actions in one line each) of a stored entry. */
function rowOfEntry(entry: ConfirmationEntry): ConfirmationRow {
  return rowOf({ stateKey: '', entry });
}

/** One publication's items × recipients, each cell the entry's state. */
export async function publicationPage(context: PageContext): Promise<Html> {
  const id = filterValue(context.url, 'id');
  if (!id) throw new ConsoleInputError('Name the publication: /sync/publication?id=PUBLICATION_ID.');
  const answer = await confirmationsOfPublication(context.connection.store, id);
  if (answer.publicationStatus === 'not-found') {
    return html`<p class="error">There is no publication <code>${id}</code> in this stage's state bucket.</p>`;
  }
  const items = [...new Set(answer.rows.map((row) => row.primaryKey))];
  const recipientOf = (row: ConfirmationRow) => `${row.channelId} · ${row.recipientGln ?? 'channel'}`;
  const recipients = [...new Set(answer.rows.map(recipientOf))];
  const cell = new Map(answer.rows.map((row) => [`${row.primaryKey}\u0000${recipientOf(row)}`, row]));
  return html`<p>Publication <code>${id}</code>: ${answer.publicationStatus}; ${items.length} items × ${recipients.length} recipients.</p>
${tiles(Object.entries(answer.summary).map(([label, value]) => ({ label, value })))}
${
  answer.rows.length === 0
    ? html`<p class="empty">No ledger entries for this publication yet.</p>`
    : html`<div class="scroll" role="region" aria-label="Items by recipients" tabindex="0"><table class="matrix">
<caption>Items × recipients (channel · recipient GLN)</caption>
<thead><tr><th scope="col">item</th>${recipients.map((recipient) => html`<th scope="col">${recipient}</th>`)}</tr></thead>
<tbody>${items.map(
        (item) =>
          html`<tr><th scope="row">${item}</th>${recipients.map((recipient) => {
            const row = cell.get(`${item}\u0000${recipient}`);
            return html`<td>${row ? html`<span class="state-${row.state}">${row.state}</span>` : '—'}</td>`;
          })}</tr>`,
      )}</tbody></table></div>`
}
<p><code>pds bridge confirmations ${id}${context.stageFlag}</code> prints the same.</p>`;
}

/** One entry: its key, state, reason, and every transition it went through. */
export async function entryPage(context: PageContext): Promise<Html> {
  const key = filterValue(context.url, 'key');
  if (!key?.startsWith(CONFIRMATIONS_PREFIX)) {
    throw new ConsoleInputError(
      'Name the entry: /sync/entry?key=confirmations/… (follow a link of the exception list).',
    );
  }
  const stored = await context.connection.store.get<ConfirmationEntry>(key);
  if (!stored) return html`<p class="error">There is no entry <code>${key}</code> (any more).</p>`;
  const entry = stored.value;
  const row = rowOfEntry(entry);
  return html`<dl>
<dt>Item</dt><dd>${entry.key.primaryKey}${entry.key.gtin ? ` (GTIN ${entry.key.gtin})` : ''}</dd>
<dt>Recipient</dt><dd>${entry.key.recipientGln ?? 'the channel'} on channel ${entry.key.channelId}${entry.key.targetMarket ? `, target market ${entry.key.targetMarket}` : ''}</dd>
<dt>State</dt><dd><span class="state-${entry.state}">${entry.state}</span> since ${ago(entry.since, context.now)}; deadline ${entry.deadline}</dd>
<dt>Reason and corrective action</dt><dd>${reasonOf(row)}${row.reason || row.correctiveActions.length > 0 ? '' : '—'}</dd>
<dt>Publications</dt><dd>${entry.publications.map((publication) => html`<a href="/sync/publication${query({ id: publication.publicationId })}">${publication.publicationId}</a> (${publication.publishedAt}) `)}</dd>
</dl>
<h2>History</h2>
${table(
  'Transitions, oldest first',
  ['recorded', 'from', 'to', 'since', 'cause', 'messaging asset or review'],
  entry.history.map((transition) => [
    html`${transition.recordedAt}`,
    html`${transition.previousState ?? '—'}`,
    html`<span class="state-${transition.state}">${transition.state}</span>`,
    html`${transition.since}`,
    html`${transition.cause}`,
    html`${transition.messagingAssetId ?? transition.reviewId ?? '—'}`,
  ]),
  'No transitions recorded.',
)}`;
}
