/**
 * The ingest's keys (packages/bridge/src/ingest/keys.ts): one progress record per write of a dropped object, and the
 * entries of its gatherings beside it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ingestEntriesKey,
  ingestObjectPrefix,
  ingestProgressKey,
  isIngestProgressKey,
} from '../../packages/bridge/src/ingest/keys.ts';
import { sha256Hex } from '../../packages/bridge/src/state/index.ts';
import { assertStateKey } from '../../packages/bridge/src/state/store.ts';

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
