import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseMessagingAsset,
  parseMessagingAssetSafely,
  summariseCatalogueItemConfirmation,
} from '../../packages/bridge/src/xml/index.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const fixture = (name: string): string => readFileSync(path.join(fixtures, name), 'utf8');

const synchronised = fixture('cic-3.1-synchronised.xml');
const review = fixture('cic-3.1-review.xml');
const accepted28 = fixture('cic-2.8-state-attribute.xml');
const message28 = fixture('cic-2.8-message.xml');
const variety31 = fixture('cic-3.1-bom-crlf-two-items.xml');

const summarise = (xml: string) => summariseCatalogueItemConfirmation(parseMessagingAsset(xml));

/** The confirmation element of the synchronised fixture, with a GTIN of our choosing. */
function confirmationOf(xml: string, gtin: string): string {
  const start = xml.indexOf('<catalogue_item_confirmation:catalogueItemConfirmation>');
  const endTag = '</catalogue_item_confirmation:catalogueItemConfirmation>';
  const end = xml.indexOf(endTag) + endTag.length;
  return xml.slice(start, end).replace(/<gtin>\d+<\/gtin>/, `<gtin>${gtin}</gtin>`);
}

describe('summariseCatalogueItemConfirmation', () => {
  it('summarises a 3.1 SYNCHRONISED confirmation', () => {
    // act
    const cic = summarise(synchronised);

    // assess
    expect(cic).toEqual([
      {
        gdsnVersion: '3.1',
        state: 'SYNCHRONISED',
        gtin: '00614141123452',
        recipientGln: '0614141000005',
        recipientDataPool: '0614141000029',
        dataSource: '0614141000012',
        targetMarketCountryCode: '276',
        documentIdentifier: 'CIC-2026-000101',
        confirmationIdentifier: 'CICID-000101',
        creationDateTime: '2026-11-20T09:15:00.000+01:00',
        creatorGln: '0614141000005',
        messageCreatorGln: '0614141000005',
        statuses: [],
      },
    ]);
  });

  it("reads who wrote the confirmation: 3.1 messageCreatorGLN, 2.8 the message's content owner", () => {
    // act
    const [written] = summarise(fixture('cic-3.1-warning.xml')) ?? [];
    const [written28] = summarise(message28) ?? [];

    // assess: a data pool writing for its recipient, told apart from the recipient itself
    expect(written).toMatchObject({
      messageCreatorGln: '0614141000029',
      messageCreatorName: 'Example Recipient Data Pool',
      recipientGln: '0614141000005',
    });
    expect(written28?.messageCreatorGln).toBe('0614141000036');
  });

  it('summarises a 3.1 REVIEW confirmation with its statuses, languages and corrective actions', () => {
    // act
    const [cic] = summarise(review) ?? [];

    // assess
    expect(cic?.state).toBe('REVIEW');
    expect(cic?.gtin).toBe('00614141123469');
    expect(cic?.targetMarketCountryCode).toBe('528');
    expect(cic?.recipientDataPool).toBeUndefined();
    expect(cic?.statuses).toEqual([
      {
        code: 'CIC999',
        gtin: '00614141123469',
        descriptions: [
          { languageCode: 'en', text: 'Net content does not match the declared unit of measure.' },
        ],
        correctiveActions: [
          { code: 'ACTION_NEEDED', expectedCorrectiveInformation: 'Send netContent in MLT for liquids.' },
        ],
      },
      {
        code: 'CIC999',
        gtin: '00614141123469',
        descriptions: [{ languageCode: 'de', text: 'Bild fehlt für die Variante "0,5 l" & Mehrwegpfand.' }],
        correctiveActions: [{ code: 'WARNING' }],
      },
    ]);
  });

  it('summarises a 2.8 confirmation whose state is an attribute and whose market is nested', () => {
    // act
    const cic = summarise(accepted28);

    // assess
    expect(cic).toEqual([
      {
        gdsnVersion: '2.8',
        state: 'ACCEPTED',
        gtin: '00614141123476',
        recipientGln: '0614141000005',
        dataSource: '0614141000012',
        targetMarketCountryCode: '250',
        statuses: [],
      },
    ]);
  });

  it('reads a 2.8 market written directly as a country code', () => {
    // prepare
    const xml = accepted28.replace(
      /<targetMarket>.*<\/targetMarket>/,
      '<targetMarketCountryCode><countryISOCode>056</countryISOCode></targetMarketCountryCode>',
    );

    // act
    const [cic] = summarise(xml) ?? [];

    // assess
    expect(cic?.targetMarketCountryCode).toBe('056');
  });

  it('gives the same summary whatever prefix the confirmation namespace has', () => {
    // prepare
    const renamed = review
      .replaceAll('catalogue_item_confirmation:', 'cic:')
      .replace('xmlns:catalogue_item_confirmation', 'xmlns:cic');
    const defaulted = review
      .replaceAll('catalogue_item_confirmation:', '')
      .replace('xmlns:catalogue_item_confirmation', 'xmlns');

    // act
    const summaries = [review, renamed, defaulted].map(summarise);

    // assess
    expect(renamed).toContain('<cic:catalogueItemConfirmation>');
    expect(summaries[1]).toEqual(summaries[0]);
    expect(summaries[2]).toEqual(summaries[0]);
  });

  it('summarises every confirmation of a transaction, in document order', () => {
    // prepare
    const second = confirmationOf(synchronised, '00614141999999').replace('SYNCHRONISED', 'REJECTED');
    const xml = synchronised.replace('</documentCommand>', `${second}</documentCommand>`);

    // act
    const cic = summarise(xml);

    // assess
    expect(cic?.map((c) => [c.gtin, c.state])).toEqual([
      ['00614141123452', 'SYNCHRONISED'],
      ['00614141999999', 'REJECTED'],
    ]);
    expect(cic?.[1]?.documentIdentifier).toBe('CIC-2026-000101');
  });

  it('summarises confirmations spread over several transactions', () => {
    // prepare
    const transaction = `<transaction><documentCommand>${confirmationOf(synchronised, '00614141000777')}</documentCommand></transaction>`;
    const xml = synchronised.replace('</transaction>', `</transaction>${transaction}`);

    // act
    const cic = summarise(xml);

    // assess
    expect(cic?.map((c) => c.gtin)).toEqual(['00614141123452', '00614141000777']);
  });

  it('decodes escaped characters in descriptions', () => {
    // prepare
    const xml = review.replace(
      'Net content does not match the declared unit of measure.',
      'Value &lt;0,5&gt; &amp; &quot;MLT&quot; &#x2264; 1 &apos;l&apos;',
    );

    // act
    const [cic] = summarise(xml) ?? [];

    // assess
    expect(cic?.statuses[0]?.descriptions[0]?.text).toBe('Value <0,5> & "MLT" ≤ 1 \'l\'');
  });

  it('leaves out what a confirmation does not say', () => {
    // prepare: no header, no creation time, no identification, no data source, no market
    const xml = `<cic:catalogueItemConfirmation xmlns:cic="urn:gs1:gdsn:catalogue_item_confirmation:xsd:3">
      <catalogueItemConfirmationState><catalogueItemConfirmationStateCode>RECEIVED</catalogueItemConfirmationStateCode></catalogueItemConfirmationState>
      <catalogueItemReference><gtin>00614141123452</gtin></catalogueItemReference>
      <catalogueItemConfirmationStatusDetail>
        <catalogueItemConfirmationStatus><confirmationStatusCodeDescription>no code, no language</confirmationStatusCodeDescription></catalogueItemConfirmationStatus>
      </catalogueItemConfirmationStatusDetail>
    </cic:catalogueItemConfirmation>`;

    // act
    const cic = summarise(xml);

    // assess
    expect(cic).toEqual([
      {
        gdsnVersion: '3.1',
        state: 'RECEIVED',
        gtin: '00614141123452',
        statuses: [{ code: '', descriptions: [{ text: 'no code, no language' }], correctiveActions: [] }],
      },
    ]);
  });

  it('skips a confirmation without a GTIN but keeps the others', () => {
    // prepare
    const second = confirmationOf(synchronised, 'X').replace('<gtin>X</gtin>', '');
    const xml = synchronised.replace('</documentCommand>', `${second}</documentCommand>`);

    // act
    const cic = summarise(xml);

    // assess
    expect(cic?.map((c) => c.gtin)).toEqual(['00614141123452']);
  });

  it('returns undefined for a document that is not a confirmation', () => {
    expect(summarise('<tradeItem><gtin>00614141123452</gtin></tradeItem>')).toBeUndefined();
    expect(
      summarise('<catalogueItemConfirmation><gtin>1</gtin></catalogueItemConfirmation>'),
    ).toBeUndefined();
  });
});

