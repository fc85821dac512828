import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FaultOptions,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';

const AUTH = `Basic ${Buffer.from('demo:demo').toString('base64')}`;
const CHANNELS = '/api/v1/communicationchannels';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.setFaults(undefined);
  sim.requestLog.length = 0;
});

/** Status of a GET whose body is read completely, or 'reset' when the connection broke. */
async function outcomeOf(target: RunningSimulator, path = CHANNELS): Promise<string> {
  try {
    const response = await fetch(`${target.url}${path}`, { headers: { authorization: AUTH } });
    await response.arrayBuffer();
    return String(response.status);
  } catch {
    return 'reset';
  }
}

function smallUpload(target: RunningSimulator, size = 256 * 1024): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.alloc(size, 'a')]), 'a.txt');
  return fetch(`${target.url}/api/v1/gatherings`, {
    method: 'POST',
    headers: { authorization: AUTH },
    body: form,
  });
}

describe('simulator scripted faults (failNext)', () => {
  it('answers the queued status with Retry-After, then serves normally', async () => {
    // Prepare
    sim.failNext(1, { kind: 'status', status: 429 });
    sim.failNext(1, { kind: 'status', status: 503, retryAfterSeconds: 7 });

    // Act
    const limited = await fetch(`${sim.url}${CHANNELS}`, { headers: { authorization: AUTH } });
    const unavailable = await fetch(`${sim.url}${CHANNELS}`, { headers: { authorization: AUTH } });
    const served = await fetch(`${sim.url}${CHANNELS}`, { headers: { authorization: AUTH } });

    // Assess
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toMatchObject({ status: 429, error: 'Too Many Requests' });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('7');
    expect(served.status).toBe(200);
    expect(sim.requestLog.map((entry) => entry.status)).toEqual([429, 503, 200]);
  });

  it('sends no Retry-After on a 502 and only faults the matching method and path', async () => {
    sim.failNext(1, { kind: 'status', status: 502, method: 'POST', pathPrefix: '/api/v1/selections' });

    const otherPath = await outcomeOf(sim);
    const response = await fetch(`${sim.url}/api/v1/selections`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: '{"primaryKeys":[]}',
    });

    expect(otherPath).toBe('200');
    expect(response.status).toBe(502);
    expect(response.headers.get('retry-after')).toBeNull();
  });

  it('resets a GET after the headers and part of the body, logging status 0', async () => {
    // Prepare
    sim.failNext(1, { kind: 'reset', method: 'GET' });

    // Act
    const response = await fetch(`${sim.url}/api/v1/messaging/messagingassets/1`, {
      headers: { authorization: AUTH },
    });
    const body = response.text();

    // Assess
    expect(response.status).toBe(200);
    await expect(body).rejects.toThrow();
    expect(sim.requestLog).toEqual([
      { method: 'GET', path: '/api/v1/messaging/messagingassets/1', status: 0 },
    ]);
    expect(await outcomeOf(sim)).toBe('200');
  });

  it('resets an upload while its body is read and stores nothing', async () => {
    // Prepare
    sim.failNext(1, { kind: 'reset', pathPrefix: '/api/v1/gatherings' });
    const gatheringsBefore = sim.state.gatherings.size;

    // Act
    const failed = smallUpload(sim, 4 * 1024 * 1024);

    // Assess
    await expect(failed).rejects.toThrow();
    expect(sim.state.gatherings.size).toBe(gatheringsBefore);
    expect(sim.requestLog).toEqual([{ method: 'POST', path: '/api/v1/gatherings', status: 0 }]);
    expect((await smallUpload(sim)).status).toBe(200);
  });

  it('answers a status fault to an upload only after reading its body, without storing it', async () => {
    sim.failNext(1, { kind: 'status', status: 503, pathPrefix: '/api/v1/gatherings' });
    const gatheringsBefore = sim.state.gatherings.size;

    const response = await smallUpload(sim, 2 * 1024 * 1024);

    expect(response.status).toBe(503);
    expect(sim.state.gatherings.size).toBe(gatheringsBefore);
  });
});

describe('simulator probabilistic faults', () => {
  it('repeats the same outcome sequence for the same seed', async () => {
    // Prepare
    const faults: FaultOptions = { rate: 0.3, resetRate: 0.15, seed: 1234, statuses: [503, 429, 504] };
    const run = async () => {
      const target = await startSimulator({ faults });
      try {
        const outcomes: string[] = [];
        for (let i = 0; i < 40; i += 1) outcomes.push(await outcomeOf(target));
        return { outcomes, logged: target.requestLog.map((entry) => entry.status) };
      } finally {
        await target.close();
      }
    };

    // Act
    const first = await run();
    const second = await run();

    // Assess
    expect(second).toEqual(first);
    expect(first.outcomes).toContain('200');
    expect(first.outcomes).toContain('reset');
    expect(first.outcomes.some((outcome) => ['503', '429', '504'].includes(outcome))).toBe(true);
    expect(first.logged.filter((status) => status === 0)).toHaveLength(
      first.outcomes.filter((outcome) => outcome === 'reset').length,
    );
  });

  it('faults only paths under pathPrefix and stops after setFaults(undefined)', async () => {
    sim.setFaults({ rate: 1, statuses: [504], pathPrefix: '/api/v1/messaging' });

    const faulted = await outcomeOf(sim, '/api/v1/messaging/messagingassets/');
    const spared = await outcomeOf(sim);
    sim.setFaults(undefined);
    const afterwards = await outcomeOf(sim, '/api/v1/messaging/messagingassets/');

    expect([faulted, spared, afterwards]).toEqual(['504', '200', '200']);
  });

  it('serves requests with added latency, and close() ends a request still waiting', async () => {
    // Prepare
    const slow = await startSimulator({ faults: { latencyMs: 60_000, pathPrefix: '/api/v1/selections' } });
    sim.setFaults({ latencyMs: 20 });

    // Act
    const delayed = await outcomeOf(sim);
    const pending = outcomeOf(slow, '/api/v1/selections');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await slow.close();

    // Assess
    expect(delayed).toBe('200');
    expect(await pending).toBe('reset');
  });
});
