import { readFile } from 'node:fs/promises';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { buildCatalogueItemConfirmation, escapeXml, gtin14Of } from '../../packages/simulator/src/gdsn.ts';

const FIXTURES = new URL('../fixtures/gdsn/', import.meta.url);
const parser = new XMLParser({ ignoreAttributes: false, parseTagValue: false, attributeNamePrefix: '@' });

/** Every element and attribute path of a document (namespace declarations left out), ignoring repetition. */
function shapeOf(xml: string): string[] {
  const paths = new Set<string>();
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) {
      for (const element of node) walk(element, path);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('@xmlns') || key === '?xml') continue;
      const next = `${path}/${key}`;
      paths.add(next);
      walk(value, next);
    }
  };
  walk(parser.parse(xml), '');
  return [...paths].sort();
}

const BASE = {
  messageNumber: 7,
  createdAt: Date.UTC(2026, 10, 20, 9, 15),
  primaryKey: '614141123452',
  recipientGln: '0614141000005',
  dataSourceGln: '0614141000012',
  recipientDataPoolGln: '0614141000029',
  targetMarketCountryCode: '276',
};

describe('gtin14Of and escapeXml', () => {
  it('pads numeric keys to 14 digits and leaves other keys alone', () => {
    expect(gtin14Of('614141123452')).toBe('00614141123452');
    expect(gtin14Of('SKU/1')).toBe('SKU/1');
  });

  it('escapes markup characters and drops characters XML cannot carry', () => {
    expect(escapeXml('0,5 l "Pfand" & <x>\u0001')).toBe('0,5 l &quot;Pfand&quot; &amp; &lt;x&gt;');
  });
});

describe('buildCatalogueItemConfirmation', () => {
  it('builds a SYNCHRONISED message in the shape of the fixture', async () => {
    // Prepare
    const fixture = await readFile(new URL('cic-3.1-synchronised.xml', FIXTURES), 'utf8');

    // Act
    const xml = buildCatalogueItemConfirmation({ ...BASE, problems: [] });

    // Assess
    expect(shapeOf(xml)).toEqual(shapeOf(fixture));
    const message = parser.parse(xml)['catalogue_item_confirmation:catalogueItemConfirmationMessage'];
    const confirmation =
      message.transaction.documentCommand['catalogue_item_confirmation:catalogueItemConfirmation'];
    expect(confirmation.catalogueItemConfirmationState.catalogueItemConfirmationStateCode).toBe(
      'SYNCHRONISED',
    );
    expect(confirmation.catalogueItemReference.gtin).toBe('00614141123452');
    expect(message.transaction.documentCommand.documentCommandHeader['@type']).toBe('ADD');
  });

  it('builds a REVIEW message with one escaped CIC999 detail per problem', async () => {
    // Prepare
    const fixture = await readFile(new URL('cic-3.1-review.xml', FIXTURES), 'utf8');
    const problems = [
      { message: "'Simple Date' should not be a Friday", attribute: 'simple_date' },
      { message: 'Name "A & B" <missing>', attribute: 'name' },
    ];

    // Act
    const xml = buildCatalogueItemConfirmation({ ...BASE, problems });

    // Assess
    const confirmation =
      parser.parse(xml)['catalogue_item_confirmation:catalogueItemConfirmationMessage'].transaction
        .documentCommand['catalogue_item_confirmation:catalogueItemConfirmation'];
    expect(confirmation.catalogueItemConfirmationState.catalogueItemConfirmationStateCode).toBe('REVIEW');
    const details = confirmation.catalogueItemConfirmationStatusDetail;
    expect(details).toHaveLength(2);
    const statuses = details.map(
      (detail: { catalogueItemConfirmationStatus: unknown }) => detail.catalogueItemConfirmationStatus,
    );
    expect(statuses[1]).toMatchObject({
      confirmationStatusCode: 'CIC999',
      confirmationStatusCodeDescription: { '#text': 'Name "A & B" <missing>', '@languageCode': 'en' },
      correctiveAction: { correctiveActionCode: 'ACTION_NEEDED' },
    });
    // Same elements as the hand-written fixture (which has no recipientDataPool).
    const withoutDataPool = shapeOf(xml).filter((path) => !path.endsWith('/recipientDataPool'));
    expect(withoutDataPool).toEqual(shapeOf(fixture));
  });
});