describe('summariseCatalogueItemConfirmation: every 2.8 and 3.1 form of a field', () => {
  it("reads a 2.8 confirmation's own time (an attribute), not the header's five months later", () => {
    // act
    const [cic] = summarise(message28) ?? [];

    // assess
    expect(cic?.creationDateTime).toBe('2026-06-20T14:30:00.000Z');
    expect(cic?.documentIdentifier).toBe('CIC28-MSG-0007');
  });

  it('reads the 2.8 identifier (uniqueCreatorIdentification) and the creator GLN (content owner)', () => {
    // act
    const [cic] = summarise(message28) ?? [];

    // assess
    expect(cic?.confirmationIdentifier).toBe('CIC28-0007');
    expect(cic?.creatorGln).toBe('0614141000043');
  });

  it('reads a 2.8 description with its language, and the long description written as <language/><longText>', () => {
    // act
    const [cic] = summarise(message28) ?? [];

    // assess
    expect(cic?.statuses[0]?.descriptions).toEqual([
      { languageCode: 'en', text: 'Item is under review by the category manager.' },
    ]);
    expect(cic?.statuses[0]?.longDescriptions).toEqual([
      {
        languageCode: 'en',
        text: 'Gross weight 12 kg exceeds the pallet limit agreed for this listing; confirm or correct.',
      },
    ]);
  });

  it('reads a BOM, CRLF, an unprefixed root declaring 2.x namespaces and two states about two items', () => {
    // act
    const cic = summarise(variety31) ?? [];

    // assess
    expect(cic.map((one) => [one.gtin, one.state, one.confirmationIdentifier, one.creationDateTime])).toEqual(
      [
        ['00614141123490', 'SYNCHRONISED', 'CICID-000310-A', '2026-11-26T08:58:00.000Z'],
        ['00614141123506', 'REJECTED', 'CICID-000310-B', '2026-11-26T08:59:00.000Z'],
      ],
    );
    expect(cic[1]?.statuses[0]?.longDescriptions?.map((long) => long.languageCode)).toEqual(['en', 'nl']);
    expect(cic[0]?.creatorGln).toBe('0614141000043');
  });

  it("falls back to the header's sender when the confirmation names no content owner", () => {
    // arrange
    const xml = variety31.replace(/<contentOwner><gln>0614141000043<\/gln><\/contentOwner>/g, '');

    // act
    const [cic] = summarise(xml) ?? [];

    // assess
    expect(cic?.creatorGln).toBe('0614141000043');
    expect(summarise(xml.replace(/<q:Sender>.*<\/q:Sender>/, ''))?.[0]?.creatorGln).toBeUndefined();
  });
});

