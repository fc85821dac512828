import { describe, expect, it } from 'vitest';
import { BridgeError, errorFields, errorSummary } from '../../lib/core/index.ts';

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
  it('names the error and its message, with status and retryable when it has them', () => {
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
      retryable: false,
    });
    expect(errorFields(new TypeError('bad'))).toEqual({ error: 'TypeError', reason: 'bad' });
  });

  it('describes a thrown value that is not an Error', () => {
    // act & assess
    expect(errorFields('plain')).toEqual({ error: 'Error', reason: 'plain' });
  });
});

describe('errorSummary', () => {
  it('gives one line, name and message, never a stack', () => {
    // act & assess
    expect(errorSummary(new TypeError('bad'))).toBe('TypeError: bad');
    expect(errorSummary(42)).toBe('42');
  });
});
