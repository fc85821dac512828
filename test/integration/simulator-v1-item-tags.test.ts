import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_PRIMARY_KEYS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { RECENT_TAG_LIMIT } from '../../packages/simulator/src/state-tags.ts';
import { call } from './simulator-v1-http.ts';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

function tagsPath(primaryKey: string, query = ''): string {
  return `/v1/items/${encodeURIComponent(primaryKey)}/tags${query}`;
}

async function tags(primaryKey: string, query = ''): Promise<string[]> {
  const response = await call(sim, 'GET', tagsPath(primaryKey, query));
  expect(response.status).toBe(200);
  return (await response.json()) as string[];
}

describe('simulator item tags: list', () => {
  it('lists the demo tags oldest first, newest first on request, and filtered by baseTag', async () => {
    expect(await tags(DEMO_PRIMARY_KEYS.water)).toEqual(['organic', 'promo:2026', 'promo:2026-spring']);
    expect(await tags(DEMO_PRIMARY_KEYS.water, '?newestFirst=true')).toEqual([
      'promo:2026-spring',
      'promo:2026',
      'organic',
    ]);
    expect(await tags(DEMO_PRIMARY_KEYS.water, '?baseTag=promo&newestFirst=true')).toEqual([
      'promo:2026-spring',
      'promo:2026',
    ]);
    expect(await tags(DEMO_PRIMARY_KEYS.dishSoap)).toEqual([]);
  });

  it('pages with limit/offset and x-cursor', async () => {
    const first = await call(sim, 'GET', tagsPath(DEMO_PRIMARY_KEYS.water, '?limit=2'));
    const cursor = first.headers.get('x-cursor') ?? '';
    const second = await call(sim, 'GET', tagsPath(DEMO_PRIMARY_KEYS.water), {
      headers: { 'x-cursor': cursor },
    });
    const byOffset = await call(sim, 'GET', tagsPath(DEMO_PRIMARY_KEYS.water, '?offset=1&limit=1'));

    expect(await first.json()).toEqual(['organic', 'promo:2026']);
    expect(first.headers.get('x-total-count')).toBe('3');
    expect(await second.json()).toEqual(['promo:2026-spring']);
    expect(second.headers.get('x-cursor')).toBeNull();
    expect(await byOffset.json()).toEqual(['promo:2026']);
  });

  it('shows only the newest RECENT_TAG_LIMIT tags as recently stored', async () => {
    // Prepare
    const key = 'many-tags';
    sim.state.addItem({ primaryKey__: key, name: 'Many tags' });
    const all = Array.from({ length: RECENT_TAG_LIMIT + 5 }, (_, index) => `t${index}`);
    sim.state.itemTags.add(key, all, Date.now());

    // Act
    const response = await call(sim, 'GET', tagsPath(key, '?limit=1'));

    // Assess
    expect(response.headers.get('x-total-count')).toBe(String(RECENT_TAG_LIMIT));
    expect(await response.json()).toEqual(['t5']);
  });

  it('answers 400 for an invalid primary key and 404 for an unknown item, on every method', async () => {
    const invalid = ['a\u0001b', 'x'.repeat(257), '   '];
    const requests = ['GET', 'POST', 'DELETE'].flatMap((method) => {
      const options = method === 'GET' ? {} : { json: ['t'] };
      return [
        ...invalid.map((key) => call(sim, method, tagsPath(key), options)),
        call(sim, method, tagsPath('0000000000000'), options),
      ];
    });

    const statuses = (await Promise.all(requests)).map((response) => response.status);

    expect(statuses).toEqual([400, 400, 400, 404, 400, 400, 400, 404, 400, 400, 400, 404]);
  });
});

describe('simulator item tags: add and remove', () => {
  it('adds tags from a body of any content type; adding a tag again makes it the newest', async () => {
    // Prepare
    const key = DEMO_PRIMARY_KEYS.fridayOats;

    // Act
    const added = await call(sim, 'POST', tagsPath(key), {
      body: JSON.stringify(['breakfast', 'whole grain']),
      headers: { 'content-type': 'text/plain' },
    });
    await call(sim, 'POST', tagsPath(key), { json: ['breakfast'] });
    const noBody = await call(sim, 'POST', tagsPath(key));

    // Assess
    expect(added.status).toBe(204);
    expect(await added.text()).toBe('');
    expect(noBody.status).toBe(204);
    expect(await tags(key)).toEqual(['whole grain', 'breakfast']);
  });

  it('refuses with 400 a body that is not an array of non-empty strings', async () => {
    const key = DEMO_PRIMARY_KEYS.dishSoap;

    const statuses = await Promise.all(
      [{ tag: 'x' }, [1, 2], [''], 'plain'].map(
        async (json) => (await call(sim, 'POST', tagsPath(key), { json })).status,
      ),
    );
    const notJson = await call(sim, 'POST', tagsPath(key), {
      body: '[oops',
      headers: { 'content-type': 'text/plain' },
    });

    expect(statuses).toEqual([400, 400, 400, 400]);
    expect(notJson.status).toBe(400);
    expect(await tags(key)).toEqual([]);
  });

  it('removes the given tags, and every tag when the DELETE has no body', async () => {
    // Prepare
    const key = DEMO_PRIMARY_KEYS.chocolate;
    await call(sim, 'POST', tagsPath(key), { json: ['dark', 'gift', 'vegan'] });

    // Act
    const some = await call(sim, 'DELETE', tagsPath(key), { json: ['gift', 'not-there'] });
    const afterSome = await tags(key);
    const all = await call(sim, 'DELETE', tagsPath(key));

    // Assess
    expect(some.status).toBe(204);
    expect(afterSome).toEqual(['seasonal', 'dark', 'vegan']);
    expect(all.status).toBe(204);
    expect(await tags(key)).toEqual([]);
  });
});
