import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PdsInvalidRequestError } from '../../packages/bridge/src/pds/errors.ts';
import { encodePathSegment, pathOf } from '../../packages/bridge/src/pds/paths.ts';

const segmentText = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1 }),
    fc.string({ unit: 'grapheme', minLength: 1 }),
    fc.string({
      unit: fc.constantFrom('/', '?', '#', '%', '.', ' ', '+', '&', '=', ';', '\\', "'", '*', 'a'),
      minLength: 1,
    }),
  )
  .filter((text) => text !== '.' && text !== '..');

describe('encodePathSegment', () => {
  it('round-trips any text through URL parsing as exactly one segment', () => {
    fc.assert(
      fc.property(segmentText, (text) => {
        // Act
        const encoded = encodePathSegment(text);
        const url = new URL(`http://pds.example.test/api/v1/supplierreviews/${encoded}/tail`);
        const segments = url.pathname.split('/');

        // Assess
        expect(encoded).not.toMatch(/[/?#]/);
        expect(encoded).toMatch(/^[A-Za-z0-9\-._~%]+$/);
        expect(segments).toHaveLength(6);
        expect(decodeURIComponent(segments[4] ?? '')).toBe(text);
        expect(url.search).toBe('');
        expect(url.hash).toBe('');
      }),
      { numRuns: 500 },
    );
  });

  it('encodes the sub-delimiters encodeURIComponent leaves raw', () => {
    // Act
    const encoded = encodePathSegment("it's (a) *key*!");

    // Assess
    expect(encoded).toBe('it%27s%20%28a%29%20%2Akey%2A%21');
  });

  it.each([[''], ['.'], ['..'], ['\ud800lone']])('refuses %o', (value) => {
    // Act
    const encode = () => encodePathSegment(value);

    // Assess
    expect(encode).toThrow(PdsInvalidRequestError);
  });
});

describe('pathOf', () => {
  it('encodes every interpolated value and keeps the literals', () => {
    // Act
    const path = pathOf`/api/v1/supplierreviews/${'40 06/381?#'}/x/${42}`;

    // Assess
    expect(path).toBe('/api/v1/supplierreviews/40%2006%2F381%3F%23/x/42');
  });

  it('names the template, not the value, when a value is refused', () => {
    // Act
    const build = () => pathOf`/api/v1/supplierreviews/${''}`;

    // Assess
    expect(build).toThrow('request /api/v1/supplierreviews/{…}: a path segment cannot be empty');
  });
});
