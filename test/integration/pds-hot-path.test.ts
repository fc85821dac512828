/**
 * What a successful PDS request costs: no error object. Errors (stack trace captured, redaction run)
 * are built only on failure paths; before issue 41 the connection's `close` handler built a
 * `PdsNetworkError` for every request, to reject a promise its answer had already settled.
 *
 * Counted without touching the production code: every `PdsError` (each subclass included) is built
 * through `PdsError`'s `super(...)` call, which looks up `PdsError`'s prototype when it runs, so a
 * counting proxy set as that prototype sees each construction.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../../packages/bridge/src/core/index.ts';
import {
  type ClosablePdsClient,
  createPdsClient,
  PdsError,
  PdsNotFoundError,
} from '../../packages/bridge/src/pds/index.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';

const XML = readFileSync(
  path.resolve(import.meta.dirname, '../fixtures/gdsn/cic-3.1-synchronised.xml'),
  'utf8',
);
const ASSETS = 40;

let sim: RunningSimulator;
let pds: ClosablePdsClient;

beforeAll(async () => {
  sim = await startSimulator({ demoData: false, port: 0 });
  for (let index = 0; index < ASSETS; index++) sim.state.addMessagingAsset({ xml: XML });
  pds = createPdsClient({ baseUrl: sim.url, credentials: { username: 'demo', password: 'demo' } });
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
});

/** Runs `work` and returns how many `PdsError`s were constructed meanwhile. */
async function pdsErrorsBuiltDuring(work: () => Promise<unknown>): Promise<number> {
  let built = 0;
  const counting = new Proxy(BridgeError, {
    construct(target, args, newTarget) {
      built++;
      return Reflect.construct(target, args, newTarget);
    },
  });
  const original = Object.getPrototypeOf(PdsError);
  Object.setPrototypeOf(PdsError, counting);
  try {
    await work();
  } finally {
    Object.setPrototypeOf(PdsError, original);
  }
  return built;
}

describe('a successful PDS request', () => {
  it('builds no error object, over a batch of requests on reused connections', async () => {
    const ids = (await pds.listMessagingAssets()).map((asset) => asset.id);
    expect(ids).toHaveLength(ASSETS);

    let fetched: string[] = [];
    const built = await pdsErrorsBuiltDuring(async () => {
      fetched = await Promise.all(ids.map((id) => pds.getMessagingAsset(id)));
      await pds.listMessagingAssets();
      // Let every connection's 'close' and the answers' stream ends run before counting.
      await new Promise((resolve) => setTimeout(resolve, 50));
    });

    expect(fetched).toHaveLength(ASSETS);
    expect(fetched.every((xml) => xml === XML)).toBe(true);
    expect(built).toBe(0);
  });

  it('still builds the error of a failed request, so the count above can see one', async () => {
    let caught: unknown;
    const built = await pdsErrorsBuiltDuring(async () => {
      caught = await pds.getMessagingAsset(999_999).catch((error: unknown) => error);
    });

    expect(caught).toBeInstanceOf(PdsNotFoundError);
    expect(built).toBe(1);
  });
});
