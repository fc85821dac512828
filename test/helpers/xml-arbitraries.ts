/**
 * Arbitraries of messaging-asset XML for the property tests: documents built from pieces chosen to
 * reach the places where the parsers have rules of their own, and mutations of them (a piece
 * inserted, a character removed, the text cut off) that reach the general path's errors.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(mutatedXml, (xml) => { parseMessagingAssetSafely(xml); }));
 * ```
 */
import fc from 'fast-check';

// Pieces chosen to reach the places where the general path has rules of its own: prefixes, names
// that are object properties, references, spaces at the edges of text and values, line ends.
const names = fc.constantFrom(
  'a:',
  'constructor',
  'a',
  'b',
  'gtin',
  'x:a',
  'y:a',
  'cic:c',
  'a:b:c',
  'é',
  'toString',
  ':a',
  'a-1.b',
);
const attributeNames = fc.constantFrom(
  'v',
  'w',
  'x:v',
  'y:v',
  'xmlns',
  'xmlns:x',
  'xmlns:cic',
  'xml:lang',
  'xmlnsv',
);
const characters = fc.constantFrom(
  'x',
  '0',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '&amp;',
  '&lt;',
  '&#32;',
  '&#x2013;',
  '&nbsp;',
  '&',
  '&#X41;',
  '>',
  ']]>',
  '"',
  "'",
  'ü',
  '\u00A0',
  '\u3000',
  '\uFFFE',
  '😀',
);
const text = fc.array(characters, { maxLength: 6 }).map((parts) => parts.join(''));
const quoted = fc
  .tuple(
    fc.constantFrom('"', "'"),
    fc.array(fc.constantFrom('x', ' ', '\t', '\n', '&amp;', '&', '<', '>', 'ü'), { maxLength: 4 }),
  )
  .map(([quote, parts]) => `${quote}${parts.join('').replaceAll(quote, '')}${quote}`);
const space = fc.constantFrom(' ', '  ', '\n', '\t', '\r\n');
const attribute = fc
  .tuple(space, attributeNames, fc.constantFrom('=', ' = '), quoted)
  .map(([before, name, equals, value]) => `${before}${name}${equals}${value}`);

export const { element: xmlElement } = fc.letrec<{ element: string; content: string }>((tie) => ({
  element: fc
    .tuple(
      names,
      fc.array(attribute, { maxLength: 3 }),
      fc.constantFrom('', ' ', '\n'),
      fc.option(tie('content'), { nil: undefined }),
    )
    .map(([name, attributes, close, content]) =>
      content === undefined
        ? `<${name}${attributes.join('')}${close}/>`
        : `<${name}${attributes.join('')}${close}>${content}</${name}${close}>`,
    ),
  content: fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: text },
        { weight: 3, arbitrary: tie('element') },
        { weight: 1, arbitrary: text.map((t) => `<!--${t.replaceAll('-->', '')}-->`) },
        { weight: 1, arbitrary: text.map((t) => `<![CDATA[${t.replaceAll(']]>', '')}]]>`) },
        { weight: 1, arbitrary: fc.constantFrom('<?pi x?>', '<?pi v="?>"?>', '<?xml version="1.0"?>') },
      ),
      { maxLength: 4 },
    )
    .map((parts) => parts.join('')),
}));

const prolog = fc.constantFrom(
  '',
  '<?xml version="1.0" encoding="UTF-8"?>\n',
  '\uFEFF',
  '<!-- c -->',
  ' <?pi x?>',
);
export const xmlDocument = fc
  .tuple(prolog, xmlElement, fc.constantFrom('', '\n', ' tail', '<!-- c -->', '<a/>'))
  .map((parts) => parts.join(''));

/** A document, or one with a piece inserted, removed or cut off: the general path's errors are reached too. */
export const mutatedXml = fc.oneof(
  xmlDocument,
  fc
    .tuple(
      xmlDocument,
      fc.nat(),
      fc.constantFrom('<', '>', '&', '/', '"', '<!DOCTYPE a>', '<?xml version="1.0"?>', '</a>', '<b>'),
    )
    .map(
      ([xml, at, piece]) => xml.slice(0, at % (xml.length + 1)) + piece + xml.slice(at % (xml.length + 1)),
    ),
  fc
    .tuple(xmlDocument, fc.nat())
    .map(([xml, at]) => xml.slice(0, at % (xml.length + 1)) + xml.slice((at % (xml.length + 1)) + 1)),
  fc.tuple(xmlDocument, fc.nat()).map(([xml, at]) => xml.slice(0, at % (xml.length + 1))),
);
