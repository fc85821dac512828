import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdsRequestBodyError } from '../../packages/bridge/src/pds/errors.ts';
import {
  createMultipartBody,
  escapeFileName,
  type MultipartBody,
} from '../../packages/bridge/src/pds/multipart.ts';

interface ParsedPart {
  field: string;
  fileName: string;
  mimeType: string;
  bytes: Buffer;
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Parses a body as the simulator does (busboy), keeping paths and reading parameters as UTF-8. */
function parse(body: MultipartBody, bytes: Buffer): Promise<ParsedPart[]> {
  return new Promise((resolve, reject) => {
    const parts: ParsedPart[] = [];
    const parser = busboy({
      headers: { 'content-type': body.contentType },
      preservePath: true,
      defParamCharset: 'utf8',
    });
    parser.on('file', (field, file, info) => {
      const chunks: Buffer[] = [];
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
      file.on('end', () =>
        parts.push({
          field,
          fileName: info.filename ?? '',
          mimeType: info.mimeType,
          bytes: Buffer.concat(chunks),
        }),
      );
    });
    parser.on('error', reject);
    parser.on('close', () => resolve(parts));
    parser.end(bytes);
  });
}

/** Undoes the %XX escapes of a file name (the test's own reading, independent of the encoder). */
function unescapePercent(text: string): string {
  return text.replace(/%([0-9A-F]{2})/g, (_match, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** Deterministic bytes, delivered in chunks of the given sizes. */
function chunked(bytes: Buffer, chunkSizes: number[]): Readable {
  const chunks: Buffer[] = [];
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = Math.max(1, chunkSizes[i % chunkSizes.length] ?? 1);
    chunks.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return Readable.from(chunks, { objectMode: false });
}

const fileName = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom('"', '\r', '\n', '\\', ';', 'é', '€', '😀', 'a', ' ', '/', '\t'),
    minLength: 1,
  }),
);

describe('createMultipartBody', () => {
  it('produces exactly contentLength bytes that busboy parses back to the same file', async () => {
    await fc.assert(
      fc.asyncProperty(
        fileName,
        fc.integer({ min: 0, max: 150_000 }),
        fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(undefined, 'text/csv', 'application/zip'),
        fc.integer(),
        async (name, size, chunkSizes, contentType, seed) => {
          // Prepare
          const content = Buffer.alloc(size);
          for (let i = 0; i < size; i++) content[i] = (seed + i * 31 + (i >> 8)) & 0xff;
          const body = await createMultipartBody({
            stream: chunked(content, chunkSizes),
            size,
            fileName: name,
            contentType,
          });

          // Act
          const bytes = await collect(body.open());
          const parts = await parse(body, bytes);

          // Assess
          expect(bytes.length).toBe(body.contentLength);
          expect(parts).toHaveLength(1);
          const [part] = parts;
          expect(part?.field).toBe('file');
          expect(part?.mimeType).toBe(contentType ?? 'application/octet-stream');
          expect(part?.bytes.equals(content)).toBe(true);
          expect(part?.fileName).toBe(escapeFileName(name));
          if (!name.includes('%')) expect(unescapePercent(part?.fileName ?? '')).toBe(name);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('sends the same file from an async iterable of byte views and from a stream of strings', async () => {
    // prepare: the same bytes as Uint8Array views into a larger buffer, and as a UTF-8 text stream
    const content = Buffer.from('primaryKey__,name\n1,"Müsli"\n2,Wasser\n');
    const backing = new Uint8Array(content.length + 16);
    backing.set(content, 8);
    async function* views() {
      yield backing.subarray(8, 20);
      yield backing.subarray(20, 8 + content.length);
    }
    const text = Readable.from([content.toString('utf8')]);

    // act
    const fromViews = await createMultipartBody({ stream: views(), size: content.length, fileName: 'a.csv' });
    const fromText = await createMultipartBody({ stream: text, size: content.length, fileName: 'a.csv' });
    const viewParts = await parse(fromViews, await collect(fromViews.open()));
    const textParts = await parse(fromText, await collect(fromText.open()));

    // assess: both carry exactly the file's bytes
    expect(viewParts[0]?.bytes.equals(content)).toBe(true);
    expect(textParts[0]?.bytes.equals(content)).toBe(true);
  });

  it('escapes quotes and line breaks as the WHATWG form encoding does', async () => {
    // Prepare
    const body = await createMultipartBody({
      stream: Readable.from([Buffer.from('x')]),
      size: 1,
      fileName: 'a "b"\r\nc.csv',
    });

    // Act
    const text = (await collect(body.open())).toString('utf8');

    // Assess
    expect(text).toContain(
      'Content-Disposition: form-data; name="file"; filename="a %22b%22%0D%0Ac.csv"\r\n',
    );
    expect(text).not.toContain('filename*');
  });

  it('fails when the stream yields more bytes than declared, before sending them', async () => {
    // Prepare
    const body = await createMultipartBody({
      stream: Readable.from([Buffer.alloc(10), Buffer.alloc(10)]),
      size: 15,
      fileName: 'long.csv',
    });

    // Act
    const error = await collect(body.open()).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsRequestBodyError);
    expect(error.message).toContain('more than its declared 15 bytes');
  });

  it('fails when the stream ends short of its declared size', async () => {
    // Prepare
    const body = await createMultipartBody({
      stream: Readable.from([Buffer.alloc(10)]),
      size: 11,
      fileName: 's',
    });

    // Act
    const error = await collect(body.open()).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsRequestBodyError);
    expect(error.message).toContain('ended after 10 of its declared 11 bytes');
  });

  it('wraps a failing source and refuses to open a one-shot stream twice', async () => {
    // Prepare
    const failing = new Readable({
      read() {
        this.destroy(new Error('disk gone'));
      },
    });
    const body = await createMultipartBody({ stream: failing, size: 5, fileName: 'f' });

    // Act
    const first = await collect(body.open()).catch((e) => e);
    const second = () => body.open();

    // Assess
    expect(body.replayable).toBe(false);
    expect(first).toBeInstanceOf(PdsRequestBodyError);
    expect(first.message).toContain('disk gone');
    expect(second).toThrow('cannot be replayed');
  });

  it.each([
    [{ stream: Readable.from([]), size: -1, fileName: 'f' }, 'non-negative integer'],
    [{ stream: Readable.from([]), size: 0, fileName: '' }, 'non-empty fileName'],
    [
      { stream: Readable.from([]), size: 0, fileName: 'f', contentType: 'text/csv\r\nX-Evil: 1' },
      'line break',
    ],
    [{ filePath: '/nonexistent/pds-multipart/file.csv' }, 'cannot upload'],
  ])('refuses an unusable source %#', async (source, message) => {
    // Act
    const error = await createMultipartBody(source).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsRequestBodyError);
    expect(error.message).toContain(message);
  });
});

describe('createMultipartBody from a file', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pds-multipart-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the size from the file, defaults the name, and can be opened again', async () => {
    // Prepare
    const path = join(dir, 'items €.csv');
    await writeFile(path, 'primaryKey__;name\n1;a\n');
    const body = await createMultipartBody({ filePath: path, contentType: 'text/csv' });

    // Act
    const first = await collect(body.open());
    const second = await collect(body.open());
    const [part] = await parse(body, second);

    // Assess
    expect(body.replayable).toBe(true);
    expect(first.equals(second)).toBe(true);
    expect(second.length).toBe(body.contentLength);
    expect(part?.fileName).toBe('items €.csv');
    expect(part?.bytes.toString()).toBe('primaryKey__;name\n1;a\n');
  });

  it('fails when the file changed size after it was measured', async () => {
    // Prepare
    const path = join(dir, 'growing.csv');
    await writeFile(path, 'abc');
    const body = await createMultipartBody({ filePath: path });
    await writeFile(path, 'abcdef');

    // Act
    const error = await collect(body.open()).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsRequestBodyError);
  });
});
