import { describe, expect, it } from 'vitest';
import { SimulatorOptionsError } from '../../packages/simulator/src/errors.ts';
import { FaultInjector } from '../../packages/simulator/src/faults.ts';
import { mulberry32, seededUuid } from '../../packages/simulator/src/random.ts';

function decisions(injector: FaultInjector, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const decision = injector.decide('GET', `/api/v1/x/${i}`);
    if (!decision) return 'ok';
    return decision.kind === 'reset' ? 'reset' : String(decision.status);
  });
}

describe('mulberry32 and seededUuid', () => {
  it('repeat the same sequence for the same seed and differ for another seed', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);

    const first = [a(), a(), a()];

    expect([b(), b(), b()]).toEqual(first);
    expect([c(), c(), c()]).not.toEqual(first);
    expect(first.every((n) => n >= 0 && n < 1)).toBe(true);
  });

  it('draws version-4 shaped UUIDs', () => {
    const uuid = seededUuid(mulberry32(1));

    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(seededUuid(mulberry32(1))).toBe(uuid);
  });
});

describe('FaultInjector', () => {
  it('gives the same fault sequence for the same seed and request order', () => {
    const options = { rate: 0.3, resetRate: 0.2, seed: 99 };

    const first = decisions(new FaultInjector(options, 1), 200);
    const second = decisions(new FaultInjector(options, 1), 200);

    expect(second).toEqual(first);
    expect(first).toContain('ok');
    expect(first).toContain('503');
    expect(first).toContain('429');
    expect(first).toContain('reset');
  });

  it('restarts the sequence when the faults are set again', () => {
    const injector = new FaultInjector({ rate: 0.5, seed: 5 }, 1);
    const first = decisions(injector, 50);

    injector.setFaults({ rate: 0.5, seed: 5 });

    expect(decisions(injector, 50)).toEqual(first);
  });

  it('serves everything when no faults are set', () => {
    expect(decisions(new FaultInjector(undefined, 1), 50).every((d) => d === 'ok')).toBe(true);
  });

  it('only touches paths under pathPrefix, and adds latency only there', () => {
    const injector = new FaultInjector({ rate: 1, latencyMs: 25, pathPrefix: '/api/v1/imports' }, 1);

    expect(injector.decide('POST', '/api/v1/gatherings')).toBeUndefined();
    expect(injector.decide('POST', '/api/v1/imports')).toMatchObject({ kind: 'status' });
    expect(injector.latencyFor('/api/v1/gatherings')).toBe(0);
    expect(injector.latencyFor('/api/v1/imports')).toBe(25);
  });

  it('uses scripted faults first, in order, for the matching method and path only', () => {
    // Prepare
    const injector = new FaultInjector(undefined, 1);
    injector.failNext(2, { kind: 'status', status: 502, method: 'POST', pathPrefix: '/api/v1/imports' });
    injector.failNext(1, { kind: 'reset' });

    // Act
    const getImports = injector.decide('GET', '/api/v1/imports');
    const postImports1 = injector.decide('POST', '/api/v1/imports');
    const postImports2 = injector.decide('POST', '/api/v1/imports');
    const anything = injector.decide('GET', '/anything');
    const afterwards = injector.decide('POST', '/api/v1/imports');

    // Assess
    expect(getImports).toEqual({ kind: 'reset' });
    expect(postImports1).toEqual({ kind: 'status', status: 502, retryAfterSeconds: 1 });
    expect(postImports2).toEqual({ kind: 'status', status: 502, retryAfterSeconds: 1 });
    expect(anything).toBeUndefined();
    expect(afterwards).toBeUndefined();
  });

  it('refuses rates outside 0..1, unknown statuses and a non-positive count', () => {
    const injector = new FaultInjector(undefined, 1);

    expect(() => new FaultInjector({ rate: 1.5 }, 1)).toThrow(SimulatorOptionsError);
    expect(() => injector.setFaults({ statuses: [500 as 503] })).toThrow(/faults.statuses/);
    expect(() => injector.failNext(0, { kind: 'reset' })).toThrow(/positive integer/);
  });
});
