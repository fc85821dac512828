import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  BulkSubscription,
  BulkSubscriptionImport,
} from '../../packages/bridge/src/pds/resources/types.ts';
import {
  DEMO_BULK_SUBSCRIPTIONS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { call, formOf, messageOf, waitFor } from './simulator-v1-http.ts';

let sim: RunningSimulator;
/** A simulator that applies `synchronously=false` operations only after a minute (never within a test). */
let slow: RunningSimulator;
/** A simulator that applies them after 20 ms. */
let quick: RunningSimulator;

beforeAll(async () => {
  [sim, slow, quick] = await Promise.all([
    startSimulator(),
    startSimulator({ demoData: false, bulkSubscriptionDelayMs: 60_000 }),
    startSimulator({ demoData: false, bulkSubscriptionDelayMs: 20 }),
  ]);
});
afterAll(async () => {
  await Promise.all([sim.close(), slow.close(), quick.close()]);
});

const BASE = '/v1/bulkSubscription';

async function create(
  target: RunningSimulator,
  body: Record<string, unknown>,
  query = '',
): Promise<{ status: number; sub: BulkSubscription }> {
  const response = await call(target, 'POST', `${BASE}${query}`, { json: body });
  return { status: response.status, sub: (await response.json()) as BulkSubscription };
}

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

describe('simulator bulk subscriptions: list', () => {
  it('lists the demo subscriptions newest first and filters by active and keywords', async () => {
    const all = await json<BulkSubscription[]>(await call(sim, 'GET', BASE));
    const active = await json<BulkSubscription[]>(await call(sim, 'GET', `${BASE}?active=true`));
    const inactive = await json<BulkSubscription[]>(await call(sim, 'GET', `${BASE}?active=FALSE`));
    const keywords = await json<BulkSubscription[]>(
      await call(sim, 'GET', `${BASE}?keywords=VOLUME%20beverages`),
    );
    const badActive = await call(sim, 'GET', `${BASE}?active=maybe`);

    expect(all.slice(-2).map((sub) => sub.name)).toEqual([
      DEMO_BULK_SUBSCRIPTIONS.beverageFeed,
      DEMO_BULK_SUBSCRIPTIONS.gtinWatch,
    ]);
    expect(all.at(-1)).toEqual({
      id: '1',
      name: 'gtin-watch',
      label: 'GTIN watch list',
      description: 'Items followed by their GTIN',
      attributes: ['gtin'],
      active: true,
      state: 'IDLE',
      lastUpdated: '2026-01-05T09:10:00.000Z',
      entryCount: 2,
    });
    expect(active.every((sub) => sub.active)).toBe(true);
    expect(inactive.map((sub) => sub.name)).toEqual([DEMO_BULK_SUBSCRIPTIONS.beverageFeed]);
    expect(keywords.map((sub) => sub.name)).toEqual([DEMO_BULK_SUBSCRIPTIONS.beverageFeed]);
    expect(badActive.status).toBe(400);
  });

  it('pages with limit/offset and with the x-cursor header until no cursor comes back', async () => {
    // Prepare
    for (let i = 0; i < 5; i += 1) await create(quick, { name: `page-${i}`, attributes: ['a'] });

    // Act
    const byCursor: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await call(quick, 'GET', `${BASE}?keywords=page-&limit=2`, {
        headers: cursor ? { 'x-cursor': cursor } : {},
      });
      byCursor.push(...(await json<BulkSubscription[]>(response)).map((sub) => sub.name));
      cursor = response.headers.get('x-cursor');
      pages += 1;
    } while (cursor && pages < 10);
    const byOffset = await call(quick, 'GET', `${BASE}?keywords=page-&limit=2&offset=4`);
    const badCursor = await call(quick, 'GET', BASE, { headers: { 'x-cursor': 'not-a-cursor' } });
    const badLimit = await call(quick, 'GET', `${BASE}?limit=0`);

    // Assess
    expect(pages).toBe(3);
    expect(new Set(byCursor).size).toBe(5);
    expect(byOffset.headers.get('x-cursor')).toBeNull();
    expect(byOffset.headers.get('x-total-count')).toBe('5');
    expect((await json<BulkSubscription[]>(byOffset)).length).toBe(1);
    expect(badCursor.status).toBe(400);
    expect(badLimit.status).toBe(400);
  });
});

