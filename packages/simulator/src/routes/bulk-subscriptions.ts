/**
 * The `/v1/bulkSubscription` family: list, create, get / update / delete, name ↔ id, entries (list, add,
 * remove, remove all), imports and the entries file upload, with the answers chosen in
 * docs/spec-gaps.md ("/v1 families").
 *
 * One path shape serves both variants of the spec: a `{ref}` segment of decimal digits only is an id,
 * anything else is a name (names made only of digits are refused at create time).
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BULK_SUBSCRIPTION_ID_PATTERN,
  BULK_UPLOAD_ACTIONS,
  type BulkImportAction,
  type BulkSubscriptionEntry,
  type BulkUploadAction,
} from '@pds-bridge/bridge/pds/resources';
import { z } from 'zod';
import type { DeferredWork } from '../deferred.ts';
import { SimulatorHttpError } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { booleanParam, keywordsParam, matchesKeywords } from '../query.ts';
import { emptyReply, jsonReply, type Reply } from '../reply.ts';
import { MAX_JSON_BODY_BYTES, parseBody, parseJsonText, readJsonBody } from '../request-body.ts';
import type { RequestContext, Route } from '../router.ts';
import type { SimulatorState } from '../state.ts';
import {
  type BulkSubscriptionStore,
  importOnWire,
  type StoredSubscription,
  subscriptionOnWire,
} from '../state-subscriptions.ts';
import { receiveParts } from '../uploads.ts';

/** What the bulk subscription handlers work on. */
export interface BulkSubscriptionDeps {
  state: SimulatorState;
  uploadDir: string;
  /** Applies operations sent with `synchronously=false` later. */
  deferred: DeferredWork;
}

/** Longest subscription name. */
export const MAX_SUBSCRIPTION_NAME_LENGTH = 255;

const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined);
const attributesSchema = z
  .array(z.string().min(1))
  .min(1)
  .refine((names) => new Set(names).size === names.length, 'attribute names must be distinct');
const createSchema = z.object({
  name: z.string(),
  label: optionalText,
  description: optionalText,
  attributes: attributesSchema,
  active: z.boolean().optional(),
});
const updateSchema = z.object({
  name: z.string().optional(),
  id: z.union([z.string(), z.number().int()]).optional(),
  label: optionalText,
  description: optionalText,
  attributes: attributesSchema.optional(),
  active: z.boolean().optional(),
});
const entryValue = z.union([z.string(), z.number().finite(), z.boolean()]);
const entriesSchema = z.array(
  z
    .record(z.string(), entryValue)
    .refine((entry) => Object.keys(entry).length > 0, 'an entry needs an attribute'),
);

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const BASE = '/v1/bulkSubscription';

/**
 * The route table of the `/v1/bulkSubscription` family.
 *
 * @example
 * new Router([...bulkSubscriptionRoutes({ state, uploadDir, deferred: new DeferredWork(200) })]);
 */
export function bulkSubscriptionRoutes(deps: BulkSubscriptionDeps): Route[] {
  return [
    { method: 'GET', path: BASE, handler: (c) => list(deps, c) },
    { method: 'POST', path: BASE, handler: (c) => create(deps, c) },
    { method: 'GET', path: `${BASE}/:ref`, handler: (c) => get(deps, c) },
    { method: 'PUT', path: `${BASE}/:ref`, handler: (c) => update(deps, c) },
    { method: 'DELETE', path: `${BASE}/:ref`, handler: (c) => remove(deps, c) },
    { method: 'GET', path: `${BASE}/:ref/id`, handler: (c) => jsonReply(200, { id: resolve(deps, c).id }) },
    {
      method: 'GET',
      path: `${BASE}/:ref/name`,
      handler: (c) => jsonReply(200, { name: resolve(deps, c).name }),
    },
    { method: 'GET', path: `${BASE}/:ref/entries`, handler: (c) => listEntries(deps, c) },
    {
      method: 'POST',
      path: `${BASE}/:ref/entries`,
      handler: (c) => changeEntriesFromBody(deps, c, 'ADD_ENTRIES'),
    },
    {
      method: 'DELETE',
      path: `${BASE}/:ref/entries`,
      handler: (c) => changeEntriesFromBody(deps, c, 'DELETE_ENTRIES'),
    },
    { method: 'DELETE', path: `${BASE}/:ref/entries/all`, handler: (c) => removeAllEntries(deps, c) },
    { method: 'GET', path: `${BASE}/:ref/imports`, handler: (c) => listImports(deps, c) },
    { method: 'POST', path: `${BASE}/:ref/_upload`, handler: (c) => uploadEntries(deps, c) },
  ];
}

