import { describe, expect, it } from 'vitest';
import {
  checkCustomHeaders,
  MAX_CUSTOM_HEADERS,
  RESERVED_HEADER_NAMES,
} from '../../packages/bridge/src/webhooks/index.ts';

describe('checkCustomHeaders', () => {
  it('keeps valid headers with their names lowercased', () => {
    // act / assess
    expect(checkCustomHeaders({ 'X-Api-Key': 'k-1', Authorization: 'Bearer t' })).toEqual({
      'x-api-key': 'k-1',
      authorization: 'Bearer t',
    });
  });

  it.each([
    ...RESERVED_HEADER_NAMES.map((name) => [name.toUpperCase(), 'is set by the bridge or by HTTP itself']),
    ['webhook-anything', 'is set by the bridge or by HTTP itself'],
    ['X Api Key', 'is not a valid HTTP header name'],
    ['', 'is not a valid HTTP header name'],
  ])('refuses the name %j, naming it', (name, problem) => {
    // act / assess
    expect(() => checkCustomHeaders({ [name]: 'v' })).toThrow(problem);
  });

  it.each(['a\r\nx-injected: 1', 'line\nbreak', 'nul\u0000', 'é', 'x'.repeat(1025)])(
    'refuses a value that is not one line of visible ASCII, without quoting it: %j',
    (value) => {
      // act
      const error = (() => {
        try {
          checkCustomHeaders({ 'x-api-key': value });
        } catch (caught) {
          return caught as Error;
        }
      })();

      // assess
      expect(error?.message).toContain('no line breaks or control characters');
      expect(error?.message).not.toContain(value);
    },
  );

  it('refuses a name given twice in two cases, more than the count, and more than the bytes allowed', () => {
    // prepare
    const many = Object.fromEntries(
      Array.from({ length: MAX_CUSTOM_HEADERS + 1 }, (_, n) => [`x-h${n}`, 'v']),
    );
    const large = Object.fromEntries(Array.from({ length: 5 }, (_, n) => [`x-h${n}`, 'v'.repeat(1000)]));

    // act / assess
    expect(() => checkCustomHeaders({ 'X-Key': 'a', 'x-key': 'b' })).toThrow('is given twice');
    expect(() => checkCustomHeaders(many)).toThrow(`At most ${MAX_CUSTOM_HEADERS} custom headers`);
    expect(() => checkCustomHeaders(large)).toThrow('at most 4096 are allowed');
  });
});
