/**
 * Property tier (issue 21): messaging-asset XML from trading partners, through both parsers, the CIC
 * summariser and the poller's event. Budgets and replay: test/helpers/property.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeEvent } from '../../packages/bridge/src/events/index.ts';
import { messagingAssetEvent, reviewEvent } from '../../packages/bridge/src/polling/events.ts';
import {
  parseMessagingAsset,
  parseMessagingAssetSafely,
  summariseCatalogueItemConfirmation,
  summariseGdsnMessage,
  XmlParseError,
} from '../../packages/bridge/src/xml/index.ts';
import { parseInOnePass } from '../../packages/bridge/src/xml/one-pass.ts';
import { parseWithFastXmlParser } from '../../packages/bridge/src/xml/parse.ts';
import { CONSUMER_ERROR_CODES } from '../../packages/consumer/src/index.ts';
import { createEventReader } from '../../packages/consumer/src/reader.ts';
import { holds, hostileString, withinTimeBudget } from '../helpers/property.ts';
import { mutatedXml } from '../helpers/xml-arbitraries.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
/** The fixtures cut at every character; the others are cut around every markup boundary (time). */
const EXHAUSTIVE = ['cic-3.1-synchronised.xml', 'cic-3.1-review.xml', 'cic-2.8-state-attribute.xml'];
/** Every GDSN fixture (each type and version, the real-world variety), the one with bytes after its root aside. */
const gdsn = [
  ...EXHAUSTIVE,
  ...readdirSync(fixtures).filter(
    (name) => name.endsWith('.xml') && name !== 'cic-3.1-trailing-bytes.xml' && !EXHAUSTIVE.includes(name),
  ),
].map((name) => readFileSync(path.join(fixtures, name), 'utf8'));

/** Every end position, or those next to a `<`, `>`, `&`, `"` or line break (where parsers decide). */
function cutsOf(xml: string, everyCharacter: boolean): number[] {
  if (everyCharacter) return Array.from({ length: xml.length + 1 }, (_, end) => end);
  const cuts = new Set<number>([0, xml.length]);
  for (let at = 0; at < xml.length; at++) {
    if ('<>&"\r\n'.includes(xml[at] as string)) for (const end of [at - 1, at, at + 1, at + 2]) cuts.add(end);
  }
  return [...cuts].filter((end) => end >= 0 && end <= xml.length);
}
const XML_ERROR_CODES = ['TOO_LARGE', 'MALFORMED', 'DOCTYPE_REFUSED', 'LIMIT_EXCEEDED', 'NAME_REFUSED'];
/** The bound on error text (packages/bridge/src/core MAX_ERROR_TEXT) and the words that say how much was cut. */
const MAX_MESSAGE = 2000 + 60;

/** A GDSN fixture with a piece inserted, a stretch removed, a value replaced, or cut off. */
const mutatedFixture = fc.oneof(
  fc.tuple(fc.constantFrom(...gdsn), fc.nat()).map(([xml, at]) => xml.slice(0, at % (xml.length + 1))),
  fc
    .tuple(fc.constantFrom(...gdsn), fc.nat(), fc.nat({ max: 40 }))
    .map(([xml, at, length]) => xml.slice(0, at % xml.length) + xml.slice((at % xml.length) + length)),
  fc
    .tuple(
      fc.constantFrom(...gdsn),
      fc.nat(),
      fc.oneof(
        fc.constantFrom(
          '<',
          '</',
          '>',
          '&',
          '"',
          '<a:/>',
          '<constructor/>',
          '<!DOCTYPE x>',
          ']]>',
          '<![CDATA[',
          '\ud800',
        ),
        hostileString({ maxLength: 12 }),
      ),
    )
    .map(([xml, at, piece]) => xml.slice(0, at % xml.length) + piece + xml.slice(at % xml.length)),
  // Values the summariser reads, replaced by anything: states, codes, dates, GTINs.
  fc.tuple(fc.constantFrom(...gdsn), fc.nat(), hostileString({ maxLength: 20 })).map(([xml, at, value]) => {
    const start = xml.indexOf('>', at % xml.length) + 1;
    const end = xml.indexOf('<', start);
    if (start === 0 || end === -1) return xml;
    return xml.slice(0, start) + value.replaceAll('<', '').replaceAll('&', '') + xml.slice(end);
  }),
);
const anyXml = fc.oneof(
  { weight: 3, arbitrary: mutatedXml },
  { weight: 2, arbitrary: mutatedFixture },
  hostileString({ maxLength: 60 }),
);

/** The answer as JSON text (key order included), or the error's code. */
function answerOf(parse: () => unknown): string {
  try {
    return JSON.stringify(parse());
  } catch (error) {
    if (!(error instanceof XmlParseError)) throw error;
    return `error ${error.code}`;
  }
}

const reader = createEventReader();

