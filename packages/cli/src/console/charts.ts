/**
 * Charts as plain SVG, built on the server (the console runs no script in the browser) and by
 * scripts/charts.ts for the docs. Each chart is an `<svg role="img">` with a title and a description
 * that say what it shows in words; the console puts the figures beside it as a table. Colours are
 * dark enough for text contrast on white (WCAG AA), and every series also differs by its marker.
 */
import { Html, html } from './html.ts';

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Series {
  readonly name: string;
  readonly points: readonly Point[];
}

export interface LineChartOptions {
  /** Read out first by a screen reader, and drawn above the chart. */
  readonly title: string;
  /** What the chart shows, in a sentence: its text alternative. */
  readonly description: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  /** The x range drawn (e.g. a whole window of days); default the points' own range. */
  readonly xDomain?: readonly [number, number];
  /** `log` for sizes that grow tenfold (10k, 100k, 1M). Default `linear`. */
  readonly xScale?: 'linear' | 'log';
  /** Tick labels; default the number as is. */
  readonly formatX?: (x: number) => string;
  readonly formatY?: (y: number) => string;
  /** Default 640 × 300. */
  readonly width?: number;
  readonly height?: number;
}

export interface Bar {
  readonly label: string;
  readonly value: number;
}

export interface BarChartOptions {
  readonly title: string;
  readonly description: string;
  readonly bars: readonly Bar[];
  /** Written after each value, e.g. ` ms` or `×`. */
  readonly unit?: string;
  /** A dashed line at this value (1 for ratios: "as fast as the reference"). */
  readonly reference?: number;
  readonly formatValue?: (value: number) => string;
  readonly width?: number;
}

/** Blue, rust, green, purple, olive: each at least 4.5:1 against white. */
export const CHART_COLOURS = ['#1f4e9c', '#a63a12', '#2a6e2a', '#6b3fa0', '#6f5a00'] as const;
const MARKERS = ['circle', 'square', 'diamond', 'triangle', 'cross'] as const;
const INK = '#222222';
const GRID = '#d0d0d0';
const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

/** Round steps (1, 2, 5 × 10ⁿ) from 0 to at least `max`. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((each) => each * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step / 2; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

function shortNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e3) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}

function marker(kind: (typeof MARKERS)[number], x: number, y: number, colour: string): Html {
  const at = (dx: number, dy: number) => `${(x + dx).toFixed(1)},${(y + dy).toFixed(1)}`;
  switch (kind) {
    case 'circle':
      return html`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="4" fill="${colour}"/>`;
    case 'square':
      return html`<rect x="${(x - 3.5).toFixed(1)}" y="${(y - 3.5).toFixed(1)}" width="7" height="7" fill="${colour}"/>`;
    case 'diamond':
      return html`<polygon points="${[at(0, -5), at(5, 0), at(0, 5), at(-5, 0)].join(' ')}" fill="${colour}"/>`;
    case 'triangle':
      return html`<polygon points="${[at(0, -5), at(5, 4), at(-5, 4)].join(' ')}" fill="${colour}"/>`;
    default:
      return html`<path d="M${at(-4, -4)}L${at(4, 4)}M${at(-4, 4)}L${at(4, -4)}" stroke="${colour}" stroke-width="2"/>`;
  }
}

function svgOpen(width: number, height: number, title: string, description: string, id: string): Html {
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${id}-title ${id}-desc"><title id="${id}-title">${title}</title><desc id="${id}-desc">${description}</desc><rect width="${width}" height="${height}" fill="#ffffff"/>`;
}

/** An id for the chart's title and description, stable for the same title. */
function chartId(title: string): string {
  let hash = 0;
  for (const char of title) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return `chart-${hash.toString(36)}`;
}

/**
 * A line chart: one line per series, a marker per point, a legend.
 *
 * @example
 * ```ts
 * const svg = lineChart({ title: 'Requests per page', description: 'Flat from 10k to 1M entries',
 *   xLabel: 'entries', yLabel: 'requests', xScale: 'log',
 *   series: [{ name: 'page of 50', points: [{ x: 1e4, y: 52 }, { x: 1e6, y: 53 }] }] });
 * ```
 */
