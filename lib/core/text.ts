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
