/**
 * What the XML path gives for every fixture we have, good and hostile, recorded from the path as it
 * was before the single-pass parser (fast-xml-parser's validator, then its parser): the parsed
 * document and CIC summaries, or the error's name, code, message, line and column. The record is
 * compared as JSON text, so the order of keys in the document (the event body) is held too. One line
 * per case in __snapshots__/xml-characterization.txt.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMessagingAssetSafely } from '../../packages/bridge/src/xml/index.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const fixture = (name: string): string => readFileSync(path.join(fixtures, name), 'utf8');
const synchronised = fixture('cic-3.1-synchronised.xml');
const review = fixture('cic-3.1-review.xml');
const accepted28 = fixture('cic-2.8-state-attribute.xml');
const gdsn = { synchronised, review, accepted28 };

const billionLaughs = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 "lol">\n${Array.from(
  { length: 9 },
  (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level};`.repeat(10)}">`,
).join('\n')}\n]>\n<lolz>&lol9;</lolz>`;

/** name → [xml, options]; the GDSN fixtures and what the chaos bench and the tests make of them. */
const cases: Record<string, [string, { maxBytes?: number; maxDepth?: number }?]> = {};
for (const [name, xml] of Object.entries(gdsn)) {
  cases[`gdsn ${name}`] = [xml];
  cases[`gdsn ${name}, CRLF line ends`] = [xml.replace(/\n/g, '\r\n')];
  cases[`gdsn ${name}, byte order mark`] = [`\uFEFF${xml}`];
  cases[`gdsn ${name}, without the declaration`] = [xml.replace(/^<\?xml[^>]*>\s*/, '')];
  cases[`gdsn ${name}, cut in half`] = [xml.slice(0, Math.floor(xml.length / 2))];
  cases[`gdsn ${name}, cut before the last end tag`] = [xml.slice(0, xml.lastIndexOf('</'))];
  for (const character of ['\uFFFE', '\uFFFF', '\u0001', '\u{1F600}']) {
    const code = character.codePointAt(0)?.toString(16);
    cases[`gdsn ${name}, U+${code} before the first end tag`] = [xml.replace('</', `${character}</`)];
  }
  cases[`gdsn ${name}, one byte over maxBytes`] = [xml, { maxBytes: Buffer.byteLength(xml) - 1 }];
  cases[`gdsn ${name}, maxDepth 3`] = [xml, { maxDepth: 3 }];
  cases[`gdsn ${name}, a comment in every text`] = [xml.replace(/>([^<\s][^<]*)</g, '>$1<!-- c -->x<')];
  cases[`gdsn ${name}, tabs and newlines in attribute values`] = [
    xml.replace(/="([^"]*)"/g, '="\t$1\n x\t"'),
  ];
}
Object.assign(cases, {
  'billion laughs': [billionLaughs],
  'billion laughs, chaos bench form': [
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><lolz id="7">&lol3;</lolz>',
  ],
  'external entity (XXE)': [
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>',
  ],
  'DOCTYPE without subset': ['<!DOCTYPE r><r/>'],
  'DOCTYPE inside the root': ['<r><!DOCTYPE x></r>'],
  'DOCTYPE in a comment and CDATA': ['<!-- <!DOCTYPE x> --><r><![CDATA[<!DOCTYPE y>]]></r>'],
  'malformed with a DOCTYPE': ['<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</b>'],
  'oversized by UTF-8 bytes': [`<r>${'ü'.repeat(12)}</r>`, { maxBytes: 30 }],
  'nesting 12 with maxDepth 10': [`${'<a>'.repeat(12)}${'</a>'.repeat(12)}`, { maxDepth: 10 }],
  'nesting 11 with maxDepth 10': [`${'<a>'.repeat(11)}${'</a>'.repeat(11)}`, { maxDepth: 10 }],
  'nesting 10 with maxDepth 10': [`${'<a>'.repeat(10)}${'</a>'.repeat(10)}`, { maxDepth: 10 }],
  'self-closing leaf below the depth limit': [
    `${'<a>'.repeat(11)}<b/>${'</a>'.repeat(11)}`,
    { maxDepth: 10 },
  ],
  'nesting 101 by default': [`${'<a>'.repeat(101)}${'</a>'.repeat(101)}`],
  'nesting 102 by default': [`${'<a>'.repeat(102)}${'</a>'.repeat(102)}`],
  empty: [''],
  'only whitespace': [' \n\t'],
  'plain text': ['not xml at all'],
  'two roots': ['<a></a><b></b>'],
  'two self-closing roots': ['<a/>\n<b/>'],
  'text after the root': ['<a/>tail'],
  'text before the root': ['head<a/>'],
  'stray ampersand': ['<a>fish & chips</a>'],
  'ampersand in an attribute': ['<a v="fish & chips"/>'],
  'empty entity reference': ['<a>&;</a>'],
  'uppercase hex character reference': ['<a>&#X41;</a>'],
  'long entity name': [`<a>&${'x'.repeat(25)};</a>`],
  'unclosed element': ['<a><b></b>'],
  'mismatched end tag': ['<r>\n  <a>\n    <b>x</c>\n</r>'],
  'end tag never opened': ['<a></a></b>'],
  'end tag with attributes': ['<a></a x="1">'],
  'unquoted attribute': ['<a v=1/>'],
  'attribute without value': ['<a v/>'],
  'duplicate attribute': ['<a v="1" v="2"/>'],
  'duplicate attribute after its prefix': ['<a x:v="1" y:v="2"/>'],
  'attributes without space between': ['<a v="1"w="2"/>'],
  'unclosed attribute quote': ['<a v="1/>'],
  'space after <': ['< a/>'],
  'invalid name': ['<1a/>'],
  'unclosed comment': ['<a><!-- never'],
  'unclosed CDATA': ['<a><![CDATA[ never</a>'],
  'unclosed processing instruction': ['<a><? never</a>'],
  'declaration not at the start': ['  <?xml version="1.0"?><a/>'],
  'second declaration': ['<?xml version="1.0"?><a><?xml version="1.0"?></a>'],
  'processing instruction splitting text': ['<a> one <?pi x?> two </a>'],
  'processing instruction with a quoted ?>': ['<a><?pi v="?>"?>x</a>'],
  'comment joining text': ['<a> one <!-- c --> two </a>'],
  'CDATA kept as written': ['<a> x <![CDATA[ <b>&amp; ]]> y </a>'],
  'empty CDATA': ['<a><![CDATA[]]></a>'],
  'CDATA outside the root': ['<![CDATA[x]]><a/>'],
  'not CDATA': ['<a><![FOO[x]]></a>'],
  'mixed content': ['<r><empty/><pair></pair><attr k="v"/><mixed a="1">head<b>x</b>tail</mixed></r>'],
  'entities in text and attributes': [
    '<r t=" a &amp; b &lt;c&gt; ">0,5 l &amp; Pfand &quot;x&quot; &apos;y&apos; &lt;tag&gt; &#x2013; &#233;</r>',
  ],
  'undeclared and forbidden references': ['<r>a&nbsp;b &#0; &#xD800;</r>'],
  'character reference to a space at the edge': ['<r>&#32;x&#x20;</r>'],
  'unicode spaces at the edges': ['<r v="\u00A0x\u2028">\u00A0x\u3000</r>'],
  'CDATA end in text': ['<r>a]]>b</r>'],
  'less-than in an attribute': ['<r v="a<b"/>'],
  'greater-than in text and attribute': ['<r v="a>b">c>d</r>'],
  'namespaces: prefixes, default, nested, repeated': [
    '<a:r xmlns:a="urn:a" xmlns="urn:d"><!-- <x xmlns:c="urn:comment"> --><b:i xmlns:b="urn:b" b:attr="1" xmlns:a="urn:other"><![CDATA[<y xmlns:d="urn:cdata">]]></b:i><c xmlns="urn:e"/></a:r>',
  ],
  'namespace value with entities': ['<r xmlns:p="urn:a&amp;b" xmlns="  urn:spaced "/>'],
  'root prefix undeclared': ['<p:r><p:c/></p:r>'],
  'three-part names': ['<a:b:c x:y:z="1"><d:e:f/></a:b:c>'],
  'name starting with a colon': ['<:r :v="1"/>'],
  'xml:lang and xmlns attributes': ['<r xml:lang="de" xmlns="urn:x" xmlns:q="urn:q" xmlnsx="1"/>'],
  'element named __proto__': ['<r><__proto__><x>1</x></__proto__></r>'],
  'element named constructor': ['<r><constructor>1</constructor></r>'],
  'element named hasOwnProperty': ['<r><hasOwnProperty>1</hasOwnProperty></r>'],
  'element named toString': ['<r><toString/></r>'],
  'attribute named __proto__': ['<r __proto__="1"/>'],
  'non-ASCII names': ['<résumé><ñ attr-é="1">x</ñ></résumé>'],
  'tab and newline inside tags': ['<r\tv="1"\n\tw = \'2\'\n/>'],
  'end tag with space': ['<r><a></a  ></r >'],
  'carriage returns in text and attributes': ['<r v="a\r\nb\rc">x\r\ny\rz</r>'],
  'carriage return in a namespace': ['<r xmlns:p="urn:\r\nx"/>'],
  'leading zeros stay': [
    '<item><gtin>00614141123452</gtin><qty>1.50</qty><flag>true</flag><code a="007"/></item>',
  ],
  'repeated children in order': ['<r><b>1</b><a>2</a><b>3</b>t<a/></r>'],
  'text and attributes order': ['<r z="1" a="2"><c/>text</r>'],
  'whitespace-only text': ['<r>  <a> </a>\n</r>'],
  'comment and PI outside the root': [
    '<?xml version="1.0"?><!-- head --><?pi x?><r/><!-- tail --><?pi y?>\n',
  ],
});

const outcome = (xml: string, options?: { maxBytes?: number; maxDepth?: number }) =>
  parseMessagingAssetSafely(xml, options);

describe('the XML path, characterised', () => {
  it('gives every fixture, good or hostile, the result recorded before the single pass', async () => {
    // act: one line per case, its name and its result as JSON
    const lines = Object.entries(cases).map(
      ([name, [xml, options]]) => `${JSON.stringify(name)}: ${JSON.stringify(outcome(xml, options))}`,
    );

    // assess
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__snapshots__/xml-characterization.txt');
  });
});
