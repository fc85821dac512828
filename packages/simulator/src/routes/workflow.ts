/**
 * The `/api/v1` workflow family: upload, import, validate, select, publish, channels, supplier
 * reviews and messaging assets, with the answers chosen in docs/spec-gaps.md.
 */

import { DESTINATION_TYPES, type Item } from '@pds-bridge/bridge/pds';
import { X_CURSOR_HEADER } from '@pds-bridge/bridge/pds/resources';
import { z } from 'zod';
import { validateItem } from '../datamodel.ts';
import { SimulatorHttpError } from '../errors.ts';
import { importEntry } from '../imports.ts';
import { paginate } from '../pagination.ts';
import { emptyReply, jsonReply, type Reply } from '../reply.ts';
import { parseBody, readJsonBody } from '../request-body.ts';
import type { ReviewScheduler } from '../reviews.ts';
import type { RequestContext, Route } from '../router.ts';
import type { ImportRecord, SimulatorState } from '../state.ts';
import { receiveGathering } from '../uploads.ts';

/** What the workflow handlers work on. */
export interface WorkflowDeps {
  state: SimulatorState;
  uploadDir: string;
  reviews: ReviewScheduler;
  /** Page the messaging-asset listing as the spec's general conventions say (default: whole list). */
  pageMessagingAssets?: boolean;
  /** Told after an import created or updated items (the simulator's `itemsFile` keeps them). */
  onItemsChanged?: () => Promise<void>;
}

const itemSchema = z.record(z.string(), z.unknown());
const importSchema = z.object({ gatheringKey: z.string().min(1), path: z.string().min(1) });
const validateSchema = z.object({
  newItem: itemSchema,
  oldItem: itemSchema.nullish(),
  attributeNames: z.array(z.string()).nullish(),
});
const selectionSchema = z.object({ primaryKeys: z.array(z.string().min(1)).min(1) });
const publicationSchema = z.object({
  selectionId: z.string().min(1),
  destinations: z
    .array(z.object({ destinationType: z.enum(DESTINATION_TYPES), destinationId: z.string().min(1) }))
    .min(1),
});

/** Most unknown keys a 404 message lists by name. */
const MAX_KEYS_NAMED = 10;

/**
 * The route table of the `/api/v1` family.
 *
 * @example
 * new Router([...workflowRoutes({ state, uploadDir, reviews })]);
 */
export function workflowRoutes(deps: WorkflowDeps): Route[] {
  const messagingAssetList = (c: RequestContext) => listMessagingAssets(deps, c);
  return [
    { method: 'POST', path: '/api/v1/gatherings', handler: (c) => upload(deps, c) },
    { method: 'POST', path: '/api/v1/imports', handler: (c) => startImport(deps, c) },
    { method: 'POST', path: '/api/v1/validate', handler: (c) => validate(c) },
    { method: 'POST', path: '/api/v1/selections', handler: (c) => createSelection(deps, c) },
    { method: 'POST', path: '/api/v1/publications', handler: (c) => publish(deps, c) },
    {
      method: 'GET',
      path: '/api/v1/communicationchannels',
      handler: () => jsonReply(200, deps.state.channels),
    },
    { method: 'GET', path: '/api/v1/supplierreviews/:primaryKey', handler: (c) => supplierReviews(deps, c) },
    { method: 'GET', path: '/api/v1/messaging/messagingassets/:id', handler: (c) => messagingAsset(deps, c) },
    { method: 'GET', path: '/api/v1/messaging/messagingassets/', handler: messagingAssetList },
    { method: 'GET', path: '/api/v1/messaging/messagingassets', handler: messagingAssetList },
  ];
}

async function upload({ state, uploadDir }: WorkflowDeps, { req }: RequestContext): Promise<Reply> {
  const gathering = await receiveGathering(req, state, uploadDir);
  return jsonReply(
    200,
    gathering.entries.map(({ gatheringKey, assetKey, path, contentType }) => ({
      gatheringKey,
      assetKey,
      path,
      contentType,
    })),
  );
}

async function startImport({ state, onItemsChanged }: WorkflowDeps, { req }: RequestContext): Promise<Reply> {
  const { gatheringKey, path } = parseBody(importSchema, await readJsonBody(req));
  const gathering = state.gatherings.get(gatheringKey);
  if (!gathering) {
    throw new SimulatorHttpError(
      404,
      `No gathering has key '${gatheringKey}'; upload the files first (POST /api/v1/gatherings)`,
    );
  }
  const entry = gathering.entries.find((candidate) => candidate.path === path);
  if (!entry) {
    throw new SimulatorHttpError(
      404,
      `Gathering '${gatheringKey}' has no entry '${path}'; use a path from the upload answer`,
    );
  }
  const record: ImportRecord = { gatheringKey, path, at: Date.now(), itemCount: 0 };
  state.imports.push(record);
  Object.assign(record, await importEntry(state, entry));
  if (record.itemCount > 0) await onItemsChanged?.();
  return emptyReply(202);
}

