/**
 * Contract of `pds.bulkSubscriptions` against the simulator over real HTTP: every `/v1/bulkSubscription`
 * operation in its `{id}` and `{name}` variants, paging through the async iterator, `synchronously` and
 * `force`, the documented error statuses (400, 404, 409), and references refused before any request.
 * Each `describe` names the operations it covers (checked by test/integration/pds-endpoints.test.ts).
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PdsBadRequestError,
  PdsConflictError,
  PdsInvalidRequestError,
  PdsNotFoundError,
} from '../../packages/bridge/src/pds/errors.ts';
import type { SubscriptionRef } from '../../packages/bridge/src/pds/resources/bulk-subscriptions.ts';
import type { FullPdsClient } from '../../packages/bridge/src/pds/resources/index.ts';
import type { BulkSubscription } from '../../packages/bridge/src/pds/resources/types.ts';
import { PdsTransport } from '../../packages/bridge/src/pds/transport.ts';
import {
  DEMO_BULK_SUBSCRIPTIONS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

let sim: RunningSimulator;
let pds: FullPdsClient;
let dir: string;

beforeAll(async () => {
  // Deferred work waits a minute: a subscription sent synchronously=false stays PROCESSING during a test.
  sim = await startSimulator({ reviewDelayMs: 60_000, bulkSubscriptionDelayMs: 60_000 });
  dir = await mkdtemp(join(tmpdir(), 'pds-v1-subscriptions-'));
  pds = simulatorClient(sim);
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  sim.requestLog.length = 0;
});

let created = 0;
/** A fresh subscription with attributes gtin and market. */
async function freshSubscription(extra: Partial<Parameters<typeof pds.bulkSubscriptions.create>[0]> = {}) {
  created += 1;
  return pds.bulkSubscriptions.create({
    name: `contract-${created}`,
    attributes: ['gtin', 'market'],
    ...extra,
  });
}

/** Both references of a subscription, to run a test against the `{id}` and the `{name}` variant. */
function refsOf(subscription: BulkSubscription): Array<[string, SubscriptionRef]> {
  return [
    ['{id}', { id: subscription.id }],
    ['{name}', { name: subscription.name }],
  ];
}

function jsonSource(fileName: string, value: unknown) {
  const bytes = Buffer.from(JSON.stringify(value), 'utf8');
  return { stream: Readable.from([bytes]), size: bytes.length, fileName, contentType: 'application/json' };
}

describe('GET /v1/bulkSubscription', () => {
  it('iterates every subscription newest first, following the cursor page by page', async () => {
    // Prepare
    const newest = await freshSubscription();
    sim.requestLog.length = 0;

    // Act
    const names: string[] = [];
    for await (const subscription of pds.bulkSubscriptions.list({ pageSize: 1 }))
      names.push(subscription.name);

    // Assess
    expect(names[0]).toBe(newest.name);
    expect(names).toEqual(expect.arrayContaining(Object.values(DEMO_BULK_SUBSCRIPTIONS)));
    expect(new Set(names).size).toBe(sim.state.bulkSubscriptions.all().length);
    expect(sim.requestLog).toHaveLength(names.length);
  });

  it('filters by active flag and keywords', async () => {
    // Act
    const inactive = await pds.bulkSubscriptions.list({ active: false }).toArray();
    const byKeywords = await pds.bulkSubscriptions.list({ keywords: 'GTIN list' }).toArray();

    // Assess
    expect(inactive.map((sub) => sub.name)).toEqual([DEMO_BULK_SUBSCRIPTIONS.beverageFeed]);
    expect(byKeywords.map((sub) => sub.name)).toEqual([DEMO_BULK_SUBSCRIPTIONS.gtinWatch]);
    expect(sim.requestLog[0]?.path).toContain('active=false');
  });

  it('answers 400 for a page size the server refuses', async () => {
    // Act
    const error = await pds.bulkSubscriptions
      .list({ pageSize: 5000 })
      .toArray()
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsBadRequestError);
  });
});

