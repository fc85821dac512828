/**
 * The frame every page shares: a navigation bar naming the four questions, the page's heading, and
 * one style sheet served from the console itself (the Content-Security-Policy allows no inline style).
 */
import { type Html, html } from './html.ts';

/** The pages, in the order of the navigation bar; each answers one question. */
export const PAGES = [
  {
    path: '/sync',
    name: 'Synchronisation',
    question: 'Which recipients have not synchronised what we published, and why?',
  },
  {
    path: '/recipients',
    name: 'Recipients',
    question: 'How long does each recipient take, and who never answers?',
  },
  { path: '/deliveries', name: 'Deliveries', question: 'Which event destinations are failing?' },
  { path: '/pipeline', name: 'Pipeline', question: 'Is anything waiting, stuck or behind?' },
] as const;

export type PagePath = (typeof PAGES)[number]['path'];

/** A whole page. `section` is the navigation entry it belongs to (marked as the current page). */
export function layout(options: {
  title: string;
  section: PagePath;
  stage: string;
  /** Whether actions are offered; else the header says the console is read-only. */
  actions: boolean;
  body: Html;
}): Html {
  const page = PAGES.find((each) => each.path === options.section);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · pds-bridge console (${options.stage})</title>
<link rel="stylesheet" href="/console.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header>
<p class="brand">pds-bridge console <span class="stage">stage ${options.stage}</span> <span class="stage">${options.actions ? 'actions allowed' : 'read-only'}</span></p>
<nav aria-label="Pages"><ul>
${PAGES.map(
  (each) =>
    html`<li><a href="${each.path}"${each.path === options.section ? html` aria-current="page"` : ''}>${each.name}</a></li>`,
)}
</ul></nav>
</header>
<main id="main">
<h1>${options.title}</h1>
${page ? html`<p class="question">${page.question}</p>` : ''}
${options.body}
</main>
</body>
</html>
`;
}

/** A table with a caption; `rows` already escaped cells. An empty table says so instead. */
export function table(
  caption: string,
  headings: readonly string[],
  rows: readonly Html[][],
  empty: string,
): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="scroll" role="region" aria-label="${caption}" tabindex="0"><table>
<caption>${caption}</caption>
<thead><tr>${headings.map((heading) => html`<th scope="col">${heading}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A chart and, folded beneath it, the same figures as a table (its text alternative in full). */
export function figure(
  chart: Html,
  caption: string,
  headings: readonly string[],
  rows: readonly Html[][],
): Html {
  return html`<figure>${chart}<figcaption><details><summary>${caption}: the figures</summary>${table(caption, headings, rows, 'No figures.')}</details></figcaption></figure>`;
}

/** Small figures in a row: a label and a number each. */
export function tiles(
  items: ReadonlyArray<{ label: string; value: string | number; tone?: 'bad' | 'good' }>,
): Html {
  return html`<ul class="tiles">${items.map(
    (item) =>
      html`<li class="${item.tone ?? ''}"><span class="value">${item.value}</span> <span class="label">${item.label}</span></li>`,
  )}</ul>`;
}

/** A time as ISO text and how long ago, e.g. `2026-05-04T10:00:00Z (12 min ago)`. */
export function ago(iso: string | undefined, now: number): string {
  if (!iso) return '—';
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${iso} (${duration(ms)} ago)`;
}

/** `45 s`, `12 min`, `3.5 h`, `2.1 d`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} d`;
}

/** The tab's icon: a small square in the header's colour (a browser asks for one; a 404 would be an error in its console). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#10264d"/><path d="M4 11V5h4a2 2 0 0 1 0 4H4" fill="none" stroke="#fff" stroke-width="1.6"/></svg>';

export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1b1b; --muted: #4a4a4a; --line: #c8c8c8; --accent: #1f4e9c; --bad: #a1260d; --good: #1f6b1f; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--ink); background: #fff; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; outline: 3px solid var(--accent); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; padding: 8px 20px; background: #10264d; color: #fff; }
header a { color: #fff; }
.brand { margin: 0; font-weight: 700; }
.stage { font-weight: 400; margin-left: 8px; padding: 1px 6px; border: 1px solid #fff; border-radius: 4px; }
nav ul { display: flex; gap: 4px; list-style: none; margin: 0; padding: 0; }
nav a { display: block; padding: 6px 10px; text-decoration: none; border-radius: 4px; }
nav a[aria-current="page"] { background: #fff; color: #10264d; font-weight: 700; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, [tabindex]:focus-visible { outline: 3px solid #f2b705; outline-offset: 2px; }
main { padding: 12px 20px 40px; max-width: 1280px; }
h1 { margin: 8px 0 0; font-size: 1.6rem; }
h2 { margin-top: 28px; font-size: 1.2rem; }
.question { margin-top: 2px; color: var(--muted); }
a { color: var(--accent); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0; min-width: 50%; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px 4px 0; text-align: left; vertical-align: top; }
td { white-space: pre-wrap; overflow-wrap: break-word; max-width: 48ch; }
td:first-child a { overflow-wrap: normal; }
.tiles { display: flex; flex-wrap: wrap; gap: 10px; list-style: none; padding: 0; }
.tiles li { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 120px; }
.tiles .value { display: block; font-size: 1.5rem; font-weight: 700; }
.tiles .bad .value { color: var(--bad); }
.tiles .good .value { color: var(--good); }
.state-OVERDUE, .state-REJECTED, .state-REFUSED_BY_DATA_POOL, .bad { color: var(--bad); font-weight: 600; }
.state-SYNCHRONISED, .good { color: var(--good); }
form.filters { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: end; padding: 10px; border: 1px solid var(--line); border-radius: 6px; }
form.filters fieldset { border: 0; padding: 0; margin: 0; }
form.filters label { display: block; font-size: 0.9rem; }
form.filters fieldset label { display: inline; margin-right: 10px; }
form.filters fieldset input { margin-left: 0; }
input, select, button { font: inherit; }
input[type="text"], input[type="search"] { padding: 3px 6px; border: 1px solid #767676; border-radius: 4px; }
button { padding: 4px 12px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
button.danger { background: var(--bad); border-color: var(--bad); }
.pager { display: flex; gap: 16px; margin: 8px 0; }
figure { margin: 12px 0; }
figure svg { max-width: 100%; height: auto; }
.empty { color: var(--muted); font-style: italic; }
.notice { border-left: 4px solid var(--accent); padding: 6px 12px; background: #eef3fb; }
.error { border-left: 4px solid var(--bad); padding: 6px 12px; background: #fbeeee; }
.matrix td { text-align: center; }
code { font-size: 0.95em; }
`;
