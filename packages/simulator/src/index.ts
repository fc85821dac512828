/**
 * The PDS simulator: a real HTTP server with the `/api/v1` workflow family and the `/v1` families
 * (asset folders, bulk subscriptions, data model, item tags), in-memory state, seeded demo data and
 * fault injection. Used by tests, the local stack and benchmarks.
 *
 * @example
 * const sim = await startSimulator({ reviewDelayMs: 50 });
 * await fetch(`${sim.url}/api/v1/communicationchannels`, { headers: { authorization: 'Basic ZGVtbzpkZW1v' } });
 * await sim.close();
 */

import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInteger } from '@pds-bridge/bridge/core';
import { DeferredWork } from './deferred.ts';
import { seedDemoAssets, seedDemoData } from './demo-data.ts';
import { SimulatorOptionsError } from './errors.ts';
import { FaultInjector, type FaultOptions, type ScriptedFault } from './faults.ts';
import { ItemFile, loadItems } from './item-file.ts';
import { ReviewScheduler } from './reviews.ts';
import { Router } from './router.ts';
import { assetFolderRoutes } from './routes/asset-folders.ts';
import { bulkSubscriptionRoutes } from './routes/bulk-subscriptions.ts';
import { dataModelRoutes } from './routes/datamodel.ts';
import { itemTagRoutes } from './routes/item-tags.ts';
import { workflowRoutes } from './routes/workflow.ts';
import { createSimulatorServer, type RequestLogEntry } from './server.ts';
import { RECIPIENT_BEHAVIOURS, type RecipientBehaviour, SimulatorState } from './state.ts';

export {
  DEMO_ASSET_PATHS,
  DEMO_BULK_SUBSCRIPTIONS,
  DEMO_CHANNEL_IDS,
  DEMO_PRIMARY_KEYS,
} from './demo-data.ts';
export { SimulatorOptionsError } from './errors.ts';
export type { FaultOptions, ScriptedFault } from './faults.ts';
export { ITEM_FILE_SUFFIXES } from './imports.ts';
export type { RequestLogEntry } from './server.ts';
export type {
  Gathering,
  ImportRecord,
  MessagingAssetRecord,
  NewSupplierReview,
  PublicationRecord,
  RecipientBehaviour,
  SelectionRecord,
  SimulatorChannel,
  StoredGatheringEntry,
} from './state.ts';
export { RECIPIENT_BEHAVIOURS, SimulatorState } from './state.ts';
export type { AssetFolderNode, AssetNode, FolderNode } from './state-assets.ts';
export type { StoredImport, StoredSubscription } from './state-subscriptions.ts';
export type { StoredTag } from './state-tags.ts';

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 = any free port. */
  port?: number;
  /** Default 'demo'. */
  username?: string;
  /** Default 'demo'. */
  password?: string;
  /** Demo data and generated ids are deterministic with a seed; default 1. */
  seed?: number;
  /** Seed demo items, reviews and messaging assets (channels are always there); default true. */
  demoData?: boolean;
  /** Delay before reviews of a COMMUNICATION_CHANNEL publication appear; default 3000. */
  reviewDelayMs?: number;
  /** How each channel's recipient answers, by channel id (RECIPIENT_BEHAVIOURS); default the demo channels' own. */
  recipients?: Readonly<Record<string, RecipientBehaviour>>;
  faults?: FaultOptions;
  /** Where uploaded files are stored; default a fresh directory under os.tmpdir(), removed on close. */
  uploadDir?: string;
  /** Delay before a bulk subscription operation sent with `synchronously=false` is applied; default 200. */
  bulkSubscriptionDelayMs?: number;
  /**
   * Page the messaging-asset listing by `limit` with `offset` or `x-cursor` (the spec's general
   * conventions); default false: the whole list whatever the query, as docs/spec-gaps.md chooses.
   */
  pageMessagingAssets?: boolean;
  /**
   * Keeps the items in this JSON file across restarts: read at start (after the demo items), written
   * after every import that created or updated items (./item-file.ts). Default: none, in memory only.
   */
  itemsFile?: string;
}

export interface RunningSimulator {
  /** 'http://127.0.0.1:PORT', no trailing slash. */
  url: string;
  username: string;
  password: string;
  /** In-memory state, for test assertions and seeding. */
  state: SimulatorState;
  /** Replaces the probabilistic faults (undefined = none) and restarts their PRNG. */
  setFaults(faults: FaultOptions | undefined): void;
  /** Queues faults for the next `count` matching requests (checked before the probabilistic ones). */
  failNext(count: number, fault: ScriptedFault): void;
  /** Every request handled so far; status 0 when reset. Clear it with `requestLog.length = 0`. */
  requestLog: RequestLogEntry[];
  close(): Promise<void>;
}

