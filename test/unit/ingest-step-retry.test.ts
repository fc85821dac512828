import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STEP_RETRY,
  retryPdsStep,
  type StepRetryOptions,
} from '../../packages/bridge/src/ingest/step-retry.ts';
import {
  PdsBadRequestError,
  PdsNetworkError,
  PdsRateLimitedError,
  PdsServerError,
} from '../../packages/bridge/src/pds/errors.ts';

const LINE = { method: 'POST', path: '/api/v1/imports' };

/** A step that fails with the given errors, then succeeds; and a clock that advances only by the waits. */
function scripted(errors: Error[], remainingMs = 900_000) {
  const waits: number[] = [];
  let calls = 0;
  let left = remainingMs;
  const options: StepRetryOptions = {
    ...DEFAULT_STEP_RETRY,
    remainingMs: () => left,
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
      left -= ms;
    },
  };
  const step = async () => {
    calls += 1;
    const error = errors[calls - 1];
    if (error) throw error;
    return 'accepted';
  };
  return { options, step, waits, calls: () => calls };
}

describe('retryPdsStep', () => {
  it('repeats a step through a 503, a reset and a 429 and waits what the 429 asked for', async () => {
    // prepare
    const { options, step, waits, calls } = scripted([
      new PdsServerError(503, LINE, ''),
      new PdsNetworkError('socket hang up', LINE, true),
      new PdsRateLimitedError(429, LINE, '', 2_000),
    ]);

    // act
    const result = await retryPdsStep('import', step, options);

    // assess
    expect(result).toBe('accepted');
    expect(calls()).toBe(4);
    expect(waits).toEqual([100, 200, 2_000]);
  });

  it('gives up after the configured attempts with the last error', async () => {
    const errors = Array.from({ length: 5 }, (_, i) => new PdsServerError(503, LINE, `down ${i}`));
    const { options, step, calls } = scripted(errors);

    await expect(retryPdsStep('upload', step, { ...options, maxAttempts: 3 })).rejects.toThrow('down 2');
    expect(calls()).toBe(3);
  });

  it('never repeats a refusal the PDS means', async () => {
    const { options, step, calls } = scripted([new PdsBadRequestError(400, LINE, 'bad path')]);

    await expect(retryPdsStep('import', step, options)).rejects.toBeInstanceOf(PdsBadRequestError);
    expect(calls()).toBe(1);
  });

  it('leaves the step to SQS when the wait would eat the time kept to record and release', async () => {
    const { options, step, calls } = scripted(
      [new PdsServerError(503, LINE, '')],
      DEFAULT_STEP_RETRY.reserveMs + 50,
    );

    await expect(retryPdsStep('import', step, options)).rejects.toBeInstanceOf(PdsServerError);
    expect(calls()).toBe(1);
  });

  it('leaves the step to SQS when the PDS asks for a longer pause than the policy allows', async () => {
    const { options, step, calls } = scripted([new PdsRateLimitedError(429, LINE, '', 120_000)]);

    await expect(retryPdsStep('import', step, options)).rejects.toBeInstanceOf(PdsRateLimitedError);
    expect(calls()).toBe(1);
  });

  it('runs a step once when no policy is given', async () => {
    const { step, calls } = scripted([new PdsServerError(503, LINE, '')]);

    await expect(retryPdsStep('import', step, undefined)).rejects.toBeInstanceOf(PdsServerError);
    expect(calls()).toBe(1);
  });
});
