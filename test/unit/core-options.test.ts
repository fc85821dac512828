import { describe, expect, it } from 'vitest';
import {
  BridgeError,
  checkDurationMs,
  checkInteger,
  OptionError,
} from '../../packages/bridge/src/core/index.ts';

describe('checkInteger', () => {
  it('returns a value within the bounds', () => {
    // act & assess
    expect(checkInteger('pageSize', 10, { min: 1 })).toBe(10);
    expect(checkInteger('concurrency', 64, { min: 1, max: 64 })).toBe(64);
  });

  it('names the option, what it accepts and what it got', () => {
    // act & assess
    expect(() => checkInteger('pageSize', 0, { min: 1 })).toThrow(
      'pageSize must be a positive integer, got 0',
    );
    expect(() => checkInteger('retries', -1, { min: 0 })).toThrow(
      'retries must be a non-negative integer, got -1',
    );
    expect(() => checkInteger('concurrency', 2.5, { min: 1, max: 64 })).toThrow(
      'concurrency must be an integer from 1 to 64, got 2.5',
    );
    expect(() => checkInteger('maxDepth', 0, { min: 1 }, undefined, 'pass a number such as 64')).toThrow(
      'maxDepth must be a positive integer, got 0; pass a number such as 64',
    );
  });

  it('throws an OptionError, a BridgeError with a stable code and the option', () => {
    // act
    let thrown: unknown;
    try {
      checkInteger('pageSize', Number.NaN, { min: 1 });
    } catch (error) {
      thrown = error;
    }

    // assess
    expect(thrown).toBeInstanceOf(BridgeError);
    expect(thrown).toBeInstanceOf(OptionError);
    expect(thrown).toMatchObject({ code: 'INVALID_OPTION', option: 'pageSize', retryable: false });
  });

  it('throws the package error the caller builds', () => {
    // prepare
    class PackageError extends Error {}

    // act & assess
    expect(() => checkInteger('x', 0, { min: 1 }, (message) => new PackageError(message))).toThrow(
      PackageError,
    );
  });
});

describe('checkDurationMs', () => {
  it('accepts zero and positive milliseconds and refuses the rest', () => {
    // act & assess
    expect(checkDurationMs('lingerMs', 0)).toBe(0);
    expect(checkDurationMs('lingerMs', 12.5)).toBe(12.5);
    expect(() => checkDurationMs('lingerMs', -1)).toThrow(
      'lingerMs must be a non-negative number of milliseconds, got -1',
    );
    expect(() => checkDurationMs('lingerMs', Number.POSITIVE_INFINITY)).toThrow(OptionError);
  });
});