/**
 * Starts a simulator and resolves once it listens.
 *
 * @example
 * const sim = await startSimulator({ demoData: false, faults: { rate: 0.1, seed: 7 } });
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const settings = checkOptions(options);
  const ownsUploadDir = options.uploadDir === undefined;
  const uploadDir = options.uploadDir ?? (await mkdtemp(join(tmpdir(), 'pds-simulator-')));
  await mkdir(uploadDir, { recursive: true });

  const state = new SimulatorState(settings.seed);
  seedDemoData(state, options.demoData !== false);
  configureRecipients(state, options.recipients ?? {});
  if (options.demoData !== false) await seedDemoAssets(state, uploadDir);
  if (options.itemsFile !== undefined) await loadItems(state, options.itemsFile);
  const itemFile = options.itemsFile === undefined ? undefined : new ItemFile(state, options.itemsFile);
  const faults = new FaultInjector(options.faults, settings.seed);
  const reviews = new ReviewScheduler(state, settings.reviewDelayMs);
  const deferred = new DeferredWork(settings.bulkSubscriptionDelayMs);
  const router = new Router([
    ...workflowRoutes({
      state,
      uploadDir,
      reviews,
      pageMessagingAssets: options.pageMessagingAssets === true,
      ...(itemFile ? { onItemsChanged: () => itemFile.save() } : {}),
    }),
    ...assetFolderRoutes({ state, uploadDir }),
    ...bulkSubscriptionRoutes({ state, uploadDir, deferred }),
    ...dataModelRoutes(),
    ...itemTagRoutes({ state }),
  ]);
  const requestLog: RequestLogEntry[] = [];
  const closing = new AbortController();
  const server = createSimulatorServer({
    router,
    faults,
    username: settings.username,
    password: settings.password,
    requestLog,
    signal: closing.signal,
  });
  server.listen(settings.port, settings.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      reviews.close();
      deferred.close();
      closing.abort();
      const stopped = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await stopped;
      if (ownsUploadDir) await rm(uploadDir, { recursive: true, force: true });
    })();
    return closed;
  };

  return {
    url: `http://${host}:${port}`,
    username: settings.username,
    password: settings.password,
    state,
    setFaults: (next) => faults.setFaults(next),
    failNext: (count, fault) => faults.failNext(count, fault),
    requestLog,
    close,
  };
}

/** Sets the recipient behaviour of the named channels; an unknown channel or behaviour is refused. */
function configureRecipients(
  state: SimulatorState,
  recipients: Readonly<Record<string, RecipientBehaviour>>,
): void {
  for (const [channelId, behaviour] of Object.entries(recipients)) {
    const channel = state.channel(channelId);
    if (!channel) {
      throw new SimulatorOptionsError(
        `recipients names channel '${channelId}', which does not exist; use one of ${state.channels.map((known) => known.id).join(', ')}`,
      );
    }
    if (!(RECIPIENT_BEHAVIOURS as readonly string[]).includes(behaviour)) {
      throw new SimulatorOptionsError(
        `recipients gives channel '${channelId}' the behaviour '${behaviour}'; use one of ${RECIPIENT_BEHAVIOURS.join(', ')}`,
      );
    }
    channel.recipient = behaviour;
  }
}

function checkOptions(options: SimulatorOptions) {
  const settings = {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    username: options.username ?? 'demo',
    password: options.password ?? 'demo',
    seed: options.seed ?? 1,
    reviewDelayMs: options.reviewDelayMs ?? 3000,
    bulkSubscriptionDelayMs: options.bulkSubscriptionDelayMs ?? 200,
  };
  const optionsError = (message: string) => new SimulatorOptionsError(message);
  checkInteger('port', settings.port, { min: 0, max: 65535 }, optionsError);
  if (!Number.isInteger(settings.seed)) {
    throw new SimulatorOptionsError(`seed must be an integer, got ${settings.seed}`);
  }
  if (!(Number.isFinite(settings.reviewDelayMs) && settings.reviewDelayMs >= 0)) {
    throw new SimulatorOptionsError(`reviewDelayMs must be a number >= 0, got ${settings.reviewDelayMs}`);
  }
  const delay = settings.bulkSubscriptionDelayMs;
  // setTimeout cannot wait longer than 2^31 - 1 ms.
  checkInteger('bulkSubscriptionDelayMs', delay, { min: 0, max: 2 ** 31 - 1 }, optionsError);
  if (settings.username.includes(':')) {
    throw new SimulatorOptionsError(
      'username must not contain ":" (HTTP Basic separates it from the password)',
    );
  }
  return settings;
}
