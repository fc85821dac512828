/**
 * The `/v1/items/{primaryKey}/tags` family: list the recently stored tags (newestFirst, baseTag,
 * paging), add tags and remove tags, with the answers chosen in docs/spec-gaps.md ("/v1 families").
 */
import { z } from 'zod';
import { SimulatorHttpError } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { booleanParam, textParam } from '../query.ts';
import { emptyReply, jsonReply, type Reply } from '../reply.ts';
import { parseBody, readOptionalJsonBody } from '../request-body.ts';
import type { RequestContext, Route } from '../router.ts';
import type { SimulatorState } from '../state.ts';

/** What the item tag handlers work on. */
export interface ItemTagDeps {
  state: SimulatorState;
}

/** Longest primary key and longest tag. */
export const MAX_PRIMARY_KEY_LENGTH = 256;
export const MAX_TAG_LENGTH = 256;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const tagsSchema = z.array(
  z
    .string()
    .min(1, 'a tag cannot be empty')
    .max(MAX_TAG_LENGTH, `a tag has at most ${MAX_TAG_LENGTH} characters`)
    .refine((tag) => !CONTROL_CHARACTERS.test(tag), 'a tag cannot hold control characters'),
);

const PATH = '/v1/items/:primaryKey/tags';

/**
 * The route table of the item tag family.
 *
 * @example
 * new Router([...itemTagRoutes({ state })]);
 */
export function itemTagRoutes(deps: ItemTagDeps): Route[] {
  return [
    { method: 'GET', path: PATH, handler: (c) => listTags(deps, c) },
    { method: 'POST', path: PATH, handler: (c) => addTags(deps, c) },
    { method: 'DELETE', path: PATH, handler: (c) => removeTags(deps, c) },
  ];
}

function listTags({ state }: ItemTagDeps, context: RequestContext): Reply {
  const primaryKey = requireItem(state, context);
  const newestFirst = booleanParam(context.query, 'newestFirst') ?? false;
  const baseTag = textParam(context.query, 'baseTag');
  const recent = state.itemTags.recent(primaryKey).map((stored) => stored.tag);
  const ordered = newestFirst ? recent.reverse() : recent;
  const matching = baseTag === undefined ? ordered : ordered.filter((tag) => tag.startsWith(baseTag));
  const page = paginate(matching, context.req, context.query);
  const reply = jsonReply(200, page.items);
  return { ...reply, headers: { ...reply.headers, ...page.headers } };
}

async function addTags({ state }: ItemTagDeps, context: RequestContext): Promise<Reply> {
  const primaryKey = requireItem(state, context);
  const body = await readOptionalJsonBody(context.req);
  // The body is optional: without one, nothing is added.
  if (body !== undefined) state.itemTags.add(primaryKey, parseTags(body), Date.now());
  return emptyReply(204);
}

async function removeTags({ state }: ItemTagDeps, context: RequestContext): Promise<Reply> {
  const primaryKey = requireItem(state, context);
  const body = await readOptionalJsonBody(context.req);
  // Without a body every tag of the item goes.
  state.itemTags.remove(primaryKey, body === undefined ? undefined : parseTags(body));
  return emptyReply(204);
}

function parseTags(body: unknown): string[] {
  if (!Array.isArray(body)) {
    throw new SimulatorHttpError(
      400,
      'The body must be a JSON array of tags such as ["organic", "promo:2026"]',
    );
  }
  return parseBody(tagsSchema, body);
}

/** The decoded primary key; 400 when it is invalid, 404 when no item has it. */
function requireItem(state: SimulatorState, { params }: RequestContext): string {
  const primaryKey = params.primaryKey ?? '';
  if (
    primaryKey.trim() === '' ||
    primaryKey.length > MAX_PRIMARY_KEY_LENGTH ||
    CONTROL_CHARACTERS.test(primaryKey)
  ) {
    throw new SimulatorHttpError(
      400,
      `Invalid primary key '${primaryKey.slice(0, 40)}': it must be 1 to ${MAX_PRIMARY_KEY_LENGTH} characters, not blank, without control characters`,
    );
  }
  if (!state.isKnownItem(primaryKey)) {
    throw new SimulatorHttpError(
      404,
      `No item has primary key '${primaryKey}'; check the key or import the item`,
    );
  }
  return primaryKey;
}