describe('simulator bulk subscriptions: create, get, update, delete', () => {
  it('creates (201), then finds it by name and by id, with name ↔ id lookups', async () => {
    // Act
    const { status, sub } = await create(sim, {
      name: 'a/b name',
      label: 'L',
      description: 'D',
      attributes: ['gtin', 'market'],
    });
    const byName = await call(sim, 'GET', `${BASE}/${encodeURIComponent('a/b name')}`);
    const byId = await call(sim, 'GET', `${BASE}/${sub.id}`);
    const idOf = await call(sim, 'GET', `${BASE}/${encodeURIComponent('a/b name')}/id`);
    const nameOf = await call(sim, 'GET', `${BASE}/${sub.id}/name`);

    // Assess
    expect(status).toBe(201);
    expect(sub).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      name: 'a/b name',
      active: true,
      state: 'IDLE',
      entryCount: 0,
    });
    expect(await byName.json()).toEqual(sub);
    expect(await byId.json()).toEqual(sub);
    expect(await idOf.json()).toEqual({ id: sub.id });
    expect(await nameOf.json()).toEqual({ name: 'a/b name' });
  });

  it('refuses a duplicate name (409), a missing name or attributes and a digits-only name (400)', async () => {
    const duplicate = await create(sim, { name: DEMO_BULK_SUBSCRIPTIONS.gtinWatch, attributes: ['x'] });
    const noName = await create(sim, { attributes: ['x'] });
    const noAttributes = await create(sim, { name: 'no-attributes' });
    const digits = await create(sim, { name: '12345', attributes: ['x'] });
    const notJson = await call(sim, 'POST', BASE, {
      body: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });

    expect([duplicate.status, noName.status, noAttributes.status, digits.status]).toEqual([
      409, 400, 400, 400,
    ]);
    expect(JSON.stringify(digits.sub)).toContain('digits only');
    expect(notJson.status).toBe(415);
  });

  it('answers 404 for an unknown name or id on every operation', async () => {
    const paths = ['no-such-name', '999999'];
    const requests = paths.flatMap((ref) => [
      call(sim, 'GET', `${BASE}/${ref}`),
      call(sim, 'PUT', `${BASE}/${ref}`, { json: { label: 'x' } }),
      call(sim, 'DELETE', `${BASE}/${ref}`),
      call(sim, 'GET', `${BASE}/${ref}/id`),
      call(sim, 'GET', `${BASE}/${ref}/name`),
      call(sim, 'GET', `${BASE}/${ref}/entries`),
      call(sim, 'POST', `${BASE}/${ref}/entries`, { json: [{ gtin: '1' }] }),
      call(sim, 'DELETE', `${BASE}/${ref}/entries`, { json: [{ gtin: '1' }] }),
      call(sim, 'DELETE', `${BASE}/${ref}/entries/all`),
      call(sim, 'GET', `${BASE}/${ref}/imports`),
      call(sim, 'POST', `${BASE}/${ref}/_upload?action=ADD_ENTRIES`, {
        body: formOf([{ name: 'e.json', content: '[]' }]),
      }),
    ]);

    const statuses = (await Promise.all(requests)).map((response) => response.status);

    expect(statuses).toEqual(Array(22).fill(404));
  });

  it('updates by name and by id (200), keeping fields left out; refuses a changed name or id (400)', async () => {
    // Prepare
    const { sub } = await create(sim, {
      name: 'to-update',
      label: 'old',
      description: 'keep',
      attributes: ['a'],
    });

    // Act
    const byName = await call(sim, 'PUT', `${BASE}/to-update`, {
      json: { name: 'to-update', label: 'new', active: false },
    });
    const byId = await call(sim, 'PUT', `${BASE}/${sub.id}`, {
      json: { id: sub.id, attributes: ['a', 'b'] },
    });
    const rename = await call(sim, 'PUT', `${BASE}/to-update`, { json: { name: 'other' } });
    const otherId = await call(sim, 'PUT', `${BASE}/${sub.id}`, { json: { id: '1' } });

    // Assess
    expect(byName.status).toBe(200);
    expect(await byName.json()).toMatchObject({ label: 'new', description: 'keep', active: false });
    expect(byId.status).toBe(200);
    const updated = await json<BulkSubscription>(byId);
    expect(updated).toMatchObject({ label: 'new', attributes: ['a', 'b'] });
    expect(Date.parse(updated.lastUpdated)).toBeGreaterThanOrEqual(Date.parse(sub.lastUpdated));
    expect([rename.status, otherId.status]).toEqual([400, 400]);
  });

  it('refuses with 409 an update dropping an attribute that entries still use', async () => {
    await create(sim, { name: 'attr-check', attributes: ['a', 'b'] });
    await call(sim, 'POST', `${BASE}/attr-check/entries`, { json: [{ b: 'x' }] });

    const response = await call(sim, 'PUT', `${BASE}/attr-check`, { json: { attributes: ['a'] } });

    expect(response.status).toBe(409);
    expect(await messageOf(response)).toContain("'b'");
  });

  it('deletes by name and by id (204)', async () => {
    const { sub: first } = await create(sim, { name: 'delete-by-name', attributes: ['a'] });
    const { sub: second } = await create(sim, { name: 'delete-by-id', attributes: ['a'] });

    const byName = await call(sim, 'DELETE', `${BASE}/delete-by-name?synchronously=true`);
    const byId = await call(sim, 'DELETE', `${BASE}/${second.id}`);

    expect([byName.status, byId.status]).toEqual([204, 204]);
    expect((await call(sim, 'GET', `${BASE}/${first.id}`)).status).toBe(404);
    expect((await call(sim, 'GET', `${BASE}/delete-by-id`)).status).toBe(404);
  });
});

