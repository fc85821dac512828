import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_XML_ELEMENTS } from '../../packages/bridge/src/xml/limits.ts';
import { parseInOnePass } from '../../packages/bridge/src/xml/one-pass.ts';
import { parseWithFastXmlParser } from '../../packages/bridge/src/xml/parse.ts';
import { xmlElement as element, mutatedXml as mutated } from '../helpers/xml-arbitraries.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
/** Every GDSN fixture (each type and version, the real-world variety), the one with bytes after its root aside. */
const gdsn = readdirSync(fixtures)
  .filter((name) => name.endsWith('.xml') && name !== 'cic-3.1-trailing-bytes.xml')
  .map((name) => readFileSync(path.join(fixtures, name), 'utf8'));

/** The general path's answer as JSON text (key order included), or its error's code and message. */
function general(xml: string, maxDepth: number): string {
  try {
    return JSON.stringify(parseWithFastXmlParser(xml, maxDepth));
  } catch (error) {
    return `error ${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
}

describe('parseInOnePass', () => {
  it('reads the GDSN fixtures itself, as the general path does (a BOM with CRLF goes to the general path)', () => {
    for (const xml of gdsn) {
      // act
      const document = parseInOnePass(xml, 100);

      // assess
      if (xml.startsWith('\uFEFF')) expect(document).toBeUndefined();
      else expect(document).toBeDefined();
      if (document !== undefined) expect(JSON.stringify(document)).toBe(general(xml, 100));
    }
  });

  it('gives exactly what the general path gives whenever it answers, for any document', () => {
    fc.assert(
      fc.property(mutated, fc.constantFrom(3, 100), (xml, maxDepth) => {
        const document = parseInOnePass(xml, maxDepth);
        if (document !== undefined) expect(JSON.stringify(document)).toBe(general(xml, maxDepth));
      }),
      { numRuns: 3000 },
    );
  });

  it('answers most well-formed documents itself', () => {
    // act
    const samples = fc.sample(element, { numRuns: 500, seed: 14 });
    const answered = samples.filter((xml) => parseInOnePass(xml, 100) !== undefined);

    // assess: the rest (odd names, stray ampersands, ...) go to the general path
    expect(answered.length).toBeGreaterThan(samples.length / 4);
  });

  it('reads an element with 199,999 children (the element limit with its root), as the general path now does too', () => {
    // prepare: the general path used to overflow the stack on a list this long
    const xml = `<r>${'<b>1</b>'.repeat(DEFAULT_MAX_XML_ELEMENTS - 1)}</r>`;

    // act
    const document = parseInOnePass(xml, 100);

    // assess
    expect(document?.root.b).toHaveLength(DEFAULT_MAX_XML_ELEMENTS - 1);
    expect(JSON.stringify(document)).toBe(general(xml, 100));
  });

  it('reads a million pieces of text between processing instructions and comments', () => {
    // prepare: each piece once made the one pass look for `&` up to the end of the document
    const xml = `<r>${'a<?p?>b<!---->'.repeat(500_000)}&amp;</r>`;

    // act
    const document = parseInOnePass(xml, 100);

    // assess
    expect(document?.root['#text']).toHaveLength(1_000_001);
  });

  it.each([
    ['a DOCTYPE', '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'],
    ['malformed XML', '<a><b></a>'],
    ['a stray ampersand', '<a>fish & chips</a>'],
    ['a byte order mark', '\uFEFF<a/>'],
    ['an element named like an object property', '<r><constructor/></r>'],
    ['nesting deeper than the limit', '<a><a><a><a></a></a></a></a>'],
  ])('leaves %s to the general path', (_label, xml) => {
    expect(parseInOnePass(xml, 3)).toBeUndefined();
  });
});
