/**
 * Error text the bridge passes on (into an event, a log line, an API answer, a progress record) is
 * bounded: a message built from outside input (a validator listing every unclosed tag, an answer
 * quoted whole) would otherwise grow with that input, up to megabytes in one event.
 */

/** Characters of error text kept by default; longer text is cut and says how much was left out. */
export const MAX_ERROR_TEXT = 2000;

/**
 * `text` when it has at most `max` characters; otherwise its first `max` characters followed by
 * `… (N more characters left out)`. A surrogate pair is never cut in half.
 *
 * @example
 * ```ts
 * boundedText('x'.repeat(5000), 10); // 'xxxxxxxxxx… (4990 more characters left out)'
 * ```
 */
export function boundedText(text: string, max = MAX_ERROR_TEXT): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} more characters left out)`;
}

/** Characters a terminal acts on instead of showing: C0 and C1 controls, DEL, bidirectional overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const TERMINAL_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` safe to print on a terminal: every control character written as an escape (`\n`, `\r`,
 * `\t`, `\x1b`, `\u202e`), so data from outside (PDS answers, S3 keys, review comments) cannot move
 * the cursor, change the window title, ring the bell or spoof a line. For text views only: JSON
 * output escapes controls itself and is left as it is.
 *
 * @example
 * terminalText('a\u001b]0;owned\u0007b'); // 'a\\x1b]0;owned\\x07b'
 */
export function terminalText(text: string): string {
  return text.replace(
    TERMINAL_CONTROL,
    (char) =>
      NAMED_ESCAPES[char] ??
      (char.charCodeAt(0) <= 0xff
        ? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`
        : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
