import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../packages/bridge/src/core/index.ts';
import {
  attributeOf,
  child,
  children,
  parseMessagingAsset,
  textOf,
  XmlParseError,
} from '../../packages/bridge/src/xml/index.ts';

function parseError(xml: string, options?: Parameters<typeof parseMessagingAsset>[1]): XmlParseError {
  try {
    parseMessagingAsset(xml, options);
  } catch (error) {
    if (error instanceof XmlParseError) return error;
    throw error;
  }
  throw new Error('expected an XmlParseError, but the document parsed');
}

const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

describe('parseMessagingAsset', () => {
  it('keeps every value a string, with leading zeros', () => {
    // prepare
    const xml = '<item><gtin>00614141123452</gtin><qty>1.50</qty><flag>true</flag><code a="007"/></item>';

    // act
    const doc = parseMessagingAsset(xml);

    // assess
    expect(textOf(child(doc.root, 'gtin'))).toBe('00614141123452');
    expect(textOf(child(doc.root, 'qty'))).toBe('1.50');
    expect(textOf(child(doc.root, 'flag'))).toBe('true');
    expect(attributeOf(child(doc.root, 'code'), 'a')).toBe('007');
  });

  it('keeps any digit string exactly, whatever its zeros', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,20}$/), (digits) => {
        const doc = parseMessagingAsset(`<r><gln>${digits}</gln><x v="${digits}"/></r>`);
        expect(textOf(child(doc.root, 'gln'))).toBe(digits);
        expect(attributeOf(child(doc.root, 'x'), 'v')).toBe(digits);
      }),
    );
  });

  it('gives an element the same shape whether it occurs once or twice', () => {
    // prepare
    const once = '<list><entry><v>1</v></entry></list>';
    const twice = '<list><entry><v>1</v></entry><entry><v>2</v></entry></list>';

    // act
    const one = parseMessagingAsset(once);
    const two = parseMessagingAsset(twice);

    // assess
    expect(one.root).toEqual({ entry: [{ v: [{ '#text': '1' }] }] });
    expect(two.root).toEqual({ entry: [{ v: [{ '#text': '1' }] }, { v: [{ '#text': '2' }] }] });
  });

  it('puts attributes under @_, text under #text, and leaves #text out of empty elements', () => {
    // act
    const doc = parseMessagingAsset(
      '<r><empty/><pair></pair><attr k="v"/><mixed a="1">head<b>x</b>tail</mixed></r>',
    );

    // assess
    expect(doc.root).toEqual({
      empty: [{}],
      pair: [{}],
      attr: [{ '@_k': 'v' }],
      mixed: [{ '@_a': '1', '#text': 'headtail', b: [{ '#text': 'x' }] }],
    });
  });

  it('parses the same document identically whatever prefix its namespace has', () => {
    // prepare
    const long =
      '<catalogue_item_confirmation:m xmlns:catalogue_item_confirmation="urn:gs1:gdsn:catalogue_item_confirmation:xsd:3"><catalogue_item_confirmation:c><gtin>01</gtin></catalogue_item_confirmation:c></catalogue_item_confirmation:m>';
    const short =
      '<cic:m xmlns:cic="urn:gs1:gdsn:catalogue_item_confirmation:xsd:3"><cic:c><gtin>01</gtin></cic:c></cic:m>';
    const unprefixed = '<m xmlns="urn:gs1:gdsn:catalogue_item_confirmation:xsd:3"><c><gtin>01</gtin></c></m>';

    // act
    const docs = [long, short, unprefixed].map((xml) => parseMessagingAsset(xml));

    // assess
    for (const doc of docs) {
      expect(doc.rootName).toBe('m');
      expect(doc.rootNamespace).toBe('urn:gs1:gdsn:catalogue_item_confirmation:xsd:3');
      expect(doc.root).toEqual({ c: [{ gtin: [{ '#text': '01' }] }] });
    }
    expect(docs[1]?.namespaces).toEqual({ cic: 'urn:gs1:gdsn:catalogue_item_confirmation:xsd:3' });
    expect(docs[2]?.namespaces).toEqual({ '': 'urn:gs1:gdsn:catalogue_item_confirmation:xsd:3' });
  });

  it('keeps namespace declarations of nested elements, and ignores xmlns text in comments and CDATA', () => {
    // prepare
    const xml =
      '<a:r xmlns:a="urn:a"><!-- <x xmlns:c="urn:comment"> --><b:i xmlns:b="urn:b" b:attr="1"><![CDATA[<y xmlns:d="urn:cdata">]]></b:i></a:r>';

    // act
    const doc = parseMessagingAsset(xml);

    // assess
    expect(doc.namespaces).toEqual({ a: 'urn:a', b: 'urn:b' });
    expect(child(doc.root, 'i')).toEqual({ '@_attr': '1', '#text': '<y xmlns:d="urn:cdata">' });
  });

  it('decodes the predefined entities and character references, in text and attributes', () => {
    // act
    const doc = parseMessagingAsset(
      '<r t="a &amp; b &lt;c&gt;">0,5 l &amp; Pfand &quot;x&quot; &apos;y&apos; &lt;tag&gt; &#x2013; &#233;</r>',
    );

    // assess
    expect(textOf(doc.root)).toBe('0,5 l & Pfand "x" \'y\' <tag> – é');
    expect(attributeOf(doc.root, 't')).toBe('a & b <c>');
  });

  it('keeps undeclared entity references and forbidden character references as literal text', () => {
    // act
    const doc = parseMessagingAsset('<r>a&nbsp;b &#0; &#xD800;</r>');

    // assess
    expect(textOf(doc.root)).toBe('a&nbsp;b &#0; &#xD800;');
  });

  it('returns escaped text exactly as it was before escaping', () => {
    const printable = fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .map((text) => text.replace(/[^\P{C}\n\t]/gu, '').trim());
    fc.assert(
      fc.property(printable, (text) => {
        const doc = parseMessagingAsset(`<r a="${escapeXml(text)}">${escapeXml(text)}</r>`);
        expect(textOf(doc.root)).toBe(text);
        expect(attributeOf(doc.root, 'a')).toBe(text);
      }),
    );
  });

  it('refuses a billion-laughs document before expanding anything', () => {
    // prepare
    const levels = Array.from(
      { length: 9 },
      (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level};`.repeat(10)}">`,
    ).join('\n');
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 "lol">\n${levels}\n]>\n<lolz>&lol9;</lolz>`;

    // act
    const error = parseError(xml);

    // assess
    expect(error.code).toBe('DOCTYPE_REFUSED');
    expect(error.line).toBe(2);
    expect(error.column).toBe(1);
    expect(error.message).toMatch(/DOCTYPE.*refused.*remove/);
  });

  it('refuses an external SYSTEM entity (XXE) without reading it', () => {
    // prepare
    const xml = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>';

    // act
    const error = parseError(xml);

    // assess
    expect(error.code).toBe('DOCTYPE_REFUSED');
    expect(error.message).not.toContain('root:');
  });

  it('accepts the word DOCTYPE inside a comment or CDATA', () => {
    // act
    const doc = parseMessagingAsset('<!-- <!DOCTYPE x> --><r><![CDATA[<!DOCTYPE y>]]></r>');

    // assess
    expect(textOf(doc.root)).toBe('<!DOCTYPE y>');
  });

  it('refuses a document above the size limit, counting UTF-8 bytes', () => {
    // prepare: 19 characters, 31 bytes
    const xml = `<r>${'ü'.repeat(12)}</r>`;

    // act
    const error = parseError(xml, { maxBytes: 30 });

    // assess
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain('31 bytes exceeds the limit of 30 bytes');
    expect(parseMessagingAsset(xml, { maxBytes: 31 }).rootName).toBe('r');
  });

  it('refuses a document above the default limit of 10 MiB', () => {
    // prepare
    const xml = `<r>${'x'.repeat(10 * 1024 * 1024)}</r>`;

    // act
    const error = parseError(xml);

    // assess
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain('limit of 10485760 bytes');
  });

  it('names the problem, line and column of malformed XML', () => {
    // act
    const error = parseError('<r>\n  <a>\n    <b>x</c>\n</r>');

    // assess
    expect(error).toBeInstanceOf(XmlParseError);
    expect(error.code).toBe('MALFORMED');
    expect(error.line).toBe(3);
    expect(error.column).toBeGreaterThan(0);
    expect(error.message).toContain("Expected closing tag 'b'");
    expect(error.message).toContain('line 3');
  });

  it.each([
    ['empty text', ''],
    ['plain text', 'not xml at all'],
    ['two roots', '<a></a><b></b>'],
    ['two self-closing roots', '<a/>\n<b/>'],
    ['a stray ampersand', '<a>fish & chips</a>'],
    ['an unclosed element', '<a><b></b>'],
  ])('refuses %s as malformed', (_label, xml) => {
    // act
    const error = parseError(xml);

    // assess
    expect(error.code).toBe('MALFORMED');
    expect(error.line).toBeGreaterThanOrEqual(1);
  });

  it('refuses nesting deeper than the limit', () => {
    // prepare
    const xml = `${'<a>'.repeat(12)}${'</a>'.repeat(12)}`;

    // act
    const error = parseError(xml, { maxDepth: 10 });

    // assess
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('deeper than 10 levels');
    expect(parseMessagingAsset(xml, { maxDepth: 20 }).rootName).toBe('a');
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => parseMessagingAsset('<a/>', { maxBytes: 0 })).toThrow(OptionError);
    expect(() => parseMessagingAsset('<a/>', { maxDepth: 1.5 })).toThrow(
      /maxDepth must be a positive integer/,
    );
  });

  it('reads missing children, text and attributes as empty', () => {
    // act
    const doc = parseMessagingAsset('<r><a/></r>');

    // assess
    expect(children(doc.root, 'missing')).toEqual([]);
    expect(child(doc.root, 'missing')).toBeUndefined();
    expect(textOf(child(doc.root, 'a'))).toBe('');
    expect(attributeOf(child(doc.root, 'a'), 'nope')).toBeUndefined();
  });
});
