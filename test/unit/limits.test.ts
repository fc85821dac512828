/**
 * Every size and count limit of docs/security.md, tested at its boundary: the largest accepted
 * input passes, one more is refused with the error the threat model names.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../packages/bridge/src/api/idempotency-key.ts';
import {
  MAX_DESTINATION_ID_LENGTH,
  MAX_DESTINATIONS,
  MAX_PRIMARY_KEY_LENGTH,
} from '../../packages/bridge/src/api/schemas.ts';
import { boundedText, MAX_ERROR_TEXT } from '../../packages/bridge/src/core/index.ts';
import { PdsInvalidResponseError } from '../../packages/bridge/src/pds/errors.ts';
import { MAX_ANSWER_BYTES, PdsTransport } from '../../packages/bridge/src/pds/transport.ts';
import {
  DEFAULT_MAX_XML_ATTRIBUTES,
  DEFAULT_MAX_XML_BYTES,
  DEFAULT_MAX_XML_DEPTH,
  DEFAULT_MAX_XML_ELEMENTS,
  parseMessagingAssetSafely,
} from '../../packages/bridge/src/xml/index.ts';
import { DEFAULT_MAX_BODY_BYTES, startHttpAdapter } from '../../packages/local/src/gateway/index.ts';
import {
  admitArchive,
  MAX_ARCHIVE_MEMBERS,
  RATIO_FREE_BYTES,
} from '../../packages/simulator/src/archive-limits.ts';
import { ArchiveLimitError } from '../../packages/simulator/src/errors.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { MAX_JSON_BODY_BYTES } from '../../packages/simulator/src/request-body.ts';
import { apiEvent, bodyOf, publicationBody } from '../helpers/apigw.ts';
import { publicationsApi, TEST_API_SETTINGS } from '../helpers/publications-api.ts';

const codeOf = (xml: string) => {
  const result = parseMessagingAssetSafely(xml);
  return result.ok ? 'ok' : result.error.code;
};
const nested = (depth: number, name = 'a') => `${`<${name}>`.repeat(depth)}${`</${name}>`.repeat(depth)}`;

describe('messaging-asset XML limits', () => {
  it(`accepts a document of exactly ${DEFAULT_MAX_XML_BYTES} bytes and refuses one byte more with TOO_LARGE`, () => {
    // prepare: 'ü' is two UTF-8 bytes, so the limit is in bytes, not characters
    const filler = (bytes: number) => `<a>${'x'.repeat(bytes - 9)}ü</a>`;

    // act + assess
    expect(Buffer.byteLength(filler(DEFAULT_MAX_XML_BYTES))).toBe(DEFAULT_MAX_XML_BYTES);
    expect(codeOf(filler(DEFAULT_MAX_XML_BYTES))).toBe('ok');
    expect(codeOf(filler(DEFAULT_MAX_XML_BYTES + 1))).toBe('TOO_LARGE');
  });

  it(`accepts a root with ${DEFAULT_MAX_XML_DEPTH} levels inside it and refuses ${DEFAULT_MAX_XML_DEPTH + 1} with LIMIT_EXCEEDED, on both parsing paths`, () => {
    // act + assess: the root is not counted; plain names take the one pass, names with two colons the general path
    expect(codeOf(nested(DEFAULT_MAX_XML_DEPTH + 1))).toBe('ok');
    expect(codeOf(nested(DEFAULT_MAX_XML_DEPTH + 2))).toBe('LIMIT_EXCEEDED');
    expect(codeOf(nested(DEFAULT_MAX_XML_DEPTH + 1, 'p:q:a'))).toBe('ok');
    expect(codeOf(nested(DEFAULT_MAX_XML_DEPTH + 2, 'p:q:a'))).toBe('LIMIT_EXCEEDED');
  });

  it(`accepts ${DEFAULT_MAX_XML_ELEMENTS} elements and refuses one more with LIMIT_EXCEEDED, on both parsing paths`, () => {
    // prepare: the root plus empty children; names with two colons take the general path
    const elements = (count: number, name = 'a') => `<${name}>${`<${name}/>`.repeat(count - 1)}</${name}>`;

    // act + assess
    expect(codeOf(elements(DEFAULT_MAX_XML_ELEMENTS))).toBe('ok');
    expect(codeOf(elements(DEFAULT_MAX_XML_ELEMENTS + 1))).toBe('LIMIT_EXCEEDED');
    expect(codeOf(elements(DEFAULT_MAX_XML_ELEMENTS, 'p:q:a'))).toBe('ok');
    expect(codeOf(elements(DEFAULT_MAX_XML_ELEMENTS + 1, 'p:q:a'))).toBe('LIMIT_EXCEEDED');
  });

  it(`accepts ${DEFAULT_MAX_XML_ATTRIBUTES} attributes and refuses one more with LIMIT_EXCEEDED, on both parsing paths`, () => {
    // prepare: 1000 attributes per element, namespace declarations counted too
    const attributes = (count: number, name = 'a') => {
      const tag = (n: number) =>
        `<${name} ${Array.from({ length: n }, (_, i) => (i === 0 ? 'xmlns:x="urn:x"' : `b${i}="1"`)).join(' ')}/>`;
      const full = Math.floor(count / 1000);
      const rest = count % 1000;
      return `<${name}>${tag(1000).repeat(full)}${rest === 0 ? '' : tag(rest)}</${name}>`;
    };

    // act + assess
    expect(codeOf(attributes(DEFAULT_MAX_XML_ATTRIBUTES))).toBe('ok');
    expect(codeOf(attributes(DEFAULT_MAX_XML_ATTRIBUTES + 1))).toBe('LIMIT_EXCEEDED');
    expect(codeOf(attributes(DEFAULT_MAX_XML_ATTRIBUTES, 'p:q:a'))).toBe('ok');
    expect(codeOf(attributes(DEFAULT_MAX_XML_ATTRIBUTES + 1, 'p:q:a'))).toBe('LIMIT_EXCEEDED');
  });

  it('refuses 10 MiB of empty elements (2.5 million) as a parse error instead of exhausting the memory', () => {
    // prepare: within the size limit, far beyond the element limit
    const flood = `<a>${'<b/>'.repeat((DEFAULT_MAX_XML_BYTES - 7) / 4)}</a>`;

    // act
    const result = parseMessagingAssetSafely(flood);

    // assess
    expect(result).toMatchObject({ ok: false, error: { code: 'LIMIT_EXCEEDED' } });
    expect(result.ok ? '' : result.error.message).toContain('maxElements');
  });

  it('expands no entity at all: a DOCTYPE (the only place one can be declared) is refused', () => {
    // prepare: a billion-laughs prologue
    const bomb = `<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;</l>`;

    // act + assess
    expect(codeOf(bomb)).toBe('DOCTYPE_REFUSED');
    // An undeclared reference stays the text it is: nothing is looked up, nothing grows.
    expect(parseMessagingAssetSafely('<l>&a;</l>')).toMatchObject({
      ok: true,
      document: { root: { '#text': '&a;' } },
    });
  });
});

describe('error text', () => {
  it(`keeps ${MAX_ERROR_TEXT} characters whole and cuts one more, saying how much was left out`, () => {
    expect(boundedText('x'.repeat(MAX_ERROR_TEXT))).toBe('x'.repeat(MAX_ERROR_TEXT));
    expect(boundedText('x'.repeat(MAX_ERROR_TEXT + 1))).toBe(
      `${'x'.repeat(MAX_ERROR_TEXT)}… (1 more characters left out)`,
    );
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'x'.repeat(MAX_ERROR_TEXT - 1)}😀tail`;
    expect(boundedText(text).isWellFormed()).toBe(true);
  });
});

describe('API request limits', () => {
  // force=true: the path's length is under test, not whether the PDS knows the item.
  const put = (key: string) =>
    apiEvent({ method: 'PUT', path: `/watch/${encodeURIComponent(key)}?force=true`, iam: true });
  const post = (keys: string[], idempotencyKey?: string) =>
    apiEvent({
      method: 'POST',
      path: '/publications',
      json: publicationBody(keys),
      iam: true,
      ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
    });
  const keys = (count: number) =>
    Array.from({ length: count }, (_, index) => String(index).padStart(14, '0'));

  it(`accepts a primary key of ${MAX_PRIMARY_KEY_LENGTH} characters in a path and refuses ${MAX_PRIMARY_KEY_LENGTH + 1} with 400`, async () => {
    const { api } = publicationsApi();
    expect((await api.handle(put('k'.repeat(MAX_PRIMARY_KEY_LENGTH)))).statusCode).toBe(201);
    expect((await api.handle(put('k'.repeat(MAX_PRIMARY_KEY_LENGTH + 1)))).statusCode).toBe(400);
  });

  it(`accepts ${TEST_API_SETTINGS.maxKeys} primary keys in one publication and refuses ${TEST_API_SETTINGS.maxKeys + 1} with 422`, async () => {
    const { api } = publicationsApi();
    expect((await api.handle(post(keys(TEST_API_SETTINGS.maxKeys)))).statusCode).toBe(202);
    const refused = await api.handle(post(keys(TEST_API_SETTINGS.maxKeys + 1)));
    expect(refused.statusCode).toBe(422);
    expect(JSON.stringify(bodyOf(refused))).toMatch(/PUBLICATION_MAX_KEYS/);
  });

  it(`accepts ${MAX_DESTINATIONS} destinations in one publication and refuses ${MAX_DESTINATIONS + 1} with 422`, async () => {
    const { api } = publicationsApi();
    const destinations = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        destinationType: 'IN_PLATFORM',
        destinationId: `org-${index}`,
      }));
    const send = (count: number) =>
      api.handle(
        apiEvent({
          method: 'POST',
          path: '/publications',
          json: publicationBody(keys(1), destinations(count)),
          iam: true,
        }),
      );
    expect((await send(MAX_DESTINATIONS)).statusCode).toBe(202);
    const refused = await send(MAX_DESTINATIONS + 1);
    expect(refused.statusCode).toBe(422);
    expect(bodyOf(refused)).toMatchObject({
      errors: [
        {
          pointer: '/destinations',
          detail: `names ${MAX_DESTINATIONS + 1} destinations, more than the ${MAX_DESTINATIONS} allowed; split the request`,
        },
      ],
    });
  });

  it(`accepts a destinationId of ${MAX_DESTINATION_ID_LENGTH} characters and refuses ${MAX_DESTINATION_ID_LENGTH + 1} with 422`, async () => {
    const { api } = publicationsApi();
    const send = (length: number) =>
      api.handle(
        apiEvent({
          method: 'POST',
          path: '/publications',
          json: publicationBody(keys(1), [
            { destinationType: 'IN_PLATFORM', destinationId: 'o'.repeat(length) },
          ]),
          iam: true,
        }),
      );
    expect((await send(MAX_DESTINATION_ID_LENGTH)).statusCode).toBe(202);
    const refused = await send(MAX_DESTINATION_ID_LENGTH + 1);
    expect(refused.statusCode).toBe(422);
    expect(bodyOf(refused)).toMatchObject({
      errors: [
        {
          pointer: '/destinations/0/destinationId',
          detail: `must be at most ${MAX_DESTINATION_ID_LENGTH} characters`,
        },
      ],
    });
  });

  it('declares the publication bounds in the OpenAPI document', async () => {
    const { api } = publicationsApi();
    const document = bodyOf(await api.handle(apiEvent({ path: '/openapi.json', iam: true })));
    expect(document).toMatchObject({
      components: {
        schemas: {
          Destination: { properties: { destinationId: { maxLength: MAX_DESTINATION_ID_LENGTH } } },
          PublicationRequest: { properties: { destinations: { maxItems: MAX_DESTINATIONS } } },
        },
      },
    });
  });

  it(`accepts an Idempotency-Key of ${MAX_IDEMPOTENCY_KEY_LENGTH} characters and refuses ${MAX_IDEMPOTENCY_KEY_LENGTH + 1} with 400`, async () => {
    const { api } = publicationsApi();
    expect((await api.handle(post(keys(1), 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH)))).statusCode).toBe(202);
    expect((await api.handle(post(keys(1), 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1)))).statusCode).toBe(
      400,
    );
  });

  it('accepts a page of 1000 watched keys and refuses 1001 with 400', async () => {
    const { api } = publicationsApi();
    expect((await api.handle(apiEvent({ path: '/watch?limit=1000', iam: true }))).statusCode).toBe(200);
    expect((await api.handle(apiEvent({ path: '/watch?limit=1001', iam: true }))).statusCode).toBe(400);
  });
});

describe('simulator archive limits', () => {
  it(`admits ${MAX_ARCHIVE_MEMBERS} members and refuses ${MAX_ARCHIVE_MEMBERS + 1} with ARCHIVE_TOO_MANY_MEMBERS`, () => {
    expect(() => admitArchive({ name: 'a.zip', bytes: 1, members: MAX_ARCHIVE_MEMBERS })).not.toThrow();
    expect(() => admitArchive({ name: 'a.zip', bytes: 1, members: MAX_ARCHIVE_MEMBERS + 1 })).toThrow(
      expect.objectContaining({ code: 'ARCHIVE_TOO_MANY_MEMBERS' }),
    );
  });

  it('admits members up to the expanded-bytes limit and refuses one byte more with ARCHIVE_TOO_LARGE_EXPANDED', () => {
    const limits = { maxMembers: 10, maxExpandedBytes: 1000, maxRatio: 1e9 };
    const admit = admitArchive({ name: 'a.zip', bytes: 100, members: 2 }, limits);
    admit(999);
    admit(1);
    expect(() => admit(1)).toThrow(expect.objectContaining({ code: 'ARCHIVE_TOO_LARGE_EXPANDED' }));
  });

  it('admits an expansion of exactly the ratio and refuses one byte more with ARCHIVE_EXPANSION_RATIO', () => {
    // prepare: an archive whose ratio limit lies above the bytes that are never checked
    const bytes = RATIO_FREE_BYTES / 10;
    const limits = { maxMembers: 10, maxExpandedBytes: 2 ** 40, maxRatio: 20 };
    const admit = admitArchive({ name: 'a.zip', bytes, members: 2 }, limits);

    // act + assess
    admit(20 * bytes);
    expect(() => admit(1)).toThrow(ArchiveLimitError);
  });

  it('does not check the ratio of archives expanding to less than RATIO_FREE_BYTES', () => {
    const admit = admitArchive({ name: 'a.zip', bytes: 1, members: 1 });
    expect(() => admit(RATIO_FREE_BYTES)).not.toThrow();
  });

  describe('through the simulator', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startSimulator({ demoData: false });
    });
    afterAll(async () => {
      await sim.close();
    });

    it(`reads a JSON body of exactly ${MAX_JSON_BODY_BYTES} bytes and answers 413 to one byte more`, async () => {
      // prepare: {"gatheringKey":"xxx…","path":"a.csv"} padded to the size
      const body = (bytes: number) => {
        const shell = JSON.stringify({ gatheringKey: '', path: 'a.csv' });
        return JSON.stringify({ gatheringKey: 'x'.repeat(bytes - shell.length), path: 'a.csv' });
      };
      const post = (text: string) =>
        fetch(`${sim.url}/api/v1/imports`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`,
            'content-type': 'application/json',
          },
          body: text,
        });

      // act
      const atLimit = await post(body(MAX_JSON_BODY_BYTES));
      const over = await post(body(MAX_JSON_BODY_BYTES + 1));

      // assess: the first is read (and refused for its unknown gathering), the second is not read
      expect(Buffer.byteLength(body(MAX_JSON_BODY_BYTES))).toBe(MAX_JSON_BODY_BYTES);
      expect(atLimit.status).not.toBe(413);
      expect(over.status).toBe(413);
    });

    it('answers 413 to an archive whose member expands past the ratio, before storing it', async () => {
      // prepare: 11 MiB of zeros compress to about 11 KiB, a ratio near 1000
      const zip = new ZipFile();
      zip.addBuffer(Buffer.alloc(RATIO_FREE_BYTES + 1024 * 1024), 'zeros.csv');
      zip.end();
      const chunks: Buffer[] = [];
      for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
      const form = new FormData();
      form.append('file', new Blob([Buffer.concat(chunks)]), 'bomb.zip');

      // act
      const response = await fetch(`${sim.url}/api/v1/gatherings`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`,
        },
        body: form,
      });

      // assess
      expect(response.status).toBe(413);
      expect(await response.text()).toMatch(/expands to more than 100 times its own/);
    });
  });
});

describe('the local HTTP adapter (API Gateway in the local stack)', () => {
  it(`answers a body of exactly ${DEFAULT_MAX_BODY_BYTES} bytes and refuses one byte more with 413, as API Gateway does`, async () => {
    // prepare
    const sizes: number[] = [];
    const adapter = await startHttpAdapter({
      handler: async (event) => {
        sizes.push(Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8').length);
        return { statusCode: 204 };
      },
    });
    try {
      // act
      const atLimit = await fetch(`${adapter.url}/x`, {
        method: 'POST',
        body: Buffer.alloc(DEFAULT_MAX_BODY_BYTES, 0x61),
      });
      const over = await fetch(`${adapter.url}/x`, {
        method: 'POST',
        body: Buffer.alloc(DEFAULT_MAX_BODY_BYTES + 1, 0x61),
      });

      // assess
      expect(atLimit.status).toBe(204);
      expect(over.status).toBe(413);
      expect(sizes).toEqual([DEFAULT_MAX_BODY_BYTES]);
    } finally {
      await adapter.close();
    }
  });

  it("refuses headers above Node's 16 KiB with 431 before the handler runs", async () => {
    // prepare
    let calls = 0;
    const adapter = await startHttpAdapter({
      handler: async () => {
        calls += 1;
        return { statusCode: 204 };
      },
    });
    try {
      // act
      const under = await fetch(`${adapter.url}/x`, { headers: { 'x-long': 'h'.repeat(15 * 1024) } });
      const over = await fetch(`${adapter.url}/x`, { headers: { 'x-long': 'h'.repeat(17 * 1024) } });

      // assess
      expect(under.status).toBe(204);
      expect(over.status).toBe(431);
      expect(calls).toBe(1);
    } finally {
      await adapter.close();
    }
  });
});

describe('PDS answers', () => {
  it(`reads an answer of exactly ${MAX_ANSWER_BYTES} bytes and refuses one byte more, without holding it`, async () => {
    // prepare: a PDS on 127.0.0.1 that answers /exact and /over with that many bytes of XML text
    const server = http.createServer((request, response) => {
      const size = MAX_ANSWER_BYTES + (request.url === '/over' ? 1 : 0);
      response.writeHead(200, { 'content-type': 'application/xml', 'content-length': size });
      response.end(Buffer.alloc(size, 0x61));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const transport = new PdsTransport({ baseUrl, credentials: { username: 'u', password: 'p' } });
    try {
      // act
      const exact = await transport.request({ method: 'GET', path: '/exact', expect: 'text' });
      const over = transport.request({ method: 'GET', path: '/over', expect: 'text' });

      // assess
      expect((exact.body as string).length).toBe(MAX_ANSWER_BYTES);
      await expect(over).rejects.toBeInstanceOf(PdsInvalidResponseError);
      await expect(over).rejects.toThrow(/more than 67108864 bytes/);
    } finally {
      await transport.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