describe('messaging-asset XML, property-tested', () => {
  it('no exception escapes: any text is a document or a parse error with a stable code and a bounded message, within the time budget', async () => {
    await holds(
      fc.property(anyXml, (xml) => {
        const result = withinTimeBudget(() => parseMessagingAssetSafely(xml));
        if (result.ok) {
          expect(result.document.rootName).not.toBe('');
          return;
        }
        expect(result.error.name).toBe('XmlParseError');
        expect(XML_ERROR_CODES).toContain(result.error.code);
        expect(result.error.message.length).toBeLessThanOrEqual(MAX_MESSAGE);
      }),
      { runs: 1500 },
    );
  });

  it('differential: whenever the one pass answers, the general path (fast-xml-parser) gives the same document, key order included', async () => {
    await holds(
      fc.property(anyXml, fc.constantFrom(3, 100), (xml, maxDepth) => {
        const document = parseInOnePass(xml, maxDepth);
        if (document === undefined) return;
        expect(JSON.stringify(document)).toBe(answerOf(() => parseWithFastXmlParser(xml, maxDepth)));
      }),
      { runs: 1500 },
    );
  });

  it('differential: the parser as the poller calls it agrees with the general path on every input, document or error code', async () => {
    await holds(
      fc.property(anyXml, (xml) => {
        expect(answerOf(() => parseMessagingAsset(xml))).toBe(
          answerOf(() => parseWithFastXmlParser(xml, 100)),
        );
      }),
      { runs: 1000 },
    );
  });

  it('differential, exhaustively: on every truncation of every GDSN fixture the parser agrees with the general path, document or error code', () => {
    const disagreements: string[] = [];
    gdsn.forEach((xml, fixture) => {
      for (const end of cutsOf(xml, fixture < EXHAUSTIVE.length)) {
        const cut = xml.slice(0, end);
        if (answerOf(() => parseMessagingAsset(cut)) !== answerOf(() => parseWithFastXmlParser(cut, 100))) {
          disagreements.push(`fixture ${fixture} cut after ${end} characters`);
        }
      }
    });
    expect(disagreements).toEqual([]);
  }, 90_000); // Every fixture cut at every markup boundary: about 15 s alone, twice that on a loaded machine.

  it('every fetched asset becomes an event the consumer kit reads back: its document, or a parseError with the raw XML', async () => {
    await holds(
      fc.property(anyXml, fc.integer({ min: 1, max: 2 ** 40 }), (xml, id) => {
        const event = messagingAssetEvent(
          { id, createdAt: 1767600000000, contentType: 'application/xml' },
          xml,
        );
        const read = reader.parse(serializeEvent(event));
        expect(read.data).toEqual(event.data);
        const data = event.data as { document?: unknown; parseError?: unknown; rawXml?: string };
        if (data.document === undefined) {
          expect(data.parseError).toBeDefined();
          expect(data.rawXml).toBe(xml);
        }
      }),
      { runs: 800 },
    );
  });

  it('every supplier review message becomes an event the consumer kit reads back', async () => {
    const review = {
      primaryKey: '04012345678901',
      messagingAssetId: 42,
      channelId: 'gdsn-de',
      supplierId: '4012345000009',
      reviewStatus: 'APPROVED',
      date: 1767603600000,
      supplier: 'ACME',
      reviewer: 'Retail',
      comment: '',
      messagingCreatorType: 'REVIEW',
    };
    await holds(
      fc.property(anyXml, (xml) => {
        const event = reviewEvent(review as never, '0123456789abcdef0123456789abcdef', { xml });
        expect(reader.parse(serializeEvent(event)).data).toEqual(event.data);
      }),
      { runs: 300 },
    );
  });

  it('the consumer kit refuses only with its own codes, whatever the body', async () => {
    await holds(
      fc.property(fc.oneof(hostileString({ maxLength: 80 }), fc.json()), (body) => {
        try {
          reader.parse(body);
        } catch (error) {
          expect(CONSUMER_ERROR_CODES).toContain((error as { code?: string }).code);
        }
      }),
      { runs: 300 },
    );
  });
});

describe('the CIC summariser, property-tested', () => {
  it('summarises every GDSN fixture: confirmations as CICs, every message as its type', () => {
    for (const xml of gdsn) {
      const document = parseMessagingAsset(xml);
      expect(summariseGdsnMessage(document)).toBeDefined();
      if (
        document.rootName.startsWith('catalogueItemConfirmation') ||
        xml.includes('catalogueItemConfirmationState')
      )
        expect(summariseCatalogueItemConfirmation(document)).toBeDefined();
    }
  });

  it('never throws on any mutation of the GDSN fixtures: a summary of strings, or nothing to summarise', async () => {
    await holds(
      fc.property(mutatedFixture, (xml) => {
        const parsed = parseMessagingAssetSafely(xml);
        if (!parsed.ok) return;
        const summary = withinTimeBudget(() => summariseCatalogueItemConfirmation(parsed.document));
        const gdsn = withinTimeBudget(() => summariseGdsnMessage(parsed.document));
        // JSON-safe: what the event carries is what the summarisers built.
        if (summary !== undefined) expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
        if (gdsn !== undefined) expect(JSON.parse(JSON.stringify(gdsn))).toEqual(gdsn);
      }),
      { runs: 1000 },
    );
  });

  it('never throws on any generated document', async () => {
    await holds(
      fc.property(mutatedXml, (xml) => {
        const parsed = parseMessagingAssetSafely(xml);
        if (parsed.ok) {
          summariseCatalogueItemConfirmation(parsed.document);
          summariseGdsnMessage(parsed.document);
        }
      }),
      { runs: 500 },
    );
  });
});
