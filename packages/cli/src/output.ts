/**
 * How `pds` shows results: JSON when stdout is not a terminal (or with `--json`), readable tables on a
 * terminal. A tiny table formatter, byte and rate formatting; no dependency.
 */
/** Longest cell shown in a table; longer text is cut with '…' (JSON output is never cut). */
export const MAX_CELL_WIDTH = 72;

/**
 * Formats rows as a plain-text table with a header line; columns are padded to their widest cell.
 *
 * @example
 * ```ts
 * formatTable(['ID', 'NAME'], [['1', 'gtin-watch']]);
 * // 'ID  NAME\n--  ----------\n1   gtin-watch'
 * ```
 */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<unknown>>): string {
  const cells = [[...headers], ...rows.map((row) => headers.map((_, index) => cellText(row[index])))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells as [string[], ...string[][]];
  return [line(head), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n');
}

/**
 * Formats an object as a two-column FIELD / VALUE table (nested values as compact JSON).
 *
 * @example
 * ```ts
 * formatRecord({ name: 'demo', version: '1' }); // 'FIELD    VALUE\n-------  -----\nname     demo\nversion  1'
 * ```
 */
export function formatRecord(record: Record<string, unknown>): string {
  return formatTable(
    ['FIELD', 'VALUE'],
    Object.entries(record).map(([key, value]) => [key, value]),
  );
}

/** One line of a cell: strings as they are, other values as compact JSON, cut at {@link MAX_CELL_WIDTH}. */
function cellText(value: unknown): string {
  const text =
    value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  // One line per row; other controls are escaped at the output edge (terminal.ts), not here.
  const flat = text.replace(/[ \t\n\r\f\v]+/g, ' ');
  return flat.length > MAX_CELL_WIDTH ? `${flat.slice(0, MAX_CELL_WIDTH - 1)}…` : flat;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/**
 * A byte count for people: `512 B`, `1.5 KiB`, `27.0 MiB`.
 *
 * @example
 * ```ts
 * formatBytes(1536); // '1.5 KiB'
 * ```
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/**
 * A transfer rate: bytes per second over `elapsedMs`, e.g. `3.2 MiB/s`; `-` before any time passed.
 *
 * @example
 * ```ts
 * formatRate(2 * 1024 * 1024, 1000); // '2.0 MiB/s'
 * ```
 */
export function formatRate(bytes: number, elapsedMs: number): string {
  if (elapsedMs <= 0) return '-';
  return `${formatBytes(Math.round((bytes * 1000) / elapsedMs))}/s`;
}

/** A duration for people: `850 ms`, `12.3 s`, `4 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** An ISO date-time or epoch milliseconds as `2026-01-05 09:00:00Z`; other values as they are. */
export function formatTime(value: unknown): string {
  const date = typeof value === 'number' || typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) return value === undefined ? '' : String(value);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}
