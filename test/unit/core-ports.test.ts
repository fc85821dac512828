import { describe, expect, it } from 'vitest';
import {
  addCounts,
  type Log,
  type Metrics,
  noopMetrics,
  silentLog,
} from '../../packages/bridge/src/core/index.ts';

describe('silentLog', () => {
  it('accepts every level with structured extras and writes nothing', () => {
    // prepare
    const log: Log = silentLog;

    // act & assess
    expect(() => {
      log.debug('d', { a: 1 });
      log.info('i');
      log.warn('w', { a: 1 }, { b: 2 });
      log.error('e', { error: 'X' });
    }).not.toThrow();
  });
});

describe('noopMetrics', () => {
  it('accepts a data point and records nothing', () => {
    // prepare
    const metrics: Metrics = noopMetrics;

    // act & assess
    expect(() => metrics.addMetric('AssetsEmitted', 'Count', 3)).not.toThrow();
  });
});

describe('addCounts', () => {
  it('adds one Count per entry, in the entries order', () => {
    // prepare
    const added: Array<[string, string, number]> = [];
    const metrics: Metrics = { addMetric: (name, unit, value) => added.push([name, unit, value]) };

    // act
    addCounts(metrics, { AssetsEmitted: 3, AssetsFailed: 0 });

    // assess
    expect(added).toEqual([
      ['AssetsEmitted', 'Count', 3],
      ['AssetsFailed', 'Count', 0],
    ]);
  });
});
