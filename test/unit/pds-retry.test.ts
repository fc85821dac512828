import { describe, expect, it } from 'vitest';
import {
  PdsBadRequestError,
  PdsNetworkError,
  PdsRateLimitedError,
  PdsServerError,
  PdsTimeoutError,
} from '../../packages/bridge/src/pds/errors.ts';
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  retryDelayMs,
  shouldRetry,
} from '../../packages/bridge/src/pds/retry.ts';

const line = { method: 'POST', path: '/api/v1/imports' };
const base = { attempt: 1, maxAttempts: 4, repeatable: false, replayable: true };

describe('shouldRetry', () => {
  it.each([
    ['a refused connection', new PdsNetworkError('ECONNREFUSED', line, false), true],
    ['a connect timeout', new PdsTimeoutError('connect', 10, line), true],
    ['a reset after sending', new PdsNetworkError('ECONNRESET', line, true), false],
    ['a headers timeout', new PdsTimeoutError('headers', 10, line), false],
    ['a 503', new PdsServerError(503, line, ''), false],
    ['a 429', new PdsRateLimitedError(429, line, '', 1000), false],
  ])('on a non-idempotent request, after %s: %s', (_name, error, expected) => {
    // Act
    const retry = shouldRetry(error, base);

    // Assess
    expect(retry).toBe(expected);
  });

  it.each([
    ['a reset', new PdsNetworkError('ECONNRESET', line, true), true],
    ['a body timeout', new PdsTimeoutError('body', 10, line), true],
    ['a 429', new PdsRateLimitedError(429, line, '', undefined), true],
    ['a 502', new PdsServerError(502, line, ''), true],
    ['a 503', new PdsServerError(503, line, ''), true],
    ['a 504', new PdsServerError(504, line, ''), true],
    ['a 500', new PdsServerError(500, line, ''), false],
    ['a 400', new PdsBadRequestError(400, line, ''), false],
  ])('on a repeatable request, after %s: %s', (_name, error, expected) => {
    // Act
    const retry = shouldRetry(error, { ...base, repeatable: true });

    // Assess
    expect(retry).toBe(expected);
  });

  it('stops at maxAttempts and never replays a one-shot body', () => {
    // Prepare
    const refused = new PdsNetworkError('ECONNREFUSED', line, false);

    // Act / Assess
    expect(shouldRetry(refused, { ...base, attempt: 4 })).toBe(false);
    expect(shouldRetry(refused, { ...base, replayable: false })).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('draws full jitter below an exponentially growing, capped ceiling', () => {
    // Act
    const highest = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) =>
      retryDelayMs(attempt, undefined, DEFAULT_RETRY, () => 0.999999),
    );
    const lowest = retryDelayMs(3, undefined, DEFAULT_RETRY, () => 0);

    // Assess
    expect(highest).toEqual([199, 399, 799, 1599, 3199, 6399, 9999, 9999]);
    expect(lowest).toBe(0);
  });

  it('uses Retry-After instead of backoff, capped at maxRetryAfterMs', () => {
    // Act / Assess
    expect(retryDelayMs(1, 4000, DEFAULT_RETRY, () => 0.5)).toBe(4000);
    expect(retryDelayMs(1, 3_600_000, DEFAULT_RETRY, () => 0.5)).toBe(30_000);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['3', 3000],
    [' 0 ', 0],
    [['7', '9'], 7000],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 2000],
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0],
    ['soon', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    [undefined, undefined],
  ] as const)('reads %o as %o ms', (header, expected) => {
    // Act
    const ms = parseRetryAfter(
      header as string | string[] | undefined,
      Date.parse('Wed, 21 Oct 2015 07:27:58 GMT'),
    );

    // Assess
    expect(ms).toBe(expected);
  });
});