export function lineChart(options: LineChartOptions): Html {
  const width = options.width ?? 640;
  const legendRows = Math.ceil(options.series.length / 3);
  const height = (options.height ?? 300) + 16 * (legendRows - 1);
  const pad = { left: 64, right: 16, top: 36, bottom: 48 + 16 * legendRows };
  const points = options.series.flatMap((series) => series.points);
  const log = options.xScale === 'log';
  const xs = points.map((point) => (log ? Math.log10(Math.max(point.x, 1e-9)) : point.x));
  const scaled = (x: number) => (log ? Math.log10(Math.max(x, 1e-9)) : x);
  const xMin = options.xDomain ? scaled(options.xDomain[0]) : Math.min(...xs);
  const xMax = options.xDomain ? scaled(options.xDomain[1]) : Math.max(...xs);
  const yTicks = niceTicks(Math.max(0, ...points.map((point) => point.y)));
  const yMax = yTicks.at(-1) ?? 1;
  const plotWidth = width - pad.left - pad.right;
  const plotHeight = height - pad.top - pad.bottom;
  const xOf = (x: number) => {
    const value = scaled(x);
    return pad.left + (xMax === xMin ? plotWidth / 2 : ((value - xMin) / (xMax - xMin)) * plotWidth);
  };
  const yOf = (y: number) => pad.top + plotHeight - (y / yMax) * plotHeight;
  const formatX = options.formatX ?? shortNumber;
  const formatY = options.formatY ?? shortNumber;
  const xTicks = [...new Set([...(options.xDomain ?? []), ...points.map((point) => point.x)])].sort(
    (a, b) => a - b,
  );
  const shownX = xTicks.filter((_, at) => at % Math.ceil(xTicks.length / 8) === 0);
  const id = chartId(options.title);
  return html`${svgOpen(width, height, options.title, options.description, id)}<g ${new Html(FONT)} fill="${INK}">
<text x="${pad.left}" y="20" font-weight="bold">${options.title}</text>
${yTicks.map((tick) => html`<line x1="${pad.left}" x2="${width - pad.right}" y1="${yOf(tick).toFixed(1)}" y2="${yOf(tick).toFixed(1)}" stroke="${GRID}"/><text x="${pad.left - 6}" y="${(yOf(tick) + 4).toFixed(1)}" text-anchor="end">${formatY(tick)}</text>`)}
${shownX.map((tick) => html`<text x="${xOf(tick).toFixed(1)}" y="${height - pad.bottom + 16}" text-anchor="middle">${formatX(tick)}</text>`)}
<text x="${pad.left + plotWidth / 2}" y="${height - pad.bottom + 34}" text-anchor="middle">${options.xLabel}</text>
<text transform="translate(14 ${pad.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${options.yLabel}</text>
<line x1="${pad.left}" x2="${pad.left}" y1="${pad.top}" y2="${pad.top + plotHeight}" stroke="${INK}"/>
<line x1="${pad.left}" x2="${width - pad.right}" y1="${pad.top + plotHeight}" y2="${pad.top + plotHeight}" stroke="${INK}"/>
${options.series.map((series, at) => {
  const colour = CHART_COLOURS[at % CHART_COLOURS.length] as string;
  const sorted = [...series.points].sort((a, b) => a.x - b.x);
  const path = sorted.map(
    (point, i) => `${i === 0 ? 'M' : 'L'}${xOf(point.x).toFixed(1)},${yOf(point.y).toFixed(1)}`,
  );
  const kind = MARKERS[at % MARKERS.length] as (typeof MARKERS)[number];
  const legendX = pad.left + (at % 3) * 190;
  const legendY = height - 12 - (legendRows - 1 - Math.floor(at / 3)) * 16;
  return html`<path d="${path.join('')}" fill="none" stroke="${colour}" stroke-width="2"/>${sorted.map((point) => marker(kind, xOf(point.x), yOf(point.y), colour))}
${marker(kind, legendX + 6, legendY - 4, colour)}<text x="${legendX + 16}" y="${legendY}">${series.name}</text>`;
})}
</g></svg>`;
}

/**
 * Horizontal bars with their values written at their ends, optionally a dashed reference line.
 *
 * @example
 * ```ts
 * const svg = barChart({ title: 'Time against the reference', description: 'Both within 5 %',
 *   bars: [{ label: 'parse', value: 1.02 }], unit: '×', reference: 1 });
 * ```
 */
export function barChart(options: BarChartOptions): Html {
  const width = options.width ?? 640;
  const barHeight = 22;
  const gap = 8;
  const labelWidth = Math.min(300, Math.max(80, ...options.bars.map((bar) => bar.label.length * 7.6 + 16)));
  const pad = { left: labelWidth, right: 90, top: 36, bottom: 16 };
  const height = pad.top + options.bars.length * (barHeight + gap) + pad.bottom;
  const max = Math.max(options.reference ?? 0, ...options.bars.map((bar) => bar.value), 1e-9);
  const plotWidth = width - pad.left - pad.right;
  const xOf = (value: number) => pad.left + (Math.max(0, value) / max) * plotWidth;
  const format = options.formatValue ?? shortNumber;
  const unit = options.unit ?? '';
  const id = chartId(options.title);
  const reference = options.reference;
  return html`${svgOpen(width, height, options.title, options.description, id)}<g ${new Html(FONT)} fill="${INK}">
<text x="8" y="20" font-weight="bold">${options.title}</text>
${options.bars.map((bar, at) => {
  const y = pad.top + at * (barHeight + gap);
  return html`<text x="${pad.left - 8}" y="${y + barHeight / 2 + 4}" text-anchor="end">${bar.label}</text><rect x="${pad.left}" y="${y}" width="${Math.max(1, xOf(bar.value) - pad.left).toFixed(1)}" height="${barHeight}" fill="${CHART_COLOURS[0]}"/><text x="${(xOf(bar.value) + 6).toFixed(1)}" y="${y + barHeight / 2 + 4}">${format(bar.value)}${unit}</text>`;
})}
${reference === undefined ? '' : html`<line x1="${xOf(reference).toFixed(1)}" x2="${xOf(reference).toFixed(1)}" y1="${pad.top - 6}" y2="${height - pad.bottom}" stroke="${INK}" stroke-dasharray="4 3"/>`}
</g></svg>`;
}
