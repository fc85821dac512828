/**
 * HTML written only through {@link html}: every value put into a template is escaped unless it is
 * itself {@link Html} built the same way, so a string from outside (a recipient's reason, an
 * endpoint's answer, a key) can only ever be shown as text. Control bytes and bidirectional
 * overrides are shown as visible escapes (`\u001b`), so they can neither hide nor reorder text.
 */

/** Markup known to be safe: built by {@link html} from escaped values. */
export class Html {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** C0 and C1 controls but tab and line feed, DEL, and the bidirectional embedding, override and isolate marks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it exists to find
const UNSHOWABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text as HTML that shows exactly these characters.
 *
 * @example
 * ```ts
 * escapeText('<b>\u001b'); // '&lt;b&gt;\\u001b'
 * ```
 */
export function escapeText(text: string): string {
  return text
    .replace(UNSHOWABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[&<>"']/g, (char) => ENTITIES[char] as string);
}

function piece(value: unknown): string {
  if (value instanceof Html) return value.toString();
  if (value === undefined || value === null || value === false) return '';
  if (Array.isArray(value)) return value.map(piece).join('');
  return escapeText(String(value));
}

/**
 * A template whose values are escaped (arrays joined, `undefined`/`null`/`false` left out).
 *
 * @example
 * ```ts
 * const row = html`<td>${entry.reason}</td>`;
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, at) => {
    out += piece(value) + (strings[at + 1] ?? '');
  });
  return new Html(out);
}

/** A query string from parameters, leaving out empty ones (for links that keep the filters). */
export function query(parameters: Record<string, string | number | readonly string[] | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    for (const each of Array.isArray(value) ? value : [value]) {
      if (each !== undefined && each !== '') search.append(name, String(each));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
