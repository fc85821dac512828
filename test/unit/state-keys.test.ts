import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateKeyError } from '../../packages/bridge/src/state/errors.ts';
import {
  declaredStatePrefixes,
  decodeKeySegment,
  encodeKeyPart,
  encodeKeySegment,
  leaseKey,
  MAX_READABLE_SEGMENT,
  primaryKeyOfWatchKey,
  sha256Hex,
  statePrefix,
  watchKey,
} from '../../packages/bridge/src/state/keys.ts';
import { assertStateKey } from '../../packages/bridge/src/state/store.ts';

const anyText = fc.string({ unit: 'binary', minLength: 1, maxLength: 300 });

describe('encodeKeySegment', () => {
  it('leaves plain identifiers readable', () => {
    // act & assess
    expect(encodeKeySegment('00012345678905')).toBe('00012345678905');
    expect(encodeKeySegment('messaging-assets')).toBe('messaging-assets');
    expect(encodeKeySegment('v1.2_beta')).toBe('v1.2_beta');
  });

  it('escapes everything else byte by byte', () => {
    // act & assess
    expect(encodeKeySegment('Äpfel / 100%')).toBe('!C3!84pfel!20!2F!20100!25');
    expect(encodeKeySegment('a+b')).toBe('a!2Bb');
    expect(encodeKeySegment("!~*'()")).toBe('!21!7E!2A!27!28!29');
    expect(encodeKeySegment('..')).toBe('!2E.');
  });

  it('hashes texts whose readable form would be too long', () => {
    // prepare
    const long = 'ü'.repeat(40);

    // act
    const segment = encodeKeySegment(long);

    // assess
    expect(segment).toBe(`!h${sha256Hex(long)}`);
    expect(decodeKeySegment(segment)).toBeUndefined();
  });

  it('refuses empty and ill-formed texts', () => {
    // act & assess
    expect(() => encodeKeySegment('')).toThrow(TypeError);
    expect(() => encodeKeySegment('a\ud800')).toThrow(/not well-formed Unicode/);
  });

  it('always yields one valid path segment', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const segment = encodeKeySegment(text);
        expect(segment).toMatch(/^[A-Za-z0-9._!-]+$/);
        expect(segment.startsWith('.')).toBe(false);
        expect(segment.length).toBeLessThanOrEqual(MAX_READABLE_SEGMENT);
        expect(() => assertStateKey(`watch/${segment}.json`)).not.toThrow();
      }),
    );
  });

  it('decodes every readable segment back to its text, so different texts never share a segment', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const segment = encodeKeySegment(text);
        const decoded = decodeKeySegment(segment);
        if (segment.startsWith('!h')) expect(segment).toBe(`!h${sha256Hex(text)}`);
        else expect(decoded).toBe(text);
      }),
    );
  });
});

describe("packages/bridge/src/state's own keys", () => {
  it('put watch entries and leases under their prefixes', () => {
    // act & assess
    expect(watchKey('4000000000001')).toBe('watch/4000000000001.json');
    expect(watchKey('a/b c')).toBe('watch/a!2Fb!20c.json');
    expect(leaseKey('poll-supplier-reviews')).toBe('leases/poll-supplier-reviews.json');
  });

  it('give back the primary key of a watch entry unless it was hashed', () => {
    // act & assess
    expect(primaryKeyOfWatchKey(watchKey('a/b c'))).toBe('a/b c');
    expect(primaryKeyOfWatchKey(watchKey('k'.repeat(500)))).toBeUndefined();
    expect(primaryKeyOfWatchKey('checkpoints/x.json')).toBeUndefined();
  });
});

describe('encodeKeyPart', () => {
  it('also escapes the separator, so joined parts never read two ways', () => {
    // act & assess
    expect(encodeKeyPart('4012345000009')).toBe('4012345000009');
    expect(encodeKeyPart('a.b_c')).toBe('a!2Eb!5Fc');
    expect(`${encodeKeyPart('a.b')}.${encodeKeyPart('c')}`).not.toBe(
      `${encodeKeyPart('a')}.${encodeKeyPart('b.c')}`,
    );
  });
});

describe('statePrefix', () => {
  it('hands out one top-level segment and remembers who declared it', () => {
    // act
    const prefix = statePrefix('test-reports', 'test/unit/state-keys');

    // assess
    expect(prefix).toBe('test-reports/');
    expect(declaredStatePrefixes().get('test-reports/')).toBe('test/unit/state-keys');
    expect(statePrefix('test-reports', 'test/unit/state-keys')).toBe('test-reports/');
  });

  it('refuses a prefix another module holds, naming both', () => {
    // act & assess
    expect(() => statePrefix('leases', 'lib/reports')).toThrow(StateKeyError);
    expect(() => statePrefix('leases', 'lib/reports')).toThrow(
      'lib/reports declares a prefix that packages/bridge/src/state holds; give its keys another name',
    );
  });

  it('refuses names that are not one plain lower-case segment', () => {
    // act & assess
    for (const name of ['', 'Reports', 'a/b', 'a.b', '-x', 'x_y']) {
      expect(() => statePrefix(name, 'lib/reports')).toThrow(/one segment of lower-case letters/);
    }
  });
});
