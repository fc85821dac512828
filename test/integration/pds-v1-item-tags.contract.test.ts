/**
 * Contract of `pds.itemTags` against the simulator over real HTTP: listing (newestFirst, baseTag, paging
 * through the async iterator), adding and removing tags, 400 for an invalid primary key and 404 for an
 * unknown item. Each `describe` names the operation it covers.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PdsBadRequestError,
  PdsInvalidRequestError,
  PdsNotFoundError,
} from '../../packages/bridge/src/pds/errors.ts';
import type { FullPdsClient } from '../../packages/bridge/src/pds/resources/index.ts';
import {
  DEMO_PRIMARY_KEYS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

let sim: RunningSimulator;
let pds: FullPdsClient;

beforeAll(async () => {
  sim = await startSimulator({ reviewDelayMs: 60_000 });
  pds = simulatorClient(sim);
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
});

beforeEach(() => {
  sim.requestLog.length = 0;
});

let itemCount = 0;
/** A fresh item (with a key that needs encoding) so tests do not see each other's tags. */
function freshItem(): string {
  itemCount += 1;
  const key = `TAG/${itemCount} ü`;
  sim.state.addItem({ primaryKey__: key, name: 'Tagged' });
  return key;
}

describe('GET /v1/items/{primaryKey}/tags', () => {
  it('lists the demo tags oldest first, newest first, and by base tag', async () => {
    // Act
    const oldest = await pds.itemTags.list(DEMO_PRIMARY_KEYS.water).toArray();
    const newest = await pds.itemTags.list(DEMO_PRIMARY_KEYS.water, { newestFirst: true }).toArray();
    const promos = await pds.itemTags.list(DEMO_PRIMARY_KEYS.water, { baseTag: 'promo:' }).toArray();

    // Assess
    expect(oldest).toEqual(['organic', 'promo:2026', 'promo:2026-spring']);
    expect(newest).toEqual(['promo:2026-spring', 'promo:2026', 'organic']);
    expect(promos).toEqual(['promo:2026', 'promo:2026-spring']);
  });

  it('pages through many tags with the cursor', async () => {
    // Prepare
    const key = freshItem();
    const tags = Array.from({ length: 12 }, (_, index) => `t${String(index).padStart(2, '0')}`);
    await pds.itemTags.add(key, tags);
    sim.requestLog.length = 0;

    // Act
    const listed: string[] = [];
    for await (const tag of pds.itemTags.list(key, { pageSize: 5 })) listed.push(tag);

    // Assess
    expect(listed).toEqual(tags);
    expect(sim.requestLog).toHaveLength(3);
  });

  it('answers 400 for an invalid primary key and 404 for an unknown item', async () => {
    // Act
    const invalid = await pds.itemTags
      .list('bad\u0001key')
      .toArray()
      .catch((e) => e);
    const unknown = await pds.itemTags
      .list('NO-SUCH-ITEM')
      .toArray()
      .catch((e) => e);

    // Assess
    expect(invalid).toBeInstanceOf(PdsBadRequestError);
    expect(invalid.status).toBe(400);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('POST /v1/items/{primaryKey}/tags', () => {
  it('adds tags to an item whose key needs encoding; adding one again makes it the newest', async () => {
    // Prepare
    const key = freshItem();

    // Act
    await pds.itemTags.add(key, ['a', 'b']);
    await pds.itemTags.add(key, ['a']);
    const newest = await pds.itemTags.list(key, { newestFirst: true }).toArray();

    // Assess
    expect(newest).toEqual(['a', 'b']);
    expect(sim.requestLog[0]?.path).toBe(`/v1/items/${encodeURIComponent(key)}/tags`);
  });

  it('answers 404 for an unknown item and refuses an empty tag before any request', async () => {
    // Act
    const unknown = await pds.itemTags.add('NO-SUCH-ITEM', ['x']).catch((e) => e);
    sim.requestLog.length = 0;
    const empty = await pds.itemTags.add(DEMO_PRIMARY_KEYS.water, ['']).catch((e) => e);

    // Assess
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
    expect(empty).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });
});

describe('DELETE /v1/items/{primaryKey}/tags', () => {
  it('removes the given tags, then every tag', async () => {
    // Prepare
    const key = freshItem();
    await pds.itemTags.add(key, ['keep', 'drop', 'also']);

    // Act
    await pds.itemTags.remove(key, ['drop', 'unknown']);
    const afterRemove = await pds.itemTags.list(key).toArray();
    await pds.itemTags.removeAll(key);
    const afterRemoveAll = await pds.itemTags.list(key).toArray();

    // Assess
    expect(afterRemove).toEqual(['keep', 'also']);
    expect(afterRemoveAll).toEqual([]);
  });

  it('refuses an empty list before any request: without a body the server would remove every tag', async () => {
    // Prepare
    const key = freshItem();
    await pds.itemTags.add(key, ['stays']);
    sim.requestLog.length = 0;

    // Act
    const error = await pds.itemTags.remove(key, []).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
    expect(await pds.itemTags.list(key).toArray()).toEqual(['stays']);
  });

  it('answers 404 for an unknown item', async () => {
    // Act
    const error = await pds.itemTags.remove('NO-SUCH-ITEM', ['x']).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
  });
});
