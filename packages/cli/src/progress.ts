/**
 * Upload progress on stderr: on a terminal a bar redrawn in place with bytes and rate; otherwise plain
 * lines (a start line, a line at most every 10 s for long uploads, and a result line), so logs stay readable.
 */
import { Transform } from 'node:stream';
import { formatBytes, formatDuration, formatRate } from './output.ts';
import { shownText } from './terminal.ts';

/** How often the bar is redrawn at most. */
const REDRAW_INTERVAL_MS = 100;
/** How often a plain progress line is written at most. */
const PLAIN_INTERVAL_MS = 10_000;

/** The state of one transfer, as a progress line shows it. */
export interface TransferState {
  name: string;
  sent: number;
  total: number;
  elapsedMs: number;
}

/**
 * One line of the progress bar, fitted to `width` columns.
 *
 * @example
 * ```ts
 * renderProgressBar({ name: 'items.csv', sent: 512, total: 1024, elapsedMs: 1000 }, 60);
 * // 'items.csv [##########----------]  50% 512 B / 1.0 KiB 512 B/s'
 * ```
 */
export function renderProgressBar(state: TransferState, width: number): string {
  const fraction = state.total > 0 ? Math.min(1, state.sent / state.total) : 1;
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const numbers = `${percent} ${formatBytes(state.sent)} / ${formatBytes(state.total)} ${formatRate(state.sent, state.elapsedMs)}`;
  const barWidth = Math.max(10, Math.min(30, width - numbers.length - 14));
  const filled = Math.round(fraction * barWidth);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]`;
  const room = Math.max(8, width - bar.length - numbers.length - 3);
  const name = state.name.length > room ? `…${state.name.slice(-(room - 1))}` : state.name;
  return `${name} ${bar} ${numbers}`;
}

/** A plain progress line for logs, e.g. `items.csv: 40% (400.0 MiB of 1.0 GiB, 22.0 MiB/s)`. */
export function renderProgressLine(state: TransferState): string {
  const percent = state.total > 0 ? Math.floor((state.sent / state.total) * 100) : 100;
  return `${state.name}: ${percent}% (${formatBytes(state.sent)} of ${formatBytes(state.total)}, ${formatRate(state.sent, state.elapsedMs)})`;
}

/** The progress of one file. */
export interface FileProgress {
  /** A stream that passes bytes through unchanged and counts them. */
  readonly counter: Transform;
  /** Ends the line with the outcome, e.g. `3 entries`. */
  done(note?: string): void;
  /** Ends the line after a failure (the error itself is reported by the caller). */
  failed(): void;
}

export interface ProgressOptions {
  /** Where progress goes (stderr). */
  stream: NodeJS.WritableStream;
  /** Redraw a bar in place (a terminal) or write plain lines. */
  interactive: boolean;
  /** Terminal width. Default 80. */
  columns?: number;
  /** Clock, injectable for tests. Default Date.now. */
  now?: () => number;
}

/**
 * Reports the progress of transfers, one at a time.
 *
 * @example
 * ```ts
 * const progress = new TransferProgress({ stream: process.stderr, interactive: process.stderr.isTTY === true });
 * const file = progress.start('items.csv', size);
 * await upload(createReadStream(path).pipe(file.counter));
 * file.done('1 entry');
 * ```
 */
export class TransferProgress {
  readonly #stream: NodeJS.WritableStream;
  readonly #interactive: boolean;
  readonly #columns: number;
  readonly #now: () => number;

  constructor(options: ProgressOptions) {
    this.#stream = options.stream;
    this.#interactive = options.interactive;
    this.#columns = options.columns ?? 80;
    this.#now = options.now ?? Date.now;
  }

  /** Starts reporting a transfer of `total` bytes named `name`. */
  start(fileName: string, total: number): FileProgress {
    // The output edge's escaping (terminal.ts) for what comes from outside; the bar's own \r and
    // erase-line are the only controls written.
    const name = shownText(fileName);
    const started = this.#now();
    let sent = 0;
    let lastShown = Number.NEGATIVE_INFINITY;
    let finished = false;
    const state = (): TransferState => ({ name, sent, total, elapsedMs: this.#now() - started });
    const draw = () => this.#stream.write(`\r${renderProgressBar(state(), this.#columns - 1)}\x1b[K`);
    if (this.#interactive) draw();
    else this.#stream.write(`${name}: uploading ${formatBytes(total)}\n`);
    lastShown = this.#now();
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        sent += chunk.length;
        const now = this.#now();
        if (this.#interactive && now - lastShown >= REDRAW_INTERVAL_MS) {
          lastShown = now;
          draw();
        } else if (!this.#interactive && now - lastShown >= PLAIN_INTERVAL_MS) {
          lastShown = now;
          this.#stream.write(`${renderProgressLine(state())}\n`);
        }
        callback(null, chunk);
      },
    });
    const finish = (outcome: string) => {
      if (finished) return;
      finished = true;
      if (this.#interactive) {
        draw();
        this.#stream.write(`  ${shownText(outcome)}\n`);
        return;
      }
      this.#stream.write(`${name}: ${shownText(outcome)}\n`);
    };
    return {
      counter,
      done: (note) => {
        const { elapsedMs } = state();
        const summary = `${formatBytes(sent)} in ${formatDuration(elapsedMs)} (${formatRate(sent, elapsedMs)})`;
        finish(this.#interactive ? (note ?? 'done') : `uploaded ${summary}${note ? `, ${note}` : ''}`);
      },
      failed: () => finish('failed'),
    };
  }
}
