/**
 * The docs' pictures: charts drawn from the benchmark tables of docs/benchmarks.md and docs/costs.md
 * (the benchmarks' own output, as written there), each an SVG in docs/charts/ linked right under its
 * table. `npm run charts` (scripts/charts.ts) writes them; test/unit/doc-charts.test.ts fails when a
 * table changed and its chart was not redrawn. The drawing is the console's (packages/cli/src/console/charts.ts).
 */
import { barChart, lineChart, type Series } from '../packages/cli/src/console/charts.ts';

/** One chart: which table it reads, which columns, how it is drawn. */
export interface DocChart {
  /** The SVG's name in docs/charts/ (without `.svg`). */
  readonly name: string;
  /** The markdown file, relative to the repository. */
  readonly file: string;
  /** The heading (its text after the #s) of the section whose table is read. */
  readonly section: string;
  /** Which table of the section, from 0. Default 0. */
  readonly table?: number;
  readonly title: string;
  /** Line: y over x, one line per value of the series columns. Bar: one bar per row. */
  readonly kind: 'line' | 'bar';
  /** Column of x (line) or of the bar's label (bar). */
  readonly x: string;
  /** Column(s) of y; with several, one series each (named after the column). */
  readonly y: readonly string[];
  /** Columns whose values, joined, name a row's series (line, one y column). */
  readonly series?: readonly string[];
  readonly xLabel?: string;
  readonly yLabel?: string;
  readonly xScale?: 'linear' | 'log';
  /** Rows whose label or series contains this are left out (a total, a reference row). */
  readonly skip?: RegExp;
  /** A unit written after bar values. */
  readonly unit?: string;
}

/** S3 requests of each question (a line each) by what the store holds: the scale benches' tables. */
function requestsBySize(
  name: string,
  section: string,
  title: string,
  size: string,
  sizeLabel: string,
): DocChart {
  return {
    name,
    file: 'docs/benchmarks.md',
    section,
    title,
    kind: 'line',
    x: size,
    y: ['S3 requests'],
    series: ['question'],
    xLabel: sizeLabel,
    yLabel: 'S3 requests',
    xScale: 'log',
  };
}

export const DOC_CHARTS: readonly DocChart[] = [
  requestsBySize(
    'ledger-exception-list-requests',
    'scale: the confirmation ledger',
    'Exception list: S3 requests per page of 50, by ledger size',
    'entries',
    'ledger entries',
  ),
  requestsBySize(
    'status-replay-requests',
    'scale: status and replay',
    'Status and replay: S3 requests, by records kept',
    'records',
    'ingest records',
  ),
  requestsBySize(
    'exceptions-and-recipients-requests',
    "scale: exception list after the last hour's transitions, and the recipients page",
    "Exception list and recipients page: S3 requests after the last hour's transitions",
    'entries',
    'ledger entries',
  ),
  requestsBySize(
    'status-by-window-requests',
    'scale: status by window',
    'Status by window and replay: S3 requests, by records kept',
    'records',
    'ingest records',
  ),
  {
    name: 'messaging-assets-peak-rss',
    file: 'docs/benchmarks.md',
    section: 'scale: messaging assets',
    title: 'Messaging-asset poller: peak memory, by assets listed',
    kind: 'line',
    x: 'listed',
    y: ['peak RSS MiB'],
    series: ['listing read', 'run'],
    xLabel: 'assets the PDS lists',
    yLabel: 'peak RSS (MiB)',
    xScale: 'log',
  },
  {
    name: 'costs-growth',
    file: 'docs/costs.md',
    section: 'Growth: 1×, 10× and 100× the load',
    title: 'Monthly cost (USD) at 1×, 10× and 100× the load',
    kind: 'line',
    x: 'load',
    y: ['month: Lambda', 'S3', 'SQS+API', 'total'],
    xLabel: 'load (× the reference)',
    yLabel: 'USD a month',
    xScale: 'log',
  },
  {
    name: 'costs-per-operation',
    file: 'docs/costs.md',
    section: 'Figures',
    table: 1,
    title: 'Monthly cost (USD) per operation at the reference load',
    kind: 'bar',
    x: 'operation',
    y: ['total'],
    skip: /^total$/,
  },
];

/** A markdown table: its header cells, its rows, and the line after its last one. */
export interface MarkdownTable {
  readonly header: string[];
  readonly rows: string[][];
  readonly endLine: number;
}

function cellsOf(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim().replace(/^`|`$/g, ''));
}