describe('POST /v1/bulkSubscription', () => {
  it('creates a subscription (201), or accepts it to be done later with synchronously=false (202)', async () => {
    // Act
    const now = await pds.bulkSubscriptions.create({
      name: 'contract-created',
      label: 'Created',
      attributes: ['gtin'],
    });
    const later = await pds.bulkSubscriptions.create(
      { name: 'contract-created-later', attributes: ['gtin'] },
      { synchronously: false },
    );

    // Assess
    expect(now).toMatchObject({ name: 'contract-created', label: 'Created', active: true, state: 'IDLE' });
    expect(now.id).toMatch(/^\d+$/);
    expect(later.state).toBe('PROCESSING');
    expect(sim.requestLog.map((entry) => entry.status)).toEqual([201, 202]);
  });

  it('answers 409 for a taken name and 400 for invalid attributes', async () => {
    // Act
    const taken = await pds.bulkSubscriptions
      .create({ name: DEMO_BULK_SUBSCRIPTIONS.gtinWatch, attributes: ['gtin'] })
      .catch((e) => e);
    const duplicate = await pds.bulkSubscriptions
      .create({ name: 'contract-dup', attributes: ['gtin', 'gtin'] })
      .catch((e) => e);

    // Assess
    expect(taken).toBeInstanceOf(PdsConflictError);
    expect(duplicate).toBeInstanceOf(PdsBadRequestError);
  });

  it('refuses a digits-only name before any request: it could only ever be addressed as an id', async () => {
    // Act
    const error = await pds.bulkSubscriptions.create({ name: '2026', attributes: ['gtin'] }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });
});

describe('GET /v1/bulkSubscription/{name} · GET /v1/bulkSubscription/{id}', () => {
  it('gets the same subscription by name and by id', async () => {
    // Prepare
    const subscription = await freshSubscription({ label: 'both ways' });

    // Act
    const byName = await pds.bulkSubscriptions.get({ name: subscription.name });
    const byId = await pds.bulkSubscriptions.get({ id: subscription.id });
    const byNumericId = await pds.bulkSubscriptions.get({ id: Number(subscription.id) });

    // Assess
    expect(byName).toEqual(subscription);
    expect(byId).toEqual(subscription);
    expect(byNumericId).toEqual(subscription);
    expect(sim.requestLog.slice(-3).map((entry) => entry.path)).toEqual([
      `/v1/bulkSubscription/${subscription.name}`,
      `/v1/bulkSubscription/${subscription.id}`,
      `/v1/bulkSubscription/${subscription.id}`,
    ]);
  });

  it('answers 404 for an unknown name and an unknown id', async () => {
    // Act
    const name = await pds.bulkSubscriptions.get({ name: 'no-such-subscription' }).catch((e) => e);
    const id = await pds.bulkSubscriptions.get({ id: '987654' }).catch((e) => e);

    // Assess
    expect(name).toBeInstanceOf(PdsNotFoundError);
    expect(id).toBeInstanceOf(PdsNotFoundError);
  });

  it.each([
    ['an id that is not digits', { id: 'gtin-watch' }],
    ['a negative id', { id: -1 }],
    ['a digits-only name', { name: '42' }],
    ['an empty name', { name: '' }],
    ['both id and name', { id: '1', name: 'gtin-watch' }],
    ['neither id nor name', {}],
  ])('refuses %s before any request', async (_name, ref) => {
    // Act
    const error = await pds.bulkSubscriptions.get(ref as SubscriptionRef).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });
});

describe('PUT /v1/bulkSubscription/{name} · PUT /v1/bulkSubscription/{id}', () => {
  it.each(['{id}', '{name}'])('updates by %s, keeping the fields left out', async (variant) => {
    // Prepare
    const subscription = await freshSubscription({ description: 'kept' });
    const ref = refsOf(subscription).find(([name]) => name === variant)?.[1] as SubscriptionRef;

    // Act
    const updated = await pds.bulkSubscriptions.update(ref, { label: `via ${variant}`, active: false });

    // Assess
    expect(updated).toMatchObject({ label: `via ${variant}`, description: 'kept', active: false });
    expect(sim.state.bulkSubscriptions.byId(subscription.id)?.label).toBe(`via ${variant}`);
  });

  it('answers 409 when dropping an attribute that entries use, 400 for another id, 404 unknown', async () => {
    // Prepare
    const subscription = await freshSubscription();
    await pds.bulkSubscriptions.addEntries({ id: subscription.id }, [{ market: 'DE' }]);

    // Act
    const dropped = await pds.bulkSubscriptions
      .update({ name: subscription.name }, { attributes: ['gtin'] })
      .catch((e) => e);
    const otherId = await pds.bulkSubscriptions.update({ id: subscription.id }, { id: '1' }).catch((e) => e);
    const unknown = await pds.bulkSubscriptions.update({ id: '987654' }, { label: 'x' }).catch((e) => e);

    // Assess
    expect(dropped).toBeInstanceOf(PdsConflictError);
    expect(otherId).toBeInstanceOf(PdsBadRequestError);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('DELETE /v1/bulkSubscription/{name} · DELETE /v1/bulkSubscription/{id}', () => {
  it('deletes by name and by id', async () => {
    // Prepare
    const first = await freshSubscription();
    const second = await freshSubscription();

    // Act
    const byName = await pds.bulkSubscriptions.delete({ name: first.name });
    const byId = await pds.bulkSubscriptions.delete({ id: second.id });

    // Assess
    expect(byName).toEqual({ pending: false });
    expect(byId).toEqual({ pending: false });
    expect(sim.state.bulkSubscriptions.byId(first.id)).toBeUndefined();
    expect(sim.state.bulkSubscriptions.byId(second.id)).toBeUndefined();
  });

  it('refuses to delete a PROCESSING subscription with 409 unless force is given', async () => {
    // Prepare
    const busy = await pds.bulkSubscriptions.create(
      { name: 'contract-busy', attributes: ['gtin'] },
      { synchronously: false },
    );

    // Act
    const refused = await pds.bulkSubscriptions.delete({ id: busy.id }).catch((e) => e);
    const forced = await pds.bulkSubscriptions.delete({ name: busy.name }, { force: true });

    // Assess
    expect(refused).toBeInstanceOf(PdsConflictError);
    expect(refused.message).toContain('force');
    expect(forced).toEqual({ pending: false });
    expect(sim.state.bulkSubscriptions.byId(busy.id)).toBeUndefined();
  });

  it('answers a delete sent with synchronously=false as pending', async () => {
    // Prepare
    const subscription = await freshSubscription();

    // Act
    const result = await pds.bulkSubscriptions.delete({ id: subscription.id }, { synchronously: false });

    // Assess
    expect(result).toEqual({ pending: true });
    expect(sim.state.bulkSubscriptions.byId(subscription.id)?.state).toBe('PROCESSING');
  });

  it('answers 404 for an unknown name and id', async () => {
    // Act
    const name = await pds.bulkSubscriptions.delete({ name: 'never-existed' }).catch((e) => e);
    const id = await pds.bulkSubscriptions.delete({ id: 987654 }).catch((e) => e);

    // Assess
    expect(name).toBeInstanceOf(PdsNotFoundError);
    expect(id).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('GET /v1/bulkSubscription/{name}/id · GET /v1/bulkSubscription/{id}/name', () => {
  it('looks up the id of a name and the name of an id', async () => {
    // Prepare
    const subscription = await freshSubscription();

    // Act
    const id = await pds.bulkSubscriptions.nameToId(subscription.name);
    const name = await pds.bulkSubscriptions.idToName(subscription.id);

    // Assess
    expect(id).toBe(subscription.id);
    expect(name).toBe(subscription.name);
  });

  it('answers 404 for an unknown name or id and refuses swapped arguments before any request', async () => {
    // Act
    const unknownName = await pds.bulkSubscriptions.nameToId('nobody').catch((e) => e);
    const unknownId = await pds.bulkSubscriptions.idToName('987654').catch((e) => e);
    sim.requestLog.length = 0;
    const digitsName = await pds.bulkSubscriptions.nameToId('1').catch((e) => e);
    const nameAsId = await pds.bulkSubscriptions.idToName('gtin-watch').catch((e) => e);

    // Assess
    expect(unknownName).toBeInstanceOf(PdsNotFoundError);
    expect(unknownId).toBeInstanceOf(PdsNotFoundError);
    expect(digitsName).toBeInstanceOf(PdsInvalidRequestError);
    expect(nameAsId).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });
});

describe('POST /v1/bulkSubscription/{id}/entries · POST /v1/bulkSubscription/{name}/entries', () => {
  it.each(['{id}', '{name}'])('adds entries by %s; an existing entry changes nothing', async (variant) => {
    // Prepare
    const subscription = await freshSubscription();
    const ref = refsOf(subscription).find(([name]) => name === variant)?.[1] as SubscriptionRef;

    // Act
    const first = await pds.bulkSubscriptions.addEntries(ref, [{ gtin: '1' }, { gtin: '2', market: 'DE' }]);
    const again = await pds.bulkSubscriptions.addEntries(ref, [{ market: 'DE', gtin: '2' }]);

    // Assess
    expect(first).toMatchObject({ action: 'ADD_ENTRIES', source: 'API', status: 'DONE', entriesAdded: 2 });
    expect(first.subscriptionId).toBe(subscription.id);
    expect(again.entriesAdded).toBe(0);
    expect(sim.state.bulkSubscriptions.byId(subscription.id)?.entries.size).toBe(2);
  });

  it('answers 400 for an unknown attribute and 404 for an unknown subscription', async () => {
    // Prepare
    const subscription = await freshSubscription();

    // Act
    const unknownAttribute = await pds.bulkSubscriptions
      .addEntries({ name: subscription.name }, [{ colour: 'red' }])
      .catch((e) => e);
    const unknownSubscription = await pds.bulkSubscriptions
      .addEntries({ id: '987654' }, [{ gtin: '1' }])
      .catch((e) => e);

    // Assess
    expect(unknownAttribute).toBeInstanceOf(PdsBadRequestError);
    expect(unknownAttribute.message).toContain('colour');
    expect(unknownSubscription).toBeInstanceOf(PdsNotFoundError);
  });

  it('answers synchronously=false with a PENDING import, DONE once a synchronous change follows', async () => {
    // Prepare
    const subscription = await freshSubscription();
    const ref = { id: subscription.id };

    // Act
    const pending = await pds.bulkSubscriptions.addEntries(ref, [{ gtin: 'later' }], {
      synchronously: false,
    });
    await pds.bulkSubscriptions.addEntries(ref, [{ gtin: 'now' }]);
    const imports = await pds.bulkSubscriptions.imports(ref).toArray();

    // Assess
    expect(pending).toMatchObject({ status: 'PENDING', entriesAdded: 0 });
    expect(imports.find((record) => record.id === pending.id)).toMatchObject({
      status: 'DONE',
      entriesAdded: 1,
    });
  });
});

describe('GET /v1/bulkSubscription/{id}/entries · GET /v1/bulkSubscription/{name}/entries', () => {
  it.each(['{id}', '{name}'])('lists entries by %s across pages, filtered by keywords', async (variant) => {
    // Prepare
    const subscription = await freshSubscription();
    const ref = refsOf(subscription).find(([name]) => name === variant)?.[1] as SubscriptionRef;
    const entries = Array.from({ length: 7 }, (_, index) => ({
      gtin: `g${index}`,
      market: index % 2 ? 'DE' : 'NL',
    }));
    await pds.bulkSubscriptions.addEntries(ref, entries);
    sim.requestLog.length = 0;

    // Act
    const all = await pds.bulkSubscriptions.entries(ref, { pageSize: 3 }).toArray();
    const pages = sim.requestLog.length;
    const german = await pds.bulkSubscriptions.entries(ref, { keywords: 'de' }).toArray();

    // Assess
    expect(all).toEqual(entries);
    expect(pages).toBe(3);
    expect(german.map((entry) => entry.gtin)).toEqual(['g1', 'g3', 'g5']);
  });

  it('answers 404 for an unknown subscription', async () => {
    // Act
    const error = await pds.bulkSubscriptions
      .entries({ name: 'nobody' })
      .toArray()
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('DELETE /v1/bulkSubscription/{id}/entries · DELETE /v1/bulkSubscription/{name}/entries', () => {
  it.each(['{id}', '{name}'])('removes the given entries by %s, ignoring unknown ones', async (variant) => {
    // Prepare
    const subscription = await freshSubscription();
    const ref = refsOf(subscription).find(([name]) => name === variant)?.[1] as SubscriptionRef;
    await pds.bulkSubscriptions.addEntries(ref, [{ gtin: 'a' }, { gtin: 'b' }]);

    // Act
    const record = await pds.bulkSubscriptions.removeEntries(ref, [{ gtin: 'a' }, { gtin: 'zzz' }]);
    const left = await pds.bulkSubscriptions.entries(ref).toArray();

    // Assess
    expect(record).toMatchObject({ action: 'DELETE_ENTRIES', entriesRequested: 2, entriesRemoved: 1 });
    expect(left).toEqual([{ gtin: 'b' }]);
  });

  it('answers 404 for an unknown subscription', async () => {
    // Act
    const error = await pds.bulkSubscriptions.removeEntries({ id: 987654 }, [{ gtin: 'a' }]).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('DELETE /v1/bulkSubscription/{id}/entries/all · DELETE /v1/bulkSubscription/{name}/entries/all', () => {
  it.each(['{id}', '{name}'])('removes every entry by %s', async (variant) => {
    // Prepare
    const subscription = await freshSubscription();
    const ref = refsOf(subscription).find(([name]) => name === variant)?.[1] as SubscriptionRef;
    await pds.bulkSubscriptions.addEntries(ref, [{ gtin: 'a' }, { gtin: 'b' }, { market: 'DE' }]);

    // Act
    const record = await pds.bulkSubscriptions.removeAllEntries(ref);

    // Assess
    expect(record).toMatchObject({ action: 'DELETE_ALL_ENTRIES', entriesRemoved: 3, status: 'DONE' });
    expect(sim.state.bulkSubscriptions.byId(subscription.id)?.entries.size).toBe(0);
  });

  it('answers 404 for an unknown subscription', async () => {
    // Act
    const error = await pds.bulkSubscriptions.removeAllEntries({ name: 'nobody' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('GET /v1/bulkSubscription/{id}/imports · GET /v1/bulkSubscription/{name}/imports', () => {
  it.each(['{id}', '{name}'])('lists the imports by %s, newest first, across pages', async (variant) => {
    // Prepare
    const subscription = await freshSubscription();
    const ref = refsOf(subscription).find(([name]) => name === variant)?.[1] as SubscriptionRef;
    await pds.bulkSubscriptions.addEntries(ref, [{ gtin: 'a' }]);
    await pds.bulkSubscriptions.removeEntries(ref, [{ gtin: 'a' }]);
    await pds.bulkSubscriptions.removeAllEntries(ref);

    // Act
    const imports = await pds.bulkSubscriptions.imports(ref, { pageSize: 2 }).toArray();

    // Assess
    expect(imports.map((record) => record.action)).toEqual([
      'DELETE_ALL_ENTRIES',
      'DELETE_ENTRIES',
      'ADD_ENTRIES',
    ]);
  });

  it('answers 404 for an unknown subscription', async () => {
    // Act
    const error = await pds.bulkSubscriptions
      .imports({ id: '987654' })
      .toArray()
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('POST /v1/bulkSubscription/{id}/_upload · POST /v1/bulkSubscription/{name}/_upload', () => {
  it('adds entries from a JSON file by id and removes them from a stream by name', async () => {
    // Prepare
    const subscription = await freshSubscription();
    const path = join(dir, 'entries.json');
    await writeFile(path, JSON.stringify([{ gtin: 'u1' }, { gtin: 'u2' }, { gtin: 'u3' }]));

    // Act
    const added = await pds.bulkSubscriptions.uploadEntries(
      { id: subscription.id },
      { filePath: path },
      'ADD_ENTRIES',
    );
    const removed = await pds.bulkSubscriptions.uploadEntries(
      { name: subscription.name },
      jsonSource('gone.json', [{ gtin: 'u2' }]),
      'DELETE_ENTRIES',
    );
    const left = await pds.bulkSubscriptions.entries({ id: subscription.id }).toArray();

    // Assess
    expect(added).toMatchObject({
      action: 'ADD_ENTRIES',
      source: 'UPLOAD',
      fileName: 'entries.json',
      entriesAdded: 3,
    });
    expect(removed).toMatchObject({ action: 'DELETE_ENTRIES', fileName: 'gone.json', entriesRemoved: 1 });
    expect(left).toEqual([{ gtin: 'u1' }, { gtin: 'u3' }]);
  });

  it('answers 400 for a file that is not a JSON array of entries and 404 for an unknown subscription', async () => {
    // Prepare
    const subscription = await freshSubscription();

    // Act
    const notJson = await pds.bulkSubscriptions
      .uploadEntries({ name: subscription.name }, jsonSource('bad.json', { not: 'an array' }), 'ADD_ENTRIES')
      .catch((e) => e);
    const unknown = await pds.bulkSubscriptions
      .uploadEntries({ id: '987654' }, jsonSource('a.json', []), 'ADD_ENTRIES')
      .catch((e) => e);

    // Assess
    expect(notJson).toBeInstanceOf(PdsBadRequestError);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
  });

  it('surfaces the 400 of a request without a file as PdsBadRequestError', async () => {
    // Prepare: the client always sends a file, so the transport sends a request without one
    const transport = new PdsTransport({
      baseUrl: sim.url,
      credentials: { username: sim.username, password: sim.password },
    });

    // Act
    const error = await transport
      .request({
        method: 'POST',
        path: `/v1/bulkSubscription/${DEMO_BULK_SUBSCRIPTIONS.gtinWatch}/_upload`,
        query: { action: 'ADD_ENTRIES' },
        json: [{ gtin: '1' }],
        expect: 'json',
      })
      .catch((e) => e);
    await transport.close();

    // Assess
    expect(error).toBeInstanceOf(PdsBadRequestError);
    expect(error.message).toContain('holds no file');
  });

  it('refuses an unknown action before any request', async () => {
    // Act
    const error = await pds.bulkSubscriptions
      .uploadEntries({ id: '1' }, jsonSource('a.json', []), 'REPLACE' as never)
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });
});
