import { describe, expect, it } from 'vitest';
import {
  BridgeError,
  ConfigError,
  errorFields,
  errorSummary,
  UsageError,
} from '../../packages/bridge/src/core/index.ts';

class QueueFullError extends BridgeError {
  readonly queue: string;
  constructor(queue: string, cause?: unknown) {
    super('QUEUE_FULL', `Queue ${queue} is full`, { retryable: true, cause });
    this.queue = queue;
  }
}

describe('BridgeError', () => {
  it('carries its class name, a stable code, retryable and the cause', () => {
    // prepare
    const cause = new Error('503');

    // act
    const error = new QueueFullError('events', cause);

    // assess
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('QueueFullError');
    expect(error.code).toBe('QUEUE_FULL');
    expect(error.retryable).toBe(true);
    expect(error.cause).toBe(cause);
    expect(error.queue).toBe('events');
  });

  it('is not retryable and has no cause unless told', () => {
    // act
    const error = new BridgeError('BAD_INPUT', 'no');

    // assess
    expect(error.retryable).toBe(false);
    expect('cause' in error).toBe(false);
  });
});

describe('errorFields', () => {
  it('names the error and its message, with code, status and retryable when it has them', () => {
    // prepare
    const http = Object.assign(new Error('503 Service Unavailable'), { status: 503, retryable: true });
    http.name = 'PdsServerError';

    // act & assess
    expect(errorFields(http)).toEqual({
      error: 'PdsServerError',
      reason: '503 Service Unavailable',
      status: 503,
      retryable: true,
    });
    expect(errorFields(new BridgeError('X', 'x'))).toEqual({
      error: 'BridgeError',
      reason: 'x',
      code: 'X',
      retryable: false,
    });
    expect(errorFields(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toEqual({
      error: 'Error',
      reason: 'reset',
      code: 'ECONNRESET',
    });
    expect(errorFields(new TypeError('bad'))).toEqual({ error: 'TypeError', reason: 'bad' });
  });

  it('describes a thrown value that is not an Error', () => {
    // act & assess
    expect(errorFields('plain')).toEqual({ error: 'Error', reason: 'plain' });
  });
});

describe('ConfigError and UsageError', () => {
  it('are the one configuration error and the one usage error, never retryable', () => {
    // act
    const listed = ConfigError.fromProblems(['PDS_BASE_URL is required', 'STATE_BUCKET is required']);
    const single = new ConfigError('PDS_BASE_URL must use https', { variables: ['PDS_BASE_URL'] });
    const usage = new UsageError('--count must be a positive integer', 'bridge replay');

    // assess
    expect(listed.code).toBe('CONFIG_INVALID');
    expect(listed.retryable).toBe(false);
    expect(listed.problems).toEqual(['PDS_BASE_URL is required', 'STATE_BUCKET is required']);
    expect(listed.message).toContain('PDS_BASE_URL is required; STATE_BUCKET is required');
    expect(single.problems).toEqual(['PDS_BASE_URL must use https']);
    expect(single.variables).toEqual(['PDS_BASE_URL']);
    expect(usage).toBeInstanceOf(BridgeError);
    expect([usage.code, usage.retryable, usage.command]).toEqual(['USAGE', false, 'bridge replay']);
  });
});

describe('errorSummary', () => {
  it('gives one line, name and message, never a stack', () => {
    // act & assess
    expect(errorSummary(new TypeError('bad'))).toBe('TypeError: bad');
    expect(errorSummary(42)).toBe('42');
  });
});
