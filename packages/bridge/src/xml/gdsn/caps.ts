/**
 * The caps of a GDSN summary. Everything a summary lists or quotes was written by a trading partner,
 * so each list and each text has a cap, and what a cap leaves out is counted in the summary's
 * `truncated` marker: a consumer always knows the summary is partial and by how much. The whole
 * message is still in the event's `document` (or behind its claim-check pointer).
 *
 * The caps are generous for real traffic (a data pool's response names one message's transactions;
 * a confirmation message carries a few hundred confirmations at most) and keep the worst case of a
 * summary at a few hundred KiB whatever the message, so one partner message can never make its event
 * too large to serialise or the poller run out of memory (issue 38, the N×N response).
 */
import { boundedText } from '../../core/index.ts';

/** The caps, documented in docs/events.md ("What a GDSN summary carries, and its caps"). */
export const GDSN_SUMMARY_CAPS = {
  /** Items a summary lists (`items`, and the `cic` summaries of a confirmation message). */
  items: 1000,
  /** Errors of a response (`errors`), across every response and exception of the message. */
  errors: 200,
  /** Transactions a response answers (`transactions`). */
  transactions: 200,
  /** GTINs listed on one error (its own text, its attribute exception). */
  gtinsPerError: 10,
  /** Recipients of one withdrawn item (`recipientGlns`). */
  recipients: 100,
  /** Statuses of one confirmation, and descriptions of one status. */
  statuses: 200,
  /** Characters of any text a partner wrote: descriptions, reasons, names (the schemas' own 1,000). */
  text: 1000,
} as const;

/** The end `boundedText` writes on a text it cut. */
const CUT_END = /… \(\d+ more characters left out\)$/;

/** A text this cap already cut (a summary built from another, e.g. a CIC's items): not cut twice. */
function isCut(text: string): boolean {
  const end = CUT_END.exec(text);
  return end !== null && end.index <= GDSN_SUMMARY_CAPS.text;
}

/** What the caps left out, by kind: the summary's `truncated` marker. */
export interface GdsnTruncation {
  /** Items left out (`items`, `cic`). */
  items?: number;
  errors?: number;
  transactions?: number;
  /** GTINs left out of errors' `gtins`, all errors together. */
  gtins?: number;
  /** Recipients left out of items' `recipientGlns`. */
  recipients?: number;
  /** Statuses, descriptions and corrective actions left out of confirmations. */
  statuses?: number;
  /** Texts cut to `GDSN_SUMMARY_CAPS.text` characters (each ends with "… (N more characters left out)"). */
  texts?: number;
}

/**
 * Counts what the caps leave out while one summary is built. One per summary, passed down to every
 * reader, so the count is complete whatever the nesting.
 */
export class Truncation {
  readonly #left: GdsnTruncation = {};

  /** The first `max` of `values`; the rest is counted under `kind`. */
  take<T>(values: readonly T[], max: number, kind: keyof GdsnTruncation): T[] {
    if (values.length <= max) return values as T[];
    this.count(kind, values.length - max);
    return values.slice(0, max);
  }

  /** Counts `n` entries of `kind` left out. */
  count(kind: keyof GdsnTruncation, n: number): void {
    if (n > 0) this.#left[kind] = (this.#left[kind] ?? 0) + n;
  }

  /** `text` within the text cap (`undefined` stays so). */
  text(text: string): string;
  text(text: string | undefined): string | undefined;
  text(text: string | undefined): string | undefined {
    if (text === undefined || text.length <= GDSN_SUMMARY_CAPS.text || isCut(text)) return text;
    this.count('texts', 1);
    return boundedText(text, GDSN_SUMMARY_CAPS.text);
  }

  /** The marker, or `undefined` when nothing was left out. */
  marker(): GdsnTruncation | undefined {
    return Object.keys(this.#left).length === 0 ? undefined : { ...this.#left };
  }
}
