import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkpointKey,
  claimCheckKey,
  decodeKeySegment,
  encodeKeySegment,
  idempotencyKey,
  ingestEntriesKey,
  ingestObjectPrefix,
  ingestProgressKey,
  isIngestProgressKey,
  leaseKey,
  MAX_READABLE_SEGMENT,
  primaryKeyOfWatchKey,
  publicationKey,
  sha256Hex,
  watchKey,
} from '../../lib/state/keys.ts';
import { assertStateKey } from '../../lib/state/store.ts';

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

describe('key builders', () => {
  it('put each purpose under its own prefix', () => {
    // act & assess
    expect(checkpointKey('messaging-assets')).toBe('checkpoints/messaging-assets.json');
    expect(watchKey('4000000000001')).toBe('watch/4000000000001.json');
    expect(publicationKey('p-1')).toBe('publications/p-1.json');
    expect(claimCheckKey('evt/1')).toBe('claim-check/evt!2F1.json');
    expect(leaseKey('poll-supplier-reviews')).toBe('leases/poll-supplier-reviews.json');
    expect(idempotencyKey('k-1')).toMatch(/^idempotency\/[0-9a-f]{64}\.json$/);
  });

  it('give back the primary key of a watch entry unless it was hashed', () => {
    // act & assess
    expect(primaryKeyOfWatchKey(watchKey('a/b c'))).toBe('a/b c');
    expect(primaryKeyOfWatchKey(watchKey('k'.repeat(500)))).toBeUndefined();
    expect(primaryKeyOfWatchKey('checkpoints/x.json')).toBeUndefined();
  });

  it('keep idempotency keys of different scopes apart', () => {
    // act & assess
    expect(idempotencyKey('k', 'caller-a')).not.toBe(idempotencyKey('k', 'caller-b'));
    expect(idempotencyKey('a:b', 'c')).not.toBe(idempotencyKey('b', 'c:a'));
    expect(idempotencyKey('k', 'caller-a')).toBe(idempotencyKey('k', 'caller-a'));
    expect(() => idempotencyKey('')).toThrow(TypeError);
  });
});

describe('ingestProgressKey', () => {
  it('files every write of one object under the hash of its key', () => {
    // prepare
    const key = 'in/Ä b+c.csv';

    // act
    const byVersion = ingestProgressKey({
      bucket: 'drops',
      key,
      versionId: 'L4kqtJlcpXroDTDmpUMLUo',
      etag: '"abc"',
    });
    const byEtag = ingestProgressKey({ bucket: 'drops', key, etag: '"9b2cf535f27731c974343645a3985328"' });
    const bySequencer = ingestProgressKey({
      bucket: 'drops',
      key,
      etag: '9b2cf535f27731c974343645a3985328',
      sequencer: '0055AED6DCD90281E5',
    });

    // assess
    const prefix = `ingest/drops/${sha256Hex(key)}/`;
    expect(ingestObjectPrefix('drops', key)).toBe(prefix);
    expect(byVersion).toBe(`${prefix}v-L4kqtJlcpXroDTDmpUMLUo.json`);
    expect(byEtag).toBe(`${prefix}e-9b2cf535f27731c974343645a3985328.json`);
    expect(bySequencer).toBe(`${prefix}e-9b2cf535f27731c974343645a3985328.0055AED6DCD90281E5.json`);
  });

  it('needs a versionId or an ETag', () => {
    // act & assess
    expect(() => ingestProgressKey({ bucket: 'drops', key: 'a.csv' })).toThrow(/give its versionId or etag/);
  });

  it('gives distinct, valid keys to distinct writes, whatever the key looks like', () => {
    const write = fc.record(
      {
        key: fc.string({ unit: 'binary', minLength: 1, maxLength: 1024 }),
        versionId: fc.option(fc.string({ unit: 'binary', minLength: 1, maxLength: 120 }), { nil: undefined }),
        etag: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 }),
        sequencer: fc.option(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 30 }), {
          nil: undefined,
        }),
      },
      { requiredKeys: ['key', 'etag'] },
    );
    const identity = (w: { key: string; versionId?: string; etag: string; sequencer?: string }) =>
      JSON.stringify(
        w.versionId
          ? [w.key, 'v', w.versionId]
          : [w.key, 'e', w.etag.replace(/^(W\/)?"(.*)"$/, '$2'), w.sequencer ?? null],
      );
    fc.assert(
      fc.property(write, write, (a, b) => {
        const keyA = ingestProgressKey({ bucket: 'drops', ...a });
        const keyB = ingestProgressKey({ bucket: 'drops', ...b });
        expect(() => assertStateKey(keyA)).not.toThrow();
        expect(keyA === keyB).toBe(identity(a) === identity(b));
      }),
    );
  });

  it('tells apart writes that differ only in where the separator falls', () => {
    // act
    const a = ingestProgressKey({ bucket: 'b', key: 'k', etag: 'x.y' });
    const b = ingestProgressKey({ bucket: 'b', key: 'k', etag: 'x', sequencer: 'y' });

    // assess
    expect(a).not.toBe(b);
  });
});

describe('the entries stored beside an ingest progress record', () => {
  it('live under the record, one document per gathering, and are never taken for a record', () => {
    // prepare
    const record = ingestProgressKey({ bucket: 'drops', key: 'in/big.zip', etag: '"abc"', sequencer: '01' });

    // act
    const entries = ingestEntriesKey(record, 'g/17 ä');

    // assess
    expect(entries).toBe(`${record.slice(0, -'.json'.length)}/entries/g!2F17!20!C3!A4.json`);
    expect(isIngestProgressKey(record)).toBe(true);
    expect(isIngestProgressKey(entries)).toBe(false);
    expect(() => ingestEntriesKey(entries, 'g-1')).toThrow('not an ingest progress key');
  });
});