/** The lines of the section under `heading` (up to the next heading of any level). */
function sectionRange(lines: readonly string[], heading: string): { start: number; end: number } {
  const start = lines.findIndex(
    (line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '').trim() === heading,
  );
  if (start < 0) throw new Error(`no section '${heading}'`);
  const next = lines.findIndex((line, at) => at > start && /^#{1,6} /.test(line));
  return { start, end: next < 0 ? lines.length : next };
}

const isRow = (line: string | undefined) => line?.trim().startsWith('|') === true;

/** The `index`th table (from 0) of a section. */
export function tableOf(lines: readonly string[], heading: string, index = 0): MarkdownTable {
  const { start, end } = sectionRange(lines, heading);
  let first = start;
  for (let seen = -1; seen < index; seen += 1) {
    first = lines.findIndex((line, at) => at > first && at < end && isRow(line) && !isRow(lines[at - 1]));
    if (first < 0) throw new Error(`section '${heading}' has no table ${index}`);
  }
  let last = first;
  while (last + 1 < end && isRow(lines[last + 1])) last += 1;
  const [header, , ...rows] = lines.slice(first, last + 1).map(cellsOf);
  return { header: header ?? [], rows, endLine: last + 1 };
}

/** The number a cell states: `1,000,000` → 1000000, `$13.73` → 13.73, `196×` → 196, `10x` → 10; else undefined. */
export function numberOf(cell: string): number | undefined {
  const match = /-?\d+(?:\.\d+)?/.exec(cell.replace(/,/g, ''));
  return match ? Number(match[0]) : undefined;
}

function column(table: MarkdownTable, name: string, chart: DocChart): number {
  const at = table.header.indexOf(name);
  if (at < 0)
    throw new Error(
      `${chart.file}, '${chart.section}': no column '${name}' (columns: ${table.header.join(', ')})`,
    );
  return at;
}

function describe(series: readonly Series[], xLabel: string): string {
  return series
    .map(
      (each) =>
        `${each.name}: ${each.points.map((point) => `${point.y} at ${point.x.toLocaleString('en-US')}`).join(', ')}`,
    )
    .join('; ')
    .concat(` (x: ${xLabel})`);
}

/** The SVG of one chart from its file's text. */
export function renderChart(chart: DocChart, markdown: string): string {
  const table = tableOf(markdown.split('\n'), chart.section, chart.table);
  const xAt = column(table, chart.x, chart);
  const yAts = chart.y.map((name) => column(table, name, chart));
  const seriesAts = (chart.series ?? []).map((name) => column(table, name, chart));
  const rows = table.rows.filter((row) => !chart.skip?.test(row[xAt] ?? ''));
  if (chart.kind === 'bar') {
    const bars = rows.flatMap((row) => {
      const value = numberOf(row[yAts[0] as number] ?? '');
      return value === undefined ? [] : [{ label: row[xAt] ?? '', value }];
    });
    return barChart({
      title: chart.title,
      description: bars.map((bar) => `${bar.label}: ${bar.value}`).join('; '),
      bars,
      ...(chart.unit ? { unit: chart.unit } : {}),
      formatValue: (value) => String(value),
    }).toString();
  }
  const series = new Map<string, { x: number; y: number }[]>();
  for (const row of rows) {
    const x = numberOf(row[xAt] ?? '');
    if (x === undefined) continue;
    chart.y.forEach((name, index) => {
      const y = numberOf(row[yAts[index] as number] ?? '');
      if (y === undefined) return;
      const key = seriesAts.length > 0 ? seriesAts.map((at) => row[at]).join(', ') : name;
      if (chart.skip?.test(key)) return;
      series.set(key, [...(series.get(key) ?? []), { x, y }]);
    });
  }
  const lines = [...series].map(([name, points]) => ({ name, points }));
  return lineChart({
    title: chart.title,
    description: describe(lines, chart.xLabel ?? chart.x),
    xLabel: chart.xLabel ?? chart.x,
    yLabel: chart.yLabel ?? chart.y.join(', '),
    series: lines,
    xScale: chart.xScale ?? 'linear',
  }).toString();
}

/** The markdown link to a chart, as written under its table. */
export function chartLink(chart: DocChart): string {
  return `![${chart.title}](charts/${chart.name}.svg)`;
}

/** The file's text with the chart's link right under its table (added once, kept in place after). */
export function withChartLink(chart: DocChart, markdown: string): string {
  const lines = markdown.split('\n');
  const link = chartLink(chart);
  const { start, end } = sectionRange(lines, chart.section);
  const existing = lines.findIndex(
    (line, at) => at > start && at < end && line.includes(`(charts/${chart.name}.svg)`),
  );
  if (existing >= 0) {
    lines[existing] = link;
    return lines.join('\n');
  }
  const { endLine } = tableOf(lines, chart.section, chart.table);
  lines.splice(endLine, 0, '', link);
  return lines.join('\n');
}