describe('simulator bulk subscriptions: entries, imports and uploads', () => {
  it('adds entries once, lists them with keywords and paging, removes given ones and all', async () => {
    // Prepare
    const { sub } = await create(sim, { name: 'entries', attributes: ['gtin', 'market'] });

    // Act
    const added = await call(sim, 'POST', `${BASE}/entries/entries`, {
      json: [
        { gtin: '04006381333931', market: 'DE' },
        { market: 'NL', gtin: '04006381333948' },
        { gtin: '04006381333955' },
      ],
    });
    const again = await call(sim, 'POST', `${BASE}/${sub.id}/entries`, {
      json: [{ market: 'DE', gtin: '04006381333931' }],
    });
    const keywordPage = await call(sim, 'GET', `${BASE}/entries/entries?keywords=nl`);
    const firstPage = await call(sim, 'GET', `${BASE}/${sub.id}/entries?limit=2`);
    const removed = await call(sim, 'DELETE', `${BASE}/entries/entries`, {
      json: [{ gtin: '04006381333955' }, { gtin: 'absent' }],
    });
    const afterRemove = await json<unknown[]>(await call(sim, 'GET', `${BASE}/entries/entries`));
    const removedAll = await call(sim, 'DELETE', `${BASE}/${sub.id}/entries/all`);
    const afterAll = await json<unknown[]>(await call(sim, 'GET', `${BASE}/entries/entries`));

    // Assess
    expect(added.status).toBe(200);
    expect(await added.json()).toMatchObject({
      action: 'ADD_ENTRIES',
      source: 'API',
      status: 'DONE',
      entriesRequested: 3,
      entriesAdded: 3,
      subscriptionId: sub.id,
    });
    expect(await again.json()).toMatchObject({ entriesRequested: 1, entriesAdded: 0 });
    expect(await keywordPage.json()).toEqual([{ market: 'NL', gtin: '04006381333948' }]);
    expect((await json<unknown[]>(firstPage)).length).toBe(2);
    expect(firstPage.headers.get('x-cursor')).toEqual(expect.any(String));
    expect(await removed.json()).toMatchObject({
      action: 'DELETE_ENTRIES',
      entriesRequested: 2,
      entriesRemoved: 1,
    });
    expect(afterRemove).toHaveLength(2);
    expect(await removedAll.json()).toMatchObject({ action: 'DELETE_ALL_ENTRIES', entriesRemoved: 2 });
    expect(afterAll).toEqual([]);
    const imports = await json<BulkSubscriptionImport[]>(await call(sim, 'GET', `${BASE}/entries/imports`));
    expect(imports.map((record) => record.action)).toEqual([
      'DELETE_ALL_ENTRIES',
      'DELETE_ENTRIES',
      'ADD_ENTRIES',
      'ADD_ENTRIES',
    ]);
    const paged = await call(sim, 'GET', `${BASE}/${sub.id}/imports?limit=1&offset=1`);
    expect((await json<BulkSubscriptionImport[]>(paged))[0]?.action).toBe('DELETE_ENTRIES');
  });

  it('refuses entries with unknown attributes, a body that is not an array and bad values (400)', async () => {
    const unknownAttribute = await call(sim, 'POST', `${BASE}/gtin-watch/entries`, {
      json: [{ brand: 'x' }],
    });
    const notArray = await call(sim, 'POST', `${BASE}/gtin-watch/entries`, { json: { gtin: '1' } });
    const nested = await call(sim, 'POST', `${BASE}/gtin-watch/entries`, { json: [{ gtin: { a: 1 } }] });
    const empty = await call(sim, 'DELETE', `${BASE}/gtin-watch/entries`, { json: [{}] });

    expect([unknownAttribute.status, notArray.status, nested.status, empty.status]).toEqual([
      400, 400, 400, 400,
    ]);
    expect(await messageOf(unknownAttribute)).toContain("'brand'");
  });

  it('uploads a JSON entries file to add and to delete entries', async () => {
    // Prepare
    await create(sim, { name: 'uploads', attributes: ['gtin'] });
    const file = JSON.stringify([{ gtin: '1' }, { gtin: '2' }, { gtin: '3' }]);

    // Act
    const add = await call(sim, 'POST', `${BASE}/uploads/_upload?action=ADD_ENTRIES`, {
      body: formOf([{ name: 'entries.json', content: file, type: 'application/json' }]),
    });
    const remove = await call(sim, 'POST', `${BASE}/uploads/_upload?action=DELETE_ENTRIES`, {
      body: formOf([{ name: 'gone.json', content: JSON.stringify([{ gtin: '2' }]) }]),
    });

    // Assess
    expect(add.status).toBe(200);
    expect(await add.json()).toMatchObject({ source: 'UPLOAD', fileName: 'entries.json', entriesAdded: 3 });
    expect(await remove.json()).toMatchObject({ action: 'DELETE_ENTRIES', entriesRemoved: 1 });
    expect(await json<unknown[]>(await call(sim, 'GET', `${BASE}/uploads/entries`))).toEqual([
      { gtin: '1' },
      { gtin: '3' },
    ]);
  });

  it('answers 400 to an upload without a file, with a bad action, bad JSON or wrong entries', async () => {
    const noFileForm = new FormData();
    noFileForm.append('note', 'no file here');

    const statuses = await Promise.all([
      call(sim, 'POST', `${BASE}/gtin-watch/_upload?action=ADD_ENTRIES`, { body: noFileForm }),
      call(sim, 'POST', `${BASE}/gtin-watch/_upload?action=ADD_ENTRIES`, { json: [{ gtin: '1' }] }),
      call(sim, 'POST', `${BASE}/gtin-watch/_upload?action=REPLACE`, {
        body: formOf([{ name: 'e.json', content: '[]' }]),
      }),
      call(sim, 'POST', `${BASE}/gtin-watch/_upload`, { body: formOf([{ name: 'e.json', content: '[]' }]) }),
      call(sim, 'POST', `${BASE}/gtin-watch/_upload?action=ADD_ENTRIES`, {
        body: formOf([{ name: 'e.json', content: '[{' }]),
      }),
      call(sim, 'POST', `${BASE}/gtin-watch/_upload?action=ADD_ENTRIES`, {
        body: formOf([{ name: 'e.json', content: '[{"brand":"x"}]' }]),
      }),
    ]).then((responses) => responses.map((response) => response.status));

    expect(statuses).toEqual([400, 400, 400, 400, 400, 400]);
  });
});

