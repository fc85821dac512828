/**
 * Demo records: seven GDSN channels (always present; one recipient behaviour each), five items and a backlog of reviews with their
 * messaging assets (one SYNCHRONISED, one REVIEW, one more SYNCHRONISED) so that a poller has work at
 * once; for the `/v1` families two bulk subscriptions, tags on two items and a few folders and assets.
 * Contents and timestamps are fixed; ids come from the state's seeded generator.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Item } from '@pds-bridge/bridge/pds';
import { withCheckDigit } from './datamodel.ts';
import { recordReview } from './reviews.ts';
import type { RecipientBehaviour, SimulatorChannel, SimulatorState } from './state.ts';

const SUPPLIER_GLN = withCheckDigit('061414100001');

/**
 * The demo channels' ids. Germany and the Netherlands synchronise (REVIEW for an item with validation
 * problems); each other channel's recipient behaves one way of RECIPIENT_BEHAVIOURS, so a publication
 * to every channel shows every confirmation state.
 */
export const DEMO_CHANNEL_IDS = {
  germany: 'gdsn-de',
  netherlands: 'gdsn-nl',
  austria: 'gdsn-at',
  france: 'gdsn-fr',
  belgium: 'gdsn-be',
  denmark: 'gdsn-dk',
  switzerland: 'gdsn-ch',
  poland: 'gdsn-pl',
  sweden: 'gdsn-se',
} as const;

/** Primary keys of the demo items (13-digit GTINs with valid check digits). */
export const DEMO_PRIMARY_KEYS = {
  /** Valid in every respect. */
  water: withCheckDigit('061414112345'),
  /** `simple_date` 2013-07-26 is a Friday: one Warning. */
  fridayOats: withCheckDigit('061414112346'),
  /** No `name`: one Error. */
  unnamed: withCheckDigit('061414112347'),
  /** Valid. */
  dishSoap: withCheckDigit('061414112348'),
  /** Valid; its name needs XML escaping. */
  chocolate: withCheckDigit('061414112349'),
} as const;

/** First demo timestamp: 2026-01-05T09:00:00Z. */
const DEMO_EPOCH = Date.UTC(2026, 0, 5, 9, 0, 0);

/** The channels every simulator has, with or without demo data. */
export function demoChannels(): SimulatorChannel[] {
  const supplier = { supplierId: SUPPLIER_GLN, supplierName: 'Demo Supplier GmbH' };
  const channel = (
    id: string,
    country: string,
    digits: [string, string],
    targetMarketCountryCode: string,
    recipient: RecipientBehaviour,
    how: string,
  ): SimulatorChannel => ({
    id,
    name: `GDSN ${country} (demo${how ? `: ${how}` : ''})`,
    type: 'GDSN',
    dataPoolGln: withCheckDigit(digits[1]),
    dataPoolName: `Demo Data Pool ${id.slice(-2).toUpperCase()}`,
    ...supplier,
    recipientGln: withCheckDigit(digits[0]),
    reviewerName: `Demo Retail ${id.slice(-2).toUpperCase()}`,
    targetMarketCountryCode,
    recipient,
  });
  return [
    channel(DEMO_CHANNEL_IDS.germany, 'Germany', ['061414100010', '061414100020'], '276', 'synchronise', ''),
    channel(
      DEMO_CHANNEL_IDS.netherlands,
      'Netherlands',
      ['061414100030', '061414100040'],
      '528',
      'synchronise',
      '',
    ),
    channel(
      DEMO_CHANNEL_IDS.austria,
      'Austria',
      ['061414100050', '061414100060'],
      '040',
      'review',
      'asks for a correction, then synchronises',
    ),
    channel(DEMO_CHANNEL_IDS.france, 'France', ['061414100070', '061414100080'], '250', 'reject', 'rejects'),
    channel(
      DEMO_CHANNEL_IDS.belgium,
      'Belgium',
      ['061414100090', '061414100100'],
      '056',
      'gdsn-2.8',
      'answers in GDSN 2.8',
    ),
    channel(
      DEMO_CHANNEL_IDS.denmark,
      'Denmark',
      ['061414100110', '061414100120'],
      '208',
      'out-of-order',
      'answers twice, out of order',
    ),
    channel(
      DEMO_CHANNEL_IDS.switzerland,
      'Switzerland',
      ['061414100130', '061414100140'],
      '756',
      'silent',
      'never answers',
    ),
    channel(
      DEMO_CHANNEL_IDS.poland,
      'Poland',
      ['061414100150', '061414100160'],
      '616',
      'data-pool-refuse',
      'refused by its data pool',
    ),
    channel(
      DEMO_CHANNEL_IDS.sweden,
      'Sweden',
      ['061414100170', '061414100180'],
      '752',
      'resend-request',
      'asks for a resend, then synchronises',
    ),
  ];
}

/** The demo items, in a fixed order. */
export function demoItems(): Item[] {
  return [
    {
      primaryKey__: DEMO_PRIMARY_KEYS.water,
      name: 'Sparkling Water 0,5 l',
      category: 'BEVERAGE',
      netContent: 500,
      netContentUnit: 'MLT',
      simple_date: '2026-03-02',
    },
    {
      primaryKey__: DEMO_PRIMARY_KEYS.fridayOats,
      name: 'Whole Grain Oats',
      category: 'FOOD',
      netContent: 1,
      netContentUnit: 'KGM',
      simple_date: '2013-07-26',
    },
    { primaryKey__: DEMO_PRIMARY_KEYS.unnamed, category: 'NON_FOOD', netContent: 12, netContentUnit: 'EA' },
    {
      primaryKey__: DEMO_PRIMARY_KEYS.dishSoap,
      name: 'Dish Soap Lemon',
      category: 'NON_FOOD',
      netContent: 750,
      netContentUnit: 'MLT',
      simple_date: '2026-02-10',
    },
    {
      primaryKey__: DEMO_PRIMARY_KEYS.chocolate,
      name: 'Dark Chocolate 70 % "Noir" & <Sea Salt>',
      category: 'FOOD',
      netContent: 100,
      netContentUnit: 'GRM',
      simple_date: '2026-01-13',
    },
  ];
}