describe('parseMessagingAssetSafely', () => {
  it('returns the document and the summary of a confirmation', () => {
    // act
    const result = parseMessagingAssetSafely(review);

    // assess
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.document.rootName).toBe('catalogueItemConfirmationMessage');
    expect(result.cic?.[0]?.state).toBe('REVIEW');
  });

  it('returns a generic document without a summary', () => {
    // act
    const result = parseMessagingAssetSafely('<note><to>0614141000005</to></note>');

    // assess
    expect(result).toEqual({
      ok: true,
      document: { rootName: 'note', namespaces: {}, root: { to: [{ '#text': '0614141000005' }] } },
    });
  });

  it.each([
    ['broken XML', '<a>\n<b></a>', 'MALFORMED'],
    ['a DOCTYPE', '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', 'DOCTYPE_REFUSED'],
    ['an oversized document', `<a>${'x'.repeat(2000)}</a>`, 'TOO_LARGE'],
  ])('reports %s as an error instead of throwing', (_label, xml, code) => {
    // act
    const result = parseMessagingAssetSafely(xml, { maxBytes: 1000 });

    // assess
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.name).toBe('XmlParseError');
    expect(result.error.code).toBe(code);
    expect(result.error.message.length).toBeGreaterThan(20);
    expect(JSON.parse(JSON.stringify(result.error))).toEqual(result.error);
  });

  it('gives line and column of the problem', () => {
    // act
    const result = parseMessagingAssetSafely('<a>\n<b></a>');

    // assess
    expect(result).toMatchObject({ ok: false, error: { line: 2 } });
    if (!result.ok) expect(result.error.column).toBeGreaterThan(0);
  });
});