function list({ state }: BulkSubscriptionDeps, { req, query }: RequestContext): Reply {
  const words = keywordsParam(query);
  const active = booleanParam(query, 'active');
  const matching = state.bulkSubscriptions
    .all()
    .filter((sub) => active === undefined || sub.active === active)
    .filter((sub) => matchesKeywords(words, [sub.name, sub.label, sub.description]))
    .sort((a, b) => b.lastUpdated - a.lastUpdated || Number(b.id) - Number(a.id));
  const page = paginate(matching, req, query);
  return withHeaders(jsonReply(200, page.items.map(subscriptionOnWire)), page.headers);
}

async function create(deps: BulkSubscriptionDeps, { req, query }: RequestContext): Promise<Reply> {
  const synchronously = synchronouslyParam(query);
  const body = parseBody(createSchema, await readJsonBody(req));
  checkName(body.name);
  const store = deps.state.bulkSubscriptions;
  if (store.byName(body.name)) {
    throw new SimulatorHttpError(409, `A bulk subscription named '${body.name}' exists; choose another name`);
  }
  const sub = store.create(body, Date.now(), synchronously ? 'IDLE' : 'PROCESSING');
  // Nothing is left to apply: a deferred create only stays PROCESSING for a while.
  if (!synchronously) defer(deps, sub, () => {});
  return jsonReply(synchronously ? 201 : 202, subscriptionOnWire(sub));
}

function get(deps: BulkSubscriptionDeps, context: RequestContext): Reply {
  return jsonReply(200, subscriptionOnWire(resolve(deps, context)));
}

async function update(deps: BulkSubscriptionDeps, context: RequestContext): Promise<Reply> {
  const synchronously = synchronouslyParam(context.query);
  const sub = resolve(deps, context);
  const body = parseBody(updateSchema, await readJsonBody(context.req));
  if (synchronously) settle(deps, sub);
  if (body.name !== undefined && body.name !== sub.name) {
    throw new SimulatorHttpError(
      400,
      `The body names '${body.name}' but the subscription is '${sub.name}'; names cannot change, leave name out`,
    );
  }
  if (body.id !== undefined && String(body.id) !== sub.id) {
    throw new SimulatorHttpError(
      400,
      `The body has id '${body.id}' but the subscription's id is '${sub.id}'; ids cannot change, leave id out`,
    );
  }
  const { attributes } = body;
  if (attributes) {
    const missing = usedAttributes(sub).filter((name) => !attributes.includes(name));
    if (missing.length > 0) {
      throw new SimulatorHttpError(
        409,
        `Entries still use ${missing.map((name) => `'${name}'`).join(', ')}; keep those attributes or remove the entries first`,
      );
    }
  }
  const apply = () => {
    if (body.label !== undefined) sub.label = body.label;
    if (body.description !== undefined) sub.description = body.description;
    if (attributes) sub.attributes = [...attributes];
    if (body.active !== undefined) sub.active = body.active;
    sub.lastUpdated = Date.now();
  };
  if (synchronously) apply();
  else defer(deps, sub, apply);
  return jsonReply(synchronously ? 200 : 202, subscriptionOnWire(sub));
}

function remove(deps: BulkSubscriptionDeps, context: RequestContext): Reply {
  const synchronously = synchronouslyParam(context.query);
  const force = booleanParam(context.query, 'force') ?? false;
  const sub = resolve(deps, context);
  if (sub.state !== 'IDLE' && !force) {
    throw new SimulatorHttpError(
      409,
      `Bulk subscription '${sub.name}' (id ${sub.id}) is ${sub.state}; wait until its state is IDLE or delete it with force=true`,
    );
  }
  const store = deps.state.bulkSubscriptions;
  // Forcing drops what was still waiting to be applied.
  deps.deferred.cancel(sub.id);
  if (synchronously) {
    store.delete(sub);
    return emptyReply(204);
  }
  defer(deps, sub, () => store.delete(sub));
  return emptyReply(202);
}