async function validate({ req }: RequestContext): Promise<Reply> {
  const body = parseBody(validateSchema, await readJsonBody(req));
  return jsonReply(
    200,
    validateItem({
      newItem: body.newItem as Item,
      oldItem: (body.oldItem ?? undefined) as Item | undefined,
      attributeNames: body.attributeNames ?? undefined,
    }),
  );
}

async function createSelection({ state }: WorkflowDeps, { req }: RequestContext): Promise<Reply> {
  const { primaryKeys } = parseBody(selectionSchema, await readJsonBody(req));
  const distinct = [...new Set(primaryKeys)];
  const unknown = distinct.filter((key) => !state.items.has(key));
  if (unknown.length > 0) {
    throw new SimulatorHttpError(
      404,
      `No item has primary key ${namedKeys(unknown)}; import those items first`,
    );
  }
  const selectionId = state.newUuid();
  state.selections.set(selectionId, { selectionId, primaryKeys: distinct });
  return jsonReply(200, { selectionId, numberOfItems: distinct.length });
}

function namedKeys(keys: string[]): string {
  const named = keys
    .slice(0, MAX_KEYS_NAMED)
    .map((key) => `'${key}'`)
    .join(', ');
  return keys.length > MAX_KEYS_NAMED ? `${named} (and ${keys.length - MAX_KEYS_NAMED} more)` : named;
}

async function publish({ state, reviews }: WorkflowDeps, { req }: RequestContext): Promise<Reply> {
  const { selectionId, destinations } = parseBody(publicationSchema, await readJsonBody(req));
  const channels = destinations
    .filter((destination) => destination.destinationType === 'COMMUNICATION_CHANNEL')
    .map(({ destinationId }) => {
      const channel = state.channel(destinationId);
      if (!channel) {
        throw new SimulatorHttpError(
          400,
          `No communication channel has id '${destinationId}'; use an id from GET /api/v1/communicationchannels`,
        );
      }
      return channel;
    });
  const selection = state.selections.get(selectionId);
  if (!selection) {
    throw new SimulatorHttpError(
      404,
      `No selection has id '${selectionId}'; create one first (POST /api/v1/selections)`,
    );
  }
  state.publications.push({ selectionId, destinations, at: Date.now() });
  for (const channel of channels) reviews.schedule(channel, selection.primaryKeys);
  return emptyReply(202);
}

function supplierReviews({ state }: WorkflowDeps, { params }: RequestContext): Reply {
  const primaryKey = params.primaryKey ?? '';
  if (!state.isKnownItem(primaryKey)) {
    throw new SimulatorHttpError(
      404,
      `No item has primary key '${primaryKey}'; check the key or import the item`,
    );
  }
  return jsonReply(200, state.supplierReviews.get(primaryKey) ?? []);
}

function messagingAsset({ state }: WorkflowDeps, { params }: RequestContext): Reply {
  const raw = params.id ?? '';
  if (!/^\d{1,15}$/.test(raw)) {
    throw new SimulatorHttpError(
      400,
      `Messaging asset id must be an integer, got '${raw}'; use messagingAssetId of a review`,
    );
  }
  const asset = state.messagingAssets.get(Number(raw));
  if (!asset) throw new SimulatorHttpError(404, `No messaging asset has id ${raw}`);
  return { status: 200, headers: { 'content-type': 'application/xml; charset=UTF-8' }, body: asset.xml };
}

/**
 * The listing: whole, as docs/spec-gaps.md chooses, or (option `pageMessagingAssets`) a page cut by
 * `limit` with `offset` or `x-cursor` as on the `/v1` lists; without `limit` the whole list then too.
 */
function listMessagingAssets({ state, pageMessagingAssets }: WorkflowDeps, c: RequestContext): Reply {
  const all = state.messagingAssetSummaries();
  if (!pageMessagingAssets || (!c.query.has('limit') && c.req.headers[X_CURSOR_HEADER] === undefined)) {
    return jsonReply(200, all);
  }
  const { items, headers } = paginate(all, c.req, c.query);
  const reply = jsonReply(200, items);
  return { ...reply, headers: { ...reply.headers, ...headers } };
}
