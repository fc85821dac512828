/**
 * Outside JSON read exactly: the V8 defect of Node 24 and 26 (nodejs/node#63785) misreads an escaped
 * object key after a key such as `"\\u"` was read in the same position; parseJson reads such texts
 * with @streamparser/json and every other text with JSON.parse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasEscapedKey, parseJson, parseJsonOr } from '../../packages/bridge/src/core/json.ts';

/** The value as JSON writes it: `-0` is written `0`. */
function withoutNegativeZero(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      Object.defineProperty(copy, key, {
        value: withoutNegativeZero(entry),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}

describe('parseJson', () => {
  it("reads an escaped key right after the engine defect's trigger was parsed", () => {
    // prepare: the trigger, read as the bridge reads any outside JSON
    parseJson('{"e":0,"\\\\u":0,"f":0}');

    // act
    const value = parseJson('{"e":0,"\\u00e9x":0,"f":0}');

    // assess
    expect(Object.keys(value as object)).toEqual(['e', 'éx', 'f']);
  });

  it('keeps JSON.parse for texts whose keys carry no escape (escapes in values included)', () => {
    expect(hasEscapedKey('{"a":1,"b":[true,null]}')).toBe(false);
    expect(hasEscapedKey('{"a":"x\\"y:","b":"\\u00e9"}')).toBe(false);
    expect(hasEscapedKey('["\\":", "x"]')).toBe(false);
    expect(hasEscapedKey('{"a\\"b":1}')).toBe(true);
    expect(hasEscapedKey('{"a":{"\\u0041" :1}}')).toBe(true);
  });

  it('keeps "__proto__" an own key, as JSON.parse does, on both paths', () => {
    for (const text of ['{"__proto__":{"x":1}}', '{"\\u005f_proto__":{"x":1}}']) {
      const value = parseJson(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.hasOwn(value, '__proto__')).toBe(true);
      expect((value as { x?: unknown }).x).toBeUndefined();
    }
  });

  it('gives what JSON.parse of a correct engine gives, for any JSON with any keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, asciiOnly) => {
        // JSON.stringify escapes only quotes, backslashes and controls; escape every other non-ASCII too
        const plain = JSON.stringify(value);
        const text = asciiOnly
          ? plain.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
          : plain;
        expect(parseJson(text)).toStrictEqual(withoutNegativeZero(value));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what is not JSON on both paths, through the caller’s error', () => {
    for (const text of ['', '{"a":1', '{"\\u00e9":1,}', '{"\\u00e9":1} x', '{"\\x":1}']) {
      expect(() => parseJsonOr(text, (cause) => new TypeError('not JSON', { cause }))).toThrow('not JSON');
    }
  });
});