function listEntries(deps: BulkSubscriptionDeps, context: RequestContext): Reply {
  const sub = resolve(deps, context);
  const words = keywordsParam(context.query);
  const matching = [...sub.entries.values()].filter((entry) =>
    matchesKeywords(words, Object.values(entry).map(String)),
  );
  const page = paginate(matching, context.req, context.query);
  return withHeaders(jsonReply(200, page.items), page.headers);
}

async function changeEntriesFromBody(
  deps: BulkSubscriptionDeps,
  context: RequestContext,
  action: BulkUploadAction,
): Promise<Reply> {
  const sub = resolve(deps, context);
  const entries = parseEntries(await readJsonBody(context.req), 'The request body');
  return changeEntries(deps, context, sub, { action, source: 'API', entries });
}

function removeAllEntries(deps: BulkSubscriptionDeps, context: RequestContext): Reply {
  const sub = resolve(deps, context);
  return changeEntries(deps, context, sub, { action: 'DELETE_ALL_ENTRIES', source: 'API', entries: [] });
}

function listImports(deps: BulkSubscriptionDeps, context: RequestContext): Reply {
  const sub = resolve(deps, context);
  const newestFirst = [...sub.imports].reverse();
  const page = paginate(newestFirst, context.req, context.query);
  return withHeaders(jsonReply(200, page.items.map(importOnWire)), page.headers);
}

async function uploadEntries(deps: BulkSubscriptionDeps, context: RequestContext): Promise<Reply> {
  const sub = resolve(deps, context);
  const action = context.query.get('action') ?? '';
  if (!(BULK_UPLOAD_ACTIONS as readonly string[]).includes(action)) {
    throw new SimulatorHttpError(
      400,
      `Query parameter action must be ${BULK_UPLOAD_ACTIONS.join(' or ')}, got '${action || 'none'}'`,
    );
  }
  const { fileName, text } = await receiveEntriesFile(deps, context);
  const entries = parseEntries(parseJsonText(text, `The file '${fileName}'`), `The file '${fileName}'`);
  return changeEntries(deps, context, sub, {
    action: action as BulkUploadAction,
    source: 'UPLOAD',
    fileName,
    entries,
  });
}

/** Applies (now or later) one change of the entries and answers its import record. */
function changeEntries(
  deps: BulkSubscriptionDeps,
  { query }: RequestContext,
  sub: StoredSubscription,
  change: {
    action: BulkImportAction;
    source: 'API' | 'UPLOAD';
    fileName?: string;
    entries: BulkSubscriptionEntry[];
  },
): Reply {
  const synchronously = synchronouslyParam(query);
  if (synchronously) settle(deps, sub);
  checkEntryAttributes(sub, change.entries);
  const store = deps.state.bulkSubscriptions;
  const record = store.startImport(
    sub,
    {
      action: change.action,
      source: change.source,
      fileName: change.fileName,
      entriesRequested: change.entries.length,
    },
    Date.now(),
  );
  const apply = () => {
    if (change.action === 'ADD_ENTRIES') record.entriesAdded = store.addEntries(sub, change.entries);
    else if (change.action === 'DELETE_ENTRIES')
      record.entriesRemoved = store.removeEntries(sub, change.entries);
    else record.entriesRemoved = store.removeAllEntries(sub);
    record.status = 'DONE';
    record.completedAt = Date.now();
    sub.lastUpdated = record.completedAt;
  };
  if (synchronously) apply();
  else defer(deps, sub, apply);
  return jsonReply(synchronously ? 200 : 202, importOnWire(record));
}

