/**
 * Every operation of the spec's endpoint tables has a client method, a simulator route and a contract
 * test. The operations are read from docs/pds-interface.md (the interface in the project's words) and
 * compared with:
 *
 * - `PDS_OPERATIONS` (the client's registry: method + spec path → client method), both ways, and each
 *   named method must exist on a real client;
 * - the simulator's route tables: a route with the same shape must exist and be the one the router picks
 *   for a concrete request (so a catch-all such as `POST /v1/assetFolders/*path` cannot stand in for
 *   `POST /v1/assetFolders/_uploadFile{path}`);
 * - the contract tests (`test/integration/*.contract.test.ts`): a `describe` title names the operation
 *   as `METHOD /spec/path`, or, for an operation whose client method performs no other operation, a
 *   contract test calls that method.
 *
 * The checks are pure functions; the last tests remove one entry from each input and show the check
 * reports exactly that operation, so none of them can pass vacuously.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFullPdsClient,
  type FullPdsClient,
  PDS_OPERATIONS,
  type PdsOperation,
} from '../../packages/bridge/src/pds/resources/index.ts';
import { DeferredWork } from '../../packages/simulator/src/deferred.ts';
import { ReviewScheduler } from '../../packages/simulator/src/reviews.ts';
import { type Route, Router } from '../../packages/simulator/src/router.ts';
import { assetFolderRoutes } from '../../packages/simulator/src/routes/asset-folders.ts';
import { bulkSubscriptionRoutes } from '../../packages/simulator/src/routes/bulk-subscriptions.ts';
import { dataModelRoutes } from '../../packages/simulator/src/routes/datamodel.ts';
import { itemTagRoutes } from '../../packages/simulator/src/routes/item-tags.ts';
import { workflowRoutes } from '../../packages/simulator/src/routes/workflow.ts';
import { SimulatorState } from '../../packages/simulator/src/state.ts';

const SPEC_PATH = path.resolve(import.meta.dirname, '../../docs/pds-interface.md');
const CONTRACT_DIR = import.meta.dirname;

/** One row of an endpoint table. */
interface SpecOperation {
  method: string;
  path: string;
}

const keyOf = (op: SpecOperation) => `${op.method} ${op.path}`;

