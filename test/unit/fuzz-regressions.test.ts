/**
 * Regression tests for the defects the property suites (test/unit/property-*.test.ts) found, each
 * built from the shrunk counterexample (issue 21). Every one of them failed before its fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEvent, EventDataError } from '../../packages/bridge/src/events/index.ts';
import { ingestSqsBody } from '../../packages/bridge/src/ingest/delivery.ts';
import { pollMessagingAssets } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { parseMessagingAssetSafely } from '../../packages/bridge/src/xml/index.ts';
import { parseCsv, readCsvRecords } from '../../packages/simulator/src/csv.ts';
import { apiEvent, bodyOf } from '../helpers/apigw.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { ingestHarness } from '../helpers/ingest-harness.ts';
import { publicationsApi } from '../helpers/publications-api.ts';
import { s3Event, s3Record } from '../helpers/s3-events.ts';

const PUBLICATION = {
  publicationId: 'b2f1a6a4-64a8-4d0e-9f0a-1f7f2d0c9e11',
  code: 'rejected' as const,
  reason: 'unknown selection',
  pdsStatus: 404,
  retryable: false,
};

describe('an element name that is only a namespace prefix', () => {
  it('is refused by the parser as malformed, naming the rule', () => {
    // act
    const result = parseMessagingAssetSafely('<a:/>');

    // assess
    expect(result).toMatchObject({ ok: false, error: { code: 'MALFORMED' } });
    expect(result.ok || result.error.message).toMatch(/"a:" has no local name/);
  });

  it('reaches consumers as a parse failure of that asset with its raw XML, not as a fetch failure', async () => {
    // prepare
    const pds = new FakePds();
    pds.addAsset('<a:/>');
    const sink = new RecordingSink();

    // act
    const report = await pollMessagingAssets(
      { pds, store: new MemoryStateStore(), sink },
      { firstRun: 'backlog' },
    );

    // assess
    expect(report).toMatchObject({ emitted: 1, failed: 0, parseErrors: 1 });
    const [data] = sink.dataOf('pds.messaging-asset.received');
    expect(data).toMatchObject({ rawXml: '<a:/>', parseError: { code: 'MALFORMED' } });
    expect(data?.messageError).toBeUndefined();
  });
});

describe('parse-error messages', () => {
  it('stay bounded for a document of unclosed tags and say how much was left out', () => {
    // prepare: the shrunk counterexample, 1,485 characters that gave a 4,098-character message
    const xml = '<a>'.repeat(495);

    // act
    const result = parseMessagingAssetSafely(xml);

    // assess
    if (result.ok) throw new Error('expected a parse error');
    expect(result.error.message.length).toBeLessThanOrEqual(2100);
    expect(result.error.message).toMatch(/more characters left out/);
  });

  it('stay bounded for a 9 MB document of unclosed tags', () => {
    // prepare: under the 10 MiB limit; the message was 24 million characters
    const xml = '<element>'.repeat(1_000_000);

    // act
    const result = parseMessagingAssetSafely(xml);

    // assess
    if (result.ok) throw new Error('expected a parse error');
    expect(result.error.message.length).toBeLessThanOrEqual(2100);
  });
});

describe('element names that are properties of Object.prototype', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    '"%s" is refused with NAME_REFUSED naming the rule, on whichever path parses it',
    (name) => {
      // act
      const nested = parseMessagingAssetSafely(`<r><${name}>x</${name}></r>`);
      const root = parseMessagingAssetSafely(`<${name}/>`);

      // assess
      for (const result of [nested, root]) {
        expect(result).toMatchObject({ ok: false, error: { code: 'NAME_REFUSED' } });
        expect(result.ok || result.error.message).toContain(`"${name}"`);
        expect(result.ok || result.error.message).toMatch(/Object\.prototype/);
      }
    },
  );
});

describe('text that is not well-formed Unicode from outside', () => {
  it.each([
    ['bucket', { bucket: '\ud800' }],
    ['ETag', { etag: '\udc00abc' }],
    ['version id', { versionId: 'v\ud800' }],
    ['sequencer', { sequencer: '00\udfff' }],
  ])(
    'in the %s of a notification ends it in one receive with a failure event saying why',
    async (_, field) => {
      // prepare
      const { deps, sinks, events, imports } = ingestHarness();
      const body = JSON.stringify(
        s3Event([s3Record({ bucket: 'drops', key: 'in/a.csv', size: 1, ...field })]),
      );

      // act
      const summary = await ingestSqsBody(body, deps, sinks);

      // assess
      expect(summary).toMatchObject({ failed: 1, imported: 0 });
      expect(imports).toEqual([]);
      const failed = events.filter((event) => event.type === 'pds.ingest.failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]?.data).toMatchObject({
        code: 'invalid-notification',
        retryable: false,
        reason: expect.stringMatching(/not well-formed Unicode/),
      });
    },
  );

  it.each([
    ['GET', '/publications/{publicationId}', { publicationId: '\ud800' }],
    ['PUT', '/watch/{primaryKey}', { primaryKey: '\ud800' }],
    ['GET', '/watch/{primaryKey}', { primaryKey: 'k\udc00' }],
  ])('in a path parameter of %s %s answers 400 invalid-path', async (method, template, pathParameters) => {
    // prepare
    const { api } = publicationsApi();
    const path = template.replace(/\{\w+\}/, 'x');

    // act
    const result = await api.handle(apiEvent({ method, path, pathParameters, iam: true }));

    // assess
    expect(result.statusCode).toBe(400);
    expect(result.headers?.['content-type']).toBe('application/problem+json');
    expect(bodyOf(result)).toMatchObject({ detail: expect.stringMatching(/not well-formed Unicode/) });
  });
});

describe('primary keys that are not well-formed Unicode in a publication request', () => {
  it('are refused with 422 naming the field, before the worker would publish them and fail to watch them', async () => {
    // prepare
    const { api, queue } = publicationsApi();
    const event = apiEvent({
      method: 'POST',
      path: '/publications',
      json: {
        primaryKeys: ['0401\ud800'],
        destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
      },
      iam: true,
    });

    // act
    const result = await api.handle(event);

    // assess
    expect(result.statusCode).toBe(422);
    expect(JSON.stringify(bodyOf(result))).toMatch(/well-formed Unicode/);
    expect(queue.sent).toHaveLength(0);
  });
});

describe('empty path parameters', () => {
  it.each([
    ['GET', '/publications//'],
    ['GET', '/watch//'],
    ['DELETE', '/watch//'],
  ])('%s %s answers 400 invalid-path', async (method, path) => {
    // prepare
    const { api } = publicationsApi();

    // act
    const result = await api.handle(apiEvent({ method, path, iam: true }));

    // assess
    expect(result.statusCode).toBe(400);
    expect(result.headers?.['content-type']).toBe('application/problem+json');
    expect(String(bodyOf(result).type)).toMatch(/invalid-path$/);
  });
});

describe('createEvent checks what the consumer kit and the schema check', () => {
  it('refuses a time after the year 9999 with EventDataError', () => {
    // act
    const build = () =>
      createEvent({
        type: 'pds.publication.failed',
        subject: 'publication/1',
        idParts: ['1'],
        time: new Date(Date.UTC(10000, 0, 1)),
        data: PUBLICATION,
      });

    // assess
    expect(build).toThrow(EventDataError);
    expect(build).toThrow(/year 0000 to 9999/);
  });

  it.each([
    ['an object without a prototype', Object.create(null)],
    ['a symbol', Symbol('pds.publication.failed')],
  ])('refuses a type that is %s with EventDataError, not TypeError', (_, type) => {
    // act
    const build = () =>
      createEvent({ type, subject: 'publication/1', idParts: ['1'], data: PUBLICATION } as never);

    // assess
    expect(build).toThrow(EventDataError);
  });

  it('refuses a source that is not a string', () => {
    // act
    const build = () =>
      createEvent({
        type: 'pds.publication.failed',
        source: 42 as never,
        subject: 'publication/1',
        idParts: ['1'],
        data: PUBLICATION,
      });

    // assess
    expect(build).toThrow(EventDataError);
  });
});

describe('the simulator CSV delimiter', () => {
  // The shrunk counterexample: a header whose first name holds a line break, separated by ';'.
  const text = '"a\nb";"c"\n"1";"2"\n';

  it('is detected from the whole header record, not its first line, reading a text', () => {
    // act
    const table = parseCsv(text);

    // assess
    expect(table).toEqual({ header: ['a\nb', 'c'], rows: [['1', '2']] });
  });

  it('is detected from the whole header record, not its first line, streaming a file', async () => {
    // prepare
    const directory = mkdtempSync(path.join(tmpdir(), 'pds-csv-'));
    const file = path.join(directory, 'items.csv');
    writeFileSync(file, text);

    // act
    const rows: Array<Record<string, string>> = [];
    try {
      for await (const row of readCsvRecords(file)) rows.push(row);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }

    // assess
    expect(rows).toEqual([{ 'a\nb': '1', c: '2' }]);
  });
});
