/**
 * The PDS simulator of the pollers' chaos run, in a child process of its own (forked with an IPC
 * channel by bench/chaos/pollers.ts): the parent tells it, over the run, which messaging assets and
 * supplier reviews arrive, turns the faults off for the quiet period, and asks at the end for the
 * inventory to count against.
 *
 * Late arrivals: the simulator gives ids in order, so an asset that must arrive "late" takes its id
 * when it is planned (`reserve`) and is stored only seconds later (`release`), once higher ids were
 * listed and emitted. The listing stays ordered by id, as the PDS's is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SupplierReview } from '../../packages/bridge/src/pds/index.ts';
import type {
  FaultOptions,
  MessagingAssetRecord,
  RunningSimulator,
} from '../../packages/simulator/src/index.ts';
import { root } from '../support.ts';

/** What an asset's XML is made of; the counting at the end expects a different outcome per kind. */
export type AssetKind = 'good' | 'malformed' | 'hostile' | 'unsendable';

/** Messages the parent sends; each is answered with `{ seq, result }` or `{ seq, error }`. */
export type SimulatorCommand =
  | { op: 'assets'; kinds: AssetKind[] }
  | { op: 'reserve'; count: number }
  | { op: 'release'; ids: number[] }
  | { op: 'reviews'; reviews: Array<{ primaryKey: string; kind: AssetKind }> }
  | { op: 'items'; primaryKeys: string[] }
  | { op: 'faults'; on: boolean }
  | { op: 'inventory' };

export interface InventoryAsset {
  id: number;
  kind: AssetKind;
  /** Stored after higher ids were already listed. */
  late: boolean;
  /** Set when the asset is the message of a supplier review. */
  primaryKey?: string;
}

export interface Inventory {
  assets: InventoryAsset[];
  reviews: SupplierReview[];
  /** Requests served, and those answered with a fault (status) or reset. */
  requests: number;
  faulted: number;
  resets: number;
}

const fixtures = path.resolve(root, 'test/fixtures/gdsn');
const GOOD_XML = ['cic-3.1-synchronised.xml', 'cic-3.1-review.xml', 'cic-2.8-state-attribute.xml'].map(
  (name) => readFileSync(path.join(fixtures, name), 'utf8'),
);
/** Characters SQS refuses in a body (U+FFFE, U+FFFF), a control character, one above U+FFFF. */
const UNSENDABLE_CHARACTERS = ['\uFFFE', '\uFFFF', '\u0001', '\u{1F600}'];

/** The XML of one asset of `kind`; `id` varies it so no two assets are alike. */
export function xmlOf(kind: AssetKind, id: number): string {
  const good = GOOD_XML[id % GOOD_XML.length] as string;
  switch (kind) {
    case 'good':
      return good;
    case 'malformed':
      // Cut in the middle of an element: not well-formed.
      return good.slice(0, Math.floor(good.length / 2));
    case 'hostile':
      return `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><lolz id="${id}">&lol3;</lolz>`;
    case 'unsendable': {
      const character = UNSENDABLE_CHARACTERS[id % UNSENDABLE_CHARACTERS.length] as string;
      return good.replace('</', `${character}</`);
    }
  }
}

/** Serves one simulator and answers the parent's commands until it is told to stop. */
async function serve(): Promise<void> {
  const seed = Number(process.env.CHAOS_SEED ?? '1');
  const faults: FaultOptions = {
    rate: Number(process.env.CHAOS_FAULT_RATE ?? '0'),
    resetRate: Number(process.env.CHAOS_RESET_RATE ?? '0'),
    seed,
  };
  const { startSimulator } = await import('../../packages/simulator/src/index.ts');
  const sim = await startSimulator({ demoData: false, port: 0, seed, faults });
  const kinds = new Map<number, AssetKind>();
  const late = new Set<number>();
  /** Reserved ids and the record each will be stored as. */
  const reserved = new Map<number, MessagingAssetRecord>();

  const handle = (command: SimulatorCommand): unknown => {
    switch (command.op) {
      case 'assets':
        return command.kinds.map((kind) => {
          const id = sim.state.addMessagingAsset({ xml: (assigned) => xmlOf(kind, assigned) });
          kinds.set(id, kind);
          return id;
        });
      case 'reserve':
        return Array.from({ length: command.count }, () => {
          const id = sim.state.addMessagingAsset({ xml: (assigned) => xmlOf('good', assigned) });
          reserved.set(id, sim.state.messagingAssets.get(id) as MessagingAssetRecord);
          sim.state.deleteMessagingAsset(id);
          return id;
        });
      case 'release':
        for (const id of command.ids) releaseLate(sim, reserved, id, kinds, late);
        return command.ids.length;
      case 'reviews':
        return command.reviews.map(({ primaryKey, kind }, index) => {
          const review = sim.state.addSupplierReview(
            {
              primaryKey,
              supplierId: '0614141000012',
              channelId: 'gdsn-de',
              supplier: 'Demo Supplier GmbH',
              reviewer: 'Demo Retail DE',
              reviewStatus: index % 5 === 0 ? 'REVIEW' : 'APPROVED',
              date: Date.now(),
              comment: '',
              messagingCreatorType: 'REVIEW',
            },
            (assigned) => xmlOf(kind, assigned),
          );
          kinds.set(review.messagingAssetId, kind);
          return review.messagingAssetId;
        });
      case 'items':
        for (const primaryKey of command.primaryKeys) sim.state.addItem({ primaryKey__: primaryKey });
        return command.primaryKeys.length;
      case 'faults':
        sim.setFaults(command.on ? faults : undefined);
        return command.on;
      case 'inventory':
        return inventoryOf(sim, kinds, late);
    }
  };

  process.on('message', (message: { seq: number; command: SimulatorCommand }) => {
    try {
      process.send?.({ seq: message.seq, result: handle(message.command) });
    } catch (error) {
      process.send?.({ seq: message.seq, error: (error as Error).message });
    }
  });
  // The parent going away (killed, crashed) ends this process too: no orphan keeps a port.
  process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
  process.once('SIGTERM', () => void sim.close().then(() => process.exit(0)));
  process.send?.({ ready: sim.url });
}

/** Stores a reserved asset now, keeping the listing ordered by id (the map is the listing's order). */
function releaseLate(
  sim: RunningSimulator,
  reserved: Map<number, MessagingAssetRecord>,
  id: number,
  kinds: Map<number, AssetKind>,
  late: Set<number>,
): void {
  const record = reserved.get(id);
  if (!record) return;
  reserved.delete(id);
  const assets = sim.state.messagingAssets;
  const after = [...assets.values()].filter((asset) => asset.id > id);
  for (const asset of after) assets.delete(asset.id);
  assets.set(id, { ...record, createdAt: Date.now() });
  for (const asset of after) assets.set(asset.id, asset);
  kinds.set(id, 'good');
  late.add(id);
}

function inventoryOf(sim: RunningSimulator, kinds: Map<number, AssetKind>, late: Set<number>): Inventory {
  const assets = [...sim.state.messagingAssets.values()].map(
    (asset): InventoryAsset => ({
      id: asset.id,
      kind: kinds.get(asset.id) ?? 'good',
      late: late.has(asset.id),
      ...(asset.primaryKey === undefined ? {} : { primaryKey: asset.primaryKey }),
    }),
  );
  const log = sim.requestLog;
  return {
    assets,
    reviews: [...sim.state.supplierReviews.values()].flat(),
    requests: log.length,
    faulted: log.filter((entry) => entry.status === 429 || entry.status === 503).length,
    resets: log.filter((entry) => entry.status === 0).length,
  };
}

if (process.send) await serve();