/** Receives the one `file` part of an upload (400 when there is none, or more than one) and reads it. */
async function receiveEntriesFile(
  { state, uploadDir }: BulkSubscriptionDeps,
  { req }: RequestContext,
): Promise<{ fileName: string; text: string }> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    // The spec's answer to a request that holds no file is 400, whatever it holds instead.
    throw new SimulatorHttpError(
      400,
      `The request holds no file (Content-Type '${contentType || 'none'}'); send multipart/form-data with the JSON entries file as form field 'file'`,
    );
  }
  const directory = join(uploadDir, 'subscription-uploads', state.newUuid());
  try {
    await mkdir(directory, { recursive: true });
    const parts = await receiveParts(req, state, directory);
    const [part, ...more] = parts;
    if (!part) {
      throw new SimulatorHttpError(
        400,
        "The request holds no file; send the JSON entries file as form field 'file' with a file name",
      );
    }
    if (more.length > 0) throw new SimulatorHttpError(400, `Send one file per upload, got ${parts.length}`);
    if (part.size > MAX_JSON_BODY_BYTES) {
      throw new SimulatorHttpError(
        413,
        `The file '${part.fileName}' is larger than ${MAX_JSON_BODY_BYTES} bytes; split the entries over several uploads`,
      );
    }
    return { fileName: part.fileName, text: await readFile(part.diskPath, 'utf8') };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The subscription `{ref}` names: an id when it is all digits, a name otherwise; 404 when none. */
function resolve({ state }: BulkSubscriptionDeps, { params }: RequestContext): StoredSubscription {
  const ref = params.ref ?? '';
  return findByRef(state.bulkSubscriptions, ref);
}

/**
 * The subscription a path segment names, by the id-versus-name rule; 404 when none.
 *
 * @example
 * findByRef(store, '12');         // by id (also '012')
 * findByRef(store, 'gtin-watch'); // by name
 */
export function findByRef(store: BulkSubscriptionStore, ref: string): StoredSubscription {
  if (BULK_SUBSCRIPTION_ID_PATTERN.test(ref)) {
    const sub = store.byId(BigInt(ref).toString());
    if (!sub) throw new SimulatorHttpError(404, `No bulk subscription has id '${ref}'; check the id`);
    return sub;
  }
  const sub = store.byName(ref);
  if (!sub) throw new SimulatorHttpError(404, `No bulk subscription is named '${ref}'; check the name`);
  return sub;
}

function checkName(name: string): void {
  const problem =
    name.trim() === ''
      ? 'is empty'
      : BULK_SUBSCRIPTION_ID_PATTERN.test(name)
        ? 'is made of digits only, which addresses an id in /v1/bulkSubscription/{id}'
        : name === '.' || name === '..'
          ? 'cannot be addressed in a URL path'
          : name.length > MAX_SUBSCRIPTION_NAME_LENGTH
            ? `is longer than ${MAX_SUBSCRIPTION_NAME_LENGTH} characters`
            : CONTROL_CHARACTERS.test(name)
              ? 'holds control characters'
              : undefined;
  if (problem)
    throw new SimulatorHttpError(400, `The name '${name.slice(0, 40)}' ${problem}; choose another name`);
}

function parseEntries(value: unknown, what: string): BulkSubscriptionEntry[] {
  if (!Array.isArray(value)) {
    throw new SimulatorHttpError(
      400,
      `${what} must be a JSON array of entries such as [{"gtin": "04006381333931"}]`,
    );
  }
  return parseBody(entriesSchema, value);
}

function checkEntryAttributes(sub: StoredSubscription, entries: readonly BulkSubscriptionEntry[]): void {
  const allowed = new Set(sub.attributes);
  entries.forEach((entry, index) => {
    const unknown = Object.keys(entry).filter((name) => !allowed.has(name));
    if (unknown.length > 0) {
      throw new SimulatorHttpError(
        400,
        `Entry [${index}] uses ${unknown.map((name) => `'${name}'`).join(', ')}, not attributes of '${sub.name}' (${sub.attributes.join(', ')}); use only those`,
      );
    }
  });
}

function usedAttributes(sub: StoredSubscription): string[] {
  const used = new Set<string>();
  for (const entry of sub.entries.values()) for (const name of Object.keys(entry)) used.add(name);
  return [...used];
}

/** `synchronously` defaults to true: the change is applied before the answer. */
function synchronouslyParam(query: URLSearchParams): boolean {
  return booleanParam(query, 'synchronously') ?? true;
}

/** Runs what is still waiting for the subscription, so a synchronous operation sees it; 404 if that deleted it. */
function settle(deps: BulkSubscriptionDeps, sub: StoredSubscription): void {
  deps.deferred.flush(sub.id);
  if (!deps.state.bulkSubscriptions.has(sub)) {
    throw new SimulatorHttpError(404, `Bulk subscription '${sub.name}' was deleted by an earlier operation`);
  }
}

/** Marks the subscription PROCESSING and applies `work` later; IDLE again once everything queued ran. */
function defer(deps: BulkSubscriptionDeps, sub: StoredSubscription, work: () => void): void {
  sub.state = 'PROCESSING';
  deps.deferred.defer(sub.id, work, () => {
    sub.state = 'IDLE';
  });
}

function withHeaders(reply: Reply, headers: Record<string, string>): Reply {
  return { ...reply, headers: { ...reply.headers, ...headers } };
}
