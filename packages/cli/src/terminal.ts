/**
 * The one escaping step between the commands and a terminal. Everything `pds` (and the local
 * commands: `npm start`, `drop`, `events`) writes as text passes through here at the output edge, so
 * no formatter has to remember it: bytes from outside (an endpoint's answer, ZIP member names, CIC
 * states, GLNs, S3 keys) are shown, never acted on. Control characters (C0 except line feed and tab,
 * DEL, C1, and so every escape sequence's ESC/CSI/OSC) and bidirectional overrides are written as
 * JSON-style escapes (`\u001b`, `\r`, `\u202e`): readable on a terminal, and a JSON line stays valid
 * JSON with the same meaning, so the same step serves text and JSON output.
 */

/**
 * What a terminal acts on instead of showing. Line feed and tab lay text out and are kept, and so is
 * a carriage return just before a line feed (CRLF text such as XML); a lone one, which would return to
 * the start of the line and overwrite it, is escaped.
 */
const TERMINAL_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The escapes JSON names; every other control becomes `\uXXXX`. */
const NAMED: Record<string, string> = { '\r': '\\r', '\b': '\\b', '\f': '\\f' };

/**
 * `text` with its line feeds and tabs kept and every other control character escaped.
 *
 * @example
 * ```ts
 * shownText('ok\n\x1b]0;owned\x07'); // 'ok\n\\u001b]0;owned\\u0007'
 * ```
 */
export function shownText(text: string): string {
  return text.replace(
    TERMINAL_CONTROL,
    (char) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * `value` as indented JSON through the same step: JSON escapes C0 itself; DEL, C1 and bidi overrides,
 * which it leaves raw, become `\uXXXX`. A parser reads exactly the same document.
 *
 * @example
 * ```ts
 * shownJson({ state: '\u009b31m' }); // '{\n  "state": "\\u009b31m"\n}'
 * ```
 */
export function shownJson(value: unknown): string {
  return shownText(JSON.stringify(value, null, 2) ?? 'null');
}
