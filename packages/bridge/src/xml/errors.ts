/**
 * Why a messaging asset could not be turned into a document.
 *
 * - `TOO_LARGE`: the text exceeds the configured size limit (checked before any parsing).
 * - `MALFORMED`: the text is not well-formed XML (line and column point at the problem).
 * - `DOCTYPE_REFUSED`: the document declares a DOCTYPE; refused so that no entity is ever expanded.
 * - `LIMIT_EXCEEDED`: a structural limit of the parser was hit (for example the nesting depth).
 * - `NAME_REFUSED`: an element's local name is a property of `Object.prototype` (`constructor`,
 *   `toString`, `__proto__`, …), which the document's plain objects cannot hold as a key.
 *
 * Messages are bounded (packages/bridge/src/core `boundedText`): a validator message listing every unclosed tag
 * would otherwise grow with the document.
 */
import { BridgeError, boundedText } from '../core/index.ts';

export type XmlParseErrorCode =
  | 'TOO_LARGE'
  | 'MALFORMED'
  | 'DOCTYPE_REFUSED'
  | 'LIMIT_EXCEEDED'
  | 'NAME_REFUSED';

/** Plain, JSON-safe description of a parse failure, as events carry it. */
export interface XmlErrorInfo {
  name: string;
  code?: string;
  message: string;
  line?: number;
  column?: number;
}

/**
 * A messaging asset that is not acceptable XML. The message names the problem and what to do;
 * `line` and `column` (1-based) are set when the problem has a position.
 *
 * @example
 * try { parseMessagingAsset('<a><b></a>'); } catch (error) {
 *   if (error instanceof XmlParseError) show(error.code, error.line, error.column);
 * }
 */
export class XmlParseError extends BridgeError {
  declare readonly code: XmlParseErrorCode;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(
    code: XmlParseErrorCode,
    message: string,
    position?: { line?: number | undefined; column?: number | undefined },
    options?: ErrorOptions,
  ) {
    // Not retryable: the same document fails the same way.
    super(code, boundedText(message), { ...options, retryable: false });
    this.name = 'XmlParseError';
    this.line = position?.line;
    this.column = position?.column;
  }

  /** The JSON-safe form used in events (`parseError`). */
  toInfo(): XmlErrorInfo {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      ...(this.line === undefined ? {} : { line: this.line }),
      ...(this.column === undefined ? {} : { column: this.column }),
    };
  }
}

/** 1-based line and column of a character offset, counting `\n` as the line break. */
export function positionOf(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: index - lineStart + 1 };
}
