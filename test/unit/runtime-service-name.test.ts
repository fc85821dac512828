import { afterEach, describe, expect, it, vi } from 'vitest';

/** packages/bridge/src/lambda/adapters.ts as a fresh cold start with `POWERTOOLS_SERVICE_NAME` set to `value`. */
async function coldStart(value: string | undefined) {
  vi.resetModules();
  vi.stubEnv('POWERTOOLS_SERVICE_NAME', value);
  return import('../../packages/bridge/src/lambda/adapters.ts');
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('the runtime service name', () => {
  it('is the function service name the template sets, for logs and the metrics dimension', async () => {
    // act
    const runtime = await coldStart('pds-bridge-ingest');

    // assess
    expect(runtime.serviceName).toBe('pds-bridge-ingest');
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      runtime.logger.warn('Ingest failed');
      runtime.metrics.addMetric('IngestFailed', 'Count', 1);
      runtime.metrics.publishStoredMetrics();
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const written = lines
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const log = written.find((line) => line.message !== undefined);
    const emf = written.find((line) => line._aws !== undefined);
    expect(log).toMatchObject({ message: 'Ingest failed', service: 'pds-bridge-ingest' });
    expect(emf).toMatchObject({ service: 'pds-bridge-ingest', IngestFailed: 1 });
  });

  it('falls back to pds-bridge without the variable', async () => {
    // act
    const runtime = await coldStart(undefined);

    // assess
    expect(runtime.serviceName).toBe('pds-bridge');
  });
});