/**
 * Fills `state` with the channels and, unless `withDemoRecords` is false, the demo items and review backlog.
 *
 * @example
 * seedDemoData(new SimulatorState(1), true);
 */
export function seedDemoData(state: SimulatorState, withDemoRecords: boolean): void {
  state.channels.push(...demoChannels());
  if (!withDemoRecords) return;
  for (const item of demoItems()) state.addItem(item);
  const [germany, netherlands] = state.channels as [SimulatorChannel, SimulatorChannel];
  const backlog: Array<[SimulatorChannel, string]> = [
    [germany, DEMO_PRIMARY_KEYS.water],
    [netherlands, DEMO_PRIMARY_KEYS.fridayOats],
    [netherlands, DEMO_PRIMARY_KEYS.dishSoap],
  ];
  backlog.forEach(([channel, key], index) => {
    const item = state.items.get(key) ?? { primaryKey__: key };
    recordReview(state, channel, item, DEMO_EPOCH + index * 60_000);
  });
  seedDemoSubscriptions(state);
  seedDemoTags(state);
}

/** Names of the demo bulk subscriptions (ids 1 and 2 in a fresh simulator). */
export const DEMO_BULK_SUBSCRIPTIONS = { gtinWatch: 'gtin-watch', beverageFeed: 'beverage-feed' } as const;

function seedDemoSubscriptions(state: SimulatorState): void {
  const store = state.bulkSubscriptions;
  const watch = store.create(
    {
      name: DEMO_BULK_SUBSCRIPTIONS.gtinWatch,
      label: 'GTIN watch list',
      description: 'Items followed by their GTIN',
      attributes: ['gtin'],
    },
    DEMO_EPOCH + 10 * 60_000,
  );
  store.addEntries(watch, [{ gtin: DEMO_PRIMARY_KEYS.water }, { gtin: DEMO_PRIMARY_KEYS.dishSoap }]);
  const feed = store.create(
    {
      name: DEMO_BULK_SUBSCRIPTIONS.beverageFeed,
      label: 'Beverages by unit',
      description: 'Beverages sold by volume',
      attributes: ['category', 'netContentUnit'],
      active: false,
    },
    DEMO_EPOCH + 11 * 60_000,
  );
  store.addEntries(feed, [
    { category: 'BEVERAGE', netContentUnit: 'MLT' },
    { category: 'BEVERAGE', netContentUnit: 'LTR' },
  ]);
}

function seedDemoTags(state: SimulatorState): void {
  state.itemTags.add(DEMO_PRIMARY_KEYS.water, ['organic', 'promo:2026'], DEMO_EPOCH + 20 * 60_000);
  state.itemTags.add(DEMO_PRIMARY_KEYS.water, ['promo:2026-spring'], DEMO_EPOCH + 21 * 60_000);
  state.itemTags.add(DEMO_PRIMARY_KEYS.chocolate, ['seasonal'], DEMO_EPOCH + 22 * 60_000);
}

/** Paths of the demo assets, seeded by `seedDemoAssets`. */
export const DEMO_ASSET_PATHS = {
  waterImage: '/images/water.svg',
  waterSpec: '/documents/specs/water-spec.txt',
} as const;

const DEMO_ASSET_CONTENT: Record<string, { contentType: string; text: string }> = {
  [DEMO_ASSET_PATHS.waterImage]: {
    contentType: 'image/svg+xml',
    text: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><rect width="10" height="20" fill="#4af"/></svg>\n',
  },
  [DEMO_ASSET_PATHS.waterSpec]: {
    contentType: 'text/plain',
    text: 'Sparkling Water 0,5 l\nNet content: 500 MLT\n',
  },
};

/**
 * Writes the demo assets under `uploadDir/assets/demo` and adds them (and their folders) to the tree.
 *
 * @example
 * await seedDemoAssets(state, uploadDir); // /images/water.svg, /documents/specs/water-spec.txt
 */
export async function seedDemoAssets(state: SimulatorState, uploadDir: string): Promise<void> {
  const tree = state.assetFolders;
  const audit = { user: 'system', at: DEMO_EPOCH };
  const directory = join(uploadDir, 'assets', 'demo');
  await mkdir(directory, { recursive: true });
  for (const [path, { contentType, text }] of Object.entries(DEMO_ASSET_CONTENT)) {
    const segments = path.slice(1).split('/');
    let folder = tree.root;
    for (const name of segments.slice(0, -1)) {
      const existing = folder.children.get(name);
      folder = existing?.linkType === 'FOLDER' ? existing : tree.createFolder(folder, name, audit);
    }
    const diskPath = join(directory, segments.join('_'));
    await writeFile(diskPath, text);
    const sha256 = createHash('sha256').update(text).digest('hex');
    tree.putAsset(
      folder,
      segments.at(-1) as string,
      { diskPath, size: Buffer.byteLength(text), sha256, contentType },
      audit,
    );
  }
}
