import { describe, expect, it } from 'vitest';
import { type Log, type Metrics, noopMetrics, silentLog } from '../../lib/core/index.ts';

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