/** The (method, path) rows of every table under "## Operations". */
function specOperations(markdown: string): SpecOperation[] {
  const start = markdown.indexOf('\n## Operations');
  if (start === -1) throw new Error('docs/pds-interface.md has no "## Operations" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  const rows = [...section.matchAll(/^\|\s*(GET|POST|PUT|DELETE|PATCH|HEAD)\s*\|\s*(\/[^|\s]*)\s*\|/gm)];
  return rows.map(([, method, opPath]) => ({ method: method as string, path: opPath as string }));
}

/**
 * The shape of a path with parameters made anonymous: `{path}` (appended directly) and a final `*rest`
 * become `/*`, any other `{param}` or `:param` becomes `:`.
 */
function shapeOf(opPath: string): string {
  return opPath
    .replace(/\{path\}$/, '/*')
    .replace(/\/\*[A-Za-z]+$/, '/*')
    .replace(/\{[A-Za-z]+\}|:[A-Za-z]+/g, ':');
}

/** A concrete request path for an operation, e.g. `/v1/bulkSubscription/7/entries`. */
function samplePath(opPath: string): string {
  const values: Record<string, string> = { id: '7', name: 'gtin-watch', messagingAssetId: '3' };
  return opPath
    .replace(/\{path\}$/, '/sample-folder/file.txt')
    .replace(/\{([A-Za-z]+)\}/g, (_, param: string) => values[param] ?? 'sample');
}

/** Spec operations for which `PDS_OPERATIONS` has no entry or names a method the client lacks. */
function missingClientMethods(
  spec: readonly SpecOperation[],
  registry: readonly PdsOperation[],
  client: object,
): string[] {
  return spec
    .filter((op) => {
      const entry = registry.find((candidate) => keyOf(candidate) === keyOf(op));
      if (!entry) return true;
      const [first, second] = entry.client.split('.') as [string, string | undefined];
      const owner = second === undefined ? client : (client as Record<string, unknown>)[first];
      const method = (owner as Record<string, unknown> | undefined)?.[second ?? first];
      return typeof method !== 'function';
    })
    .map(keyOf);
}

/** Spec operations without a simulator route of the same shape that the router also picks. */
function missingRoutes(spec: readonly SpecOperation[], routes: readonly Route[]): string[] {
  const router = new Router(routes);
  const shapes = new Set(routes.map((route) => `${route.method} ${shapeOf(route.path)}`));
  return spec
    .filter((op) => {
      const wanted = `${op.method} ${shapeOf(op.path)}`;
      if (!shapes.has(wanted)) return true;
      const match = router.match(op.method, samplePath(op.path));
      return match.kind !== 'found' || `${match.route.method} ${shapeOf(match.route.path)}` !== wanted;
    })
    .map(keyOf);
}

/** The operations the `describe` titles of contract test sources name. */
function taggedOperations(sources: readonly string[]): Set<string> {
  const tags = new Set<string>();
  for (const source of sources) {
    for (const [, , title] of source.matchAll(/describe\(\s*(['"`])((?:(?!\1).)*)\1/g)) {
      for (const [tag] of (title ?? '').matchAll(/\b(?:GET|POST|PUT|DELETE) \/[^\s·,]*/g)) tags.add(tag);
    }
  }
  return tags;
}

/** Spec operations no contract test names by title or (for a one-operation method) by calling it. */
function missingContractTests(
  spec: readonly SpecOperation[],
  registry: readonly PdsOperation[],
  sources: readonly string[],
): string[] {
  const tags = taggedOperations(sources);
  return spec
    .filter((op) => {
      if (tags.has(keyOf(op))) return false;
      const entry = registry.find((candidate) => keyOf(candidate) === keyOf(op));
      if (!entry) return true;
      const onlyThisOperation =
        registry.filter((candidate) => candidate.client === entry.client).length === 1;
      return !(onlyThisOperation && sources.some((source) => source.includes(`.${entry.client}(`)));
    })
    .map(keyOf);
}

let spec: SpecOperation[];
let contractSources: string[];
let routes: Route[];
let client: FullPdsClient;
const closers: Array<() => unknown> = [];

beforeAll(async () => {
  spec = specOperations(await readFile(SPEC_PATH, 'utf8'));
  const files = (await readdir(CONTRACT_DIR)).filter((file) => file.endsWith('.contract.test.ts'));
  contractSources = await Promise.all(files.map((file) => readFile(path.join(CONTRACT_DIR, file), 'utf8')));
  const state = new SimulatorState(1);
  const reviews = new ReviewScheduler(state, 60_000);
  const deferred = new DeferredWork(60_000);
  closers.push(
    () => reviews.close(),
    () => deferred.close(),
  );
  // The handlers never run here: only the route tables are read.
  const uploadDir = path.join(CONTRACT_DIR, 'unused-upload-dir');
  routes = [
    ...workflowRoutes({ state, uploadDir, reviews }),
    ...assetFolderRoutes({ state, uploadDir }),
    ...bulkSubscriptionRoutes({ state, uploadDir, deferred }),
    ...dataModelRoutes(),
    ...itemTagRoutes({ state }),
  ];
  // Building a client sends nothing; it is closed unused.
  client = createFullPdsClient({
    baseUrl: 'http://127.0.0.1:9',
    credentials: { username: 'u', password: 'p' },
  });
  closers.push(() => client.close());
});

afterAll(async () => {
  for (const close of closers) await close();
});

describe('the endpoint tables of the spec', () => {
  it('are read completely: 9 workflow, 12 asset folder, 22 bulk subscription, 4 data model, 3 item operations', () => {
    // Act
    const count = (prefix: string) => spec.filter((op) => op.path.startsWith(prefix)).length;

    // Assess
    expect(spec).toHaveLength(50);
    expect(new Set(spec.map(keyOf)).size).toBe(50);
    expect(count('/api/v1/')).toBe(9);
    expect(count('/v1/assetFolders')).toBe(12);
    expect(count('/v1/bulkSubscription')).toBe(22);
    expect(count('/v1/datamodel/')).toBe(4);
    expect(count('/v1/items/')).toBe(3);
    expect(spec).toContainEqual({ method: 'DELETE', path: '/v1/bulkSubscription/{id}/entries/all' });
    expect(spec).toContainEqual({ method: 'GET', path: '/v1/assetFolders{path}' });
  });

  it('each have a client method named in PDS_OPERATIONS, and PDS_OPERATIONS names nothing else', () => {
    // Act
    const missing = missingClientMethods(spec, PDS_OPERATIONS, client);
    const stale = PDS_OPERATIONS.map(keyOf).filter((key) => !spec.some((op) => keyOf(op) === key));

    // Assess
    expect(missing).toEqual([]);
    expect(stale).toEqual([]);
    expect(PDS_OPERATIONS).toHaveLength(spec.length);
  });

  it('each have a simulator route that the router picks for a concrete request', () => {
    // Act
    const missing = missingRoutes(spec, routes);

    // Assess
    expect(missing).toEqual([]);
  });

  it('each have a contract test, and every operation a contract title names is in the spec', () => {
    // Act
    const missing = missingContractTests(spec, PDS_OPERATIONS, contractSources);
    const unknownTags = [...taggedOperations(contractSources)].filter(
      (tag) => !spec.some((op) => keyOf(op) === tag),
    );

    // Assess
    expect(missing).toEqual([]);
    expect(unknownTags).toEqual([]);
  });
});

describe('the endpoint checks themselves', () => {
  it('report an operation whose PDS_OPERATIONS entry is removed, or whose method the client lacks', () => {
    // Prepare
    const registry = PDS_OPERATIONS.filter((op) => keyOf(op) !== 'GET /v1/bulkSubscription/{id}/name');
    const withoutMethod = Object.assign(Object.create(client), {
      itemTags: { list: () => undefined, add: () => undefined },
    });

    // Act
    const missingEntry = missingClientMethods(spec, registry, client);
    const missingMethod = missingClientMethods(spec, PDS_OPERATIONS, withoutMethod);

    // Assess
    expect(missingEntry).toEqual(['GET /v1/bulkSubscription/{id}/name']);
    expect(missingMethod).toEqual(['DELETE /v1/items/{primaryKey}/tags']);
  });

  it('report an operation whose route is removed, even when a catch-all route would answer it', () => {
    // Prepare
    const withoutUpload = routes.filter((route) => route.path !== '/v1/assetFolders/_uploadFile/*path');
    const withoutNameLookup = routes.filter((route) => route.path !== '/v1/bulkSubscription/:ref/id');

    // Act
    const missingUpload = missingRoutes(spec, withoutUpload);
    const missingLookup = missingRoutes(spec, withoutNameLookup);

    // Assess
    expect(missingUpload).toEqual(['POST /v1/assetFolders/_uploadFile{path}']);
    expect(missingLookup).toEqual(['GET /v1/bulkSubscription/{name}/id']);
  });

  it('report an operation whose contract title is removed', () => {
    // Prepare
    const tag = 'DELETE /v1/bulkSubscription/{name}/entries/all';
    const sources = contractSources.map((source) => source.replaceAll(` · ${tag}`, ''));

    // Act
    const missing = missingContractTests(spec, PDS_OPERATIONS, sources);

    // Assess
    expect(sources.join('\n')).not.toContain(tag);
    expect(missing).toEqual([tag]);
  });

  it('accept a call as coverage only for a method that performs a single operation', () => {
    // Prepare: no titles at all, only calls of a shared and of a single-operation method
    const sources = ['await pds.bulkSubscriptions.get({ id: "1" }); await pds.dataModel.current();'];

    // Act
    const missing = missingContractTests(spec, PDS_OPERATIONS, sources);

    // Assess
    expect(missing).not.toContain('GET /v1/datamodel/current');
    expect(missing).toContain('GET /v1/bulkSubscription/{id}');
    expect(missing).toContain('GET /v1/bulkSubscription/{name}');
  });
});