describe('simulator bulk subscriptions: synchronously and force', () => {
  it('accepts synchronously=false with 202, shows PROCESSING, then applies the change', async () => {
    // Prepare
    await create(quick, { name: 'later', attributes: ['gtin'] });

    // Act
    const accepted = await call(quick, 'POST', `${BASE}/later/entries?synchronously=false`, {
      json: [{ gtin: '1' }],
    });
    const record = await json<BulkSubscriptionImport>(accepted);
    const settled = await waitFor(async () => {
      const sub = await json<BulkSubscription>(await call(quick, 'GET', `${BASE}/later`));
      return sub.state === 'IDLE' ? sub : undefined;
    }, 'the deferred entries');

    // Assess
    expect(accepted.status).toBe(202);
    expect(record).toMatchObject({ status: 'PENDING', entriesAdded: 0 });
    expect(record.completedAt).toBeUndefined();
    expect(settled.entryCount).toBe(1);
    const [done] = await json<BulkSubscriptionImport[]>(await call(quick, 'GET', `${BASE}/later/imports`));
    expect(done).toMatchObject({
      id: record.id,
      status: 'DONE',
      entriesAdded: 1,
      completedAt: expect.any(String),
    });
  });

  it('refuses to delete a PROCESSING subscription with 409 unless force=true', async () => {
    // Prepare
    const { status, sub } = await create(slow, { name: 'busy', attributes: ['a'] }, '?synchronously=false');

    // Act
    const refused = await call(slow, 'DELETE', `${BASE}/busy`);
    const stillThere = await call(slow, 'GET', `${BASE}/${sub.id}`);
    const forced = await call(slow, 'DELETE', `${BASE}/${sub.id}?force=true`);

    // Assess
    expect(status).toBe(202);
    expect(sub.state).toBe('PROCESSING');
    expect(refused.status).toBe(409);
    expect(await messageOf(refused)).toContain('force=true');
    expect(stillThere.status).toBe(200);
    expect(forced.status).toBe(204);
    expect((await call(slow, 'GET', `${BASE}/busy`)).status).toBe(404);
  });

  it('applies waiting changes before a synchronous one, in order', async () => {
    // Prepare
    await create(slow, { name: 'ordered', attributes: ['a'] });
    const deferred = await call(slow, 'PUT', `${BASE}/ordered?synchronously=false`, {
      json: { label: 'first' },
    });

    // Act
    const synchronous = await call(slow, 'PUT', `${BASE}/ordered?synchronously=true`, {
      json: { description: 'second' },
    });

    // Assess
    expect(deferred.status).toBe(202);
    expect(synchronous.status).toBe(200);
    expect(await synchronous.json()).toMatchObject({ label: 'first', description: 'second', state: 'IDLE' });
  });

  it('deletes later with synchronously=false (202) and answers 400 for a non-boolean flag', async () => {
    await create(quick, { name: 'delete-later', attributes: ['a'] });

    const accepted = await call(quick, 'DELETE', `${BASE}/delete-later?synchronously=false`);
    const badForce = await call(quick, 'DELETE', `${BASE}/delete-later?force=sometimes`);
    const gone = await waitFor(async () => {
      const response = await call(quick, 'GET', `${BASE}/delete-later`);
      return response.status === 404 ? response : undefined;
    }, 'the deferred delete');

    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
    expect(badForce.status).toBe(400);
    expect(gone.status).toBe(404);
  });
});
