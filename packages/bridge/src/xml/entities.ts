/**
 * Entity handling for messaging assets: only what XML itself defines.
 *
 * The five predefined entities (`&amp; &lt; &gt; &quot; &apos;`) and numeric character references
 * (`&#233;`, `&#xE9;`) are decoded. Nothing else is: documents with a DOCTYPE are refused before
 * parsing (see scan.ts), so no declared entity can exist, and an undeclared reference such as
 * `&nbsp;` is kept as literal text rather than failing the whole message. Character references to
 * code points XML forbids (NUL, surrogates) are kept literal too.
 */

const PREDEFINED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

const REFERENCE = /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z_][\w.-]*);/g;

/** XML 1.0 `Char` production: the code points a character reference may name. */
function isXmlChar(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

/**
 * Decodes the predefined entities and numeric character references of XML in `text`.
 *
 * @example
 * decodeXmlEntities('0,5 l &amp; Pfand &#x2013; &lt;b&gt;'); // '0,5 l & Pfand – <b>'
 */
export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (reference, body: string) => {
    if (body.startsWith('#')) {
      const hex = body[1] === 'x' || body[1] === 'X';
      const codePoint = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
      return isXmlChar(codePoint) ? String.fromCodePoint(codePoint) : reference;
    }
    return PREDEFINED[body] ?? reference;
  });
}

/**
 * The decoder handed to fast-xml-parser (`entityDecoder` option). It ignores every entity the
 * parser would register from a DOCTYPE or from `addEntity`, so only {@link decodeXmlEntities}
 * applies even if a DOCTYPE ever reached the parser.
 */
export const xmlOnlyEntityDecoder = {
  setExternalEntities(_entities: Record<string, string>): void {},
  addInputEntities(_entities: Record<string, string>): void {},
  reset(): void {},
  setXmlVersion(_version: number): void {},
  decode: decodeXmlEntities,
};
