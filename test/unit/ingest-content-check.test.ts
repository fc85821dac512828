/**
 * The content check of dropped files (packages/bridge/src/ingest/content): what the PDS cannot import
 * is named with its place and fix, what it can import passes, and the verdict does not depend on how
 * the bytes were cut into chunks.
 */
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { setImmediate } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ZipFile } from 'yazl';
import {
  byteCheckFor,
  checkWhileStreaming,
  contentCheckFor,
} from '../../packages/bridge/src/ingest/content/check.ts';
import { CsvBlocks } from '../../packages/bridge/src/ingest/content/csv-blocks.ts';
import { CsvCheck } from '../../packages/bridge/src/ingest/content/csv-check.ts';
import { JsonBlocks, MAX_BLOCK_DEPTH } from '../../packages/bridge/src/ingest/content/json-blocks.ts';
import { JsonCheck } from '../../packages/bridge/src/ingest/content/json-check.ts';
import {
  assemble,
  BLOCK_BYTES,
  type FunctionSpec,
  I32,
  instantiate,
  op,
} from '../../packages/bridge/src/ingest/content/wasm-module.ts';
import { holds } from '../helpers/property.ts';

function verdictOf(name: string, content: string | Uint8Array, chunk = 7) {
  const check = byteCheckFor(name);
  if (!check) throw new Error(`no check for ${name}`);
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  for (let at = 0; at < bytes.length; at += chunk) check.push(bytes.subarray(at, at + chunk));
  return check.finish();
}

/** A ZIP as yazl writes it: from buffers with the sizes in each header, from streams with the sizes after the data. */
async function zipOf(
  members: Record<string, string>,
  options: { compress: boolean; sizesAfterData: boolean } = { compress: true, sizesAfterData: false },
): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(members)) {
    if (options.sizesAfterData) zip.addReadStream(Readable.from([Buffer.from(content)]), name, options);
    else zip.addBuffer(Buffer.from(content), name, options);
  }
  zip.end();
  return Buffer.from(
    await new Response(Readable.toWeb(zip.outputStream as Readable) as ReadableStream).arrayBuffer(),
  );
}

async function zipVerdict(zip: Buffer, chunk = 1000) {
  const check = contentCheckFor('drop/batch.zip');
  for (let at = 0; at < zip.length; at += chunk) await check?.push(zip.subarray(at, at + chunk));
  return check?.finish();
}

describe('CSV', () => {
  it.each([
    [
      'quoted separators, doubled quotes and a value spanning lines',
      'primaryKey__,name\n1,"a, ""b"""\n2,"two\nlines"\n',
    ],
    [
      'semicolons, CRLF, a byte-order mark and blank lines',
      '\ufeffprimaryKey__;name;note\r\n1;a;b\r\n\r\n2;"x;y";\r\n',
    ],
    ['a last row without a line end', 'primaryKey__,name\n1,a'],
    ['a header alone', 'primaryKey__,name\n'],
  ])('passes %s', (_what, csv) => {
    expect(verdictOf('items.csv', csv)).toBeUndefined();
  });

  it('names the line of a quote that is never closed', () => {
    const csv = 'primaryKey__,name\n1,Water\n2,"Juice, 1 l\n3,Milk\n';

    expect(verdictOf('items.csv', csv)).toEqual({
      problem: 'the quoted field opened on line 3 is never closed: the file ends inside it',
      fix: expect.stringContaining('close the quote'),
    });
  });

  it('names the row whose field count differs from the header', () => {
    const csv = 'primaryKey__;name;price\n1;Water;1\n2;Juice\n';

    expect(verdictOf('items.csv', csv)?.problem).toBe(
      'line 3 has 2 fields, the header has 3 (separator ";")',
    );
  });

  it('refuses a file with no header row', () => {
    expect(verdictOf('items.csv', '\n\n')?.problem).toBe('the file has no header row (it is empty or blank)');
  });

  it('refuses text that is not UTF-8, naming the offset', () => {
    const latin1 = Buffer.from('primaryKey__,name\n1,Müsli\n', 'latin1');

    expect(verdictOf('items.csv', latin1)).toEqual({
      problem: 'the file is not UTF-8 text: the bytes at offset 21 are no UTF-8 character',
      fix: expect.stringContaining('save the file as UTF-8'),
    });
  });

  it('passes multi-byte characters cut by a chunk boundary, and refuses UTF-16', () => {
    expect(verdictOf('items.csv', 'primaryKey__,name\n1,品目 ✓ Müsli\n', 1)).toBeUndefined();
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('primaryKey__\n1\n', 'utf16le')]);
    expect(verdictOf('items.csv', utf16)?.problem).toMatch(/UTF-16 text/);
  });

  it('gives the same verdict however the bytes are cut', async () => {
    const csv = fc
      .array(fc.constantFrom('a', ',', ';', '"', '\n', '\r\n', 'ü', ' '), { maxLength: 40 })
      .map((parts) => `primaryKey__,name\n${parts.join('')}`);
    await holds(
      fc.property(csv, fc.integer({ min: 1, max: 9 }), (text, chunk) => {
        expect(verdictOf('items.csv', text, chunk)).toEqual(verdictOf('items.csv', text, text.length + 1));
      }),
      { runs: 300 },
    );
  });
});

/** The CSV check's verdict on `bytes` cut into the given chunk sizes (cycled), by the SIMD path or byte by byte. */
function csvVerdict(bytes: Uint8Array, chunks: number[], simd: boolean) {
  const check = new CsvCheck({ simd });
  for (let at = 0, k = 0; at < bytes.length; k += 1) {
    const size = chunks[k % chunks.length] as number;
    check.push(bytes.subarray(at, at + size));
    at += size;
  }
  return check.finish();
}

describe('CSV read 64 bytes at a time (WebAssembly SIMD) against byte by byte', () => {
  // Pieces long enough that rows cross 64-byte blocks, with every byte the reading turns on: quotes
  // at and inside fields, both separators, CRLF, lone CR, blank lines, multi-byte characters.
  const piece = fc.constantFrom(
    'a',
    'Still water',
    'x'.repeat(70),
    ',',
    ';',
    '"',
    '""',
    '"q, "" \n"',
    '5" x',
    '\n',
    '\r\n',
    '\r',
    '\n\n',
    'ü',
    '品目',
    ' ',
  );
  const header = fc.constantFrom(
    'primaryKey__,name,note\n',
    'primaryKey__;name\r\n',
    '"primaryKey__","a, b"\n',
  );
  const chunks = fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 5 });

  it('gives the same verdict, word for word, on any text cut anywhere', async () => {
    const csv = fc
      .tuple(header, fc.array(piece, { maxLength: 120 }))
      .map(([head, parts]) => Buffer.from(head + parts.join('')));
    await holds(
      fc.property(csv, chunks, (bytes, cuts) => {
        expect(csvVerdict(bytes, cuts, true)).toEqual(csvVerdict(bytes, [bytes.length + 1], false));
      }),
      { runs: 400 },
    );
  });

  /** A field as a writer that quotes correctly writes it, some after a stray carriage return. */
  const field = fc
    .tuple(
      fc.constantFrom('', '', '', '\r'),
      fc.oneof(
        fc.stringMatching(/^[a-z0-9 .ü]{0,30}$/),
        fc
          .array(fc.constantFrom('a', ',', ';', '"', '\n', '\r\n', 'ü', 'long text '.repeat(4)), {
            maxLength: 12,
          })
          .map((parts) => `"${parts.join('').replaceAll('"', '""')}"`),
      ),
    )
    .map(([before, value]) => before + value);
  /** Rows of one width, some followed by blank lines (empty, or a lone carriage return). */
  const table = fc
    .integer({ min: 1, max: 6 })
    .chain((columns) =>
      fc.array(
        fc.tuple(
          fc.array(field, { minLength: columns, maxLength: columns }),
          fc.constantFrom('', '', '', '\n', '\r\n', '\r\r\n'),
        ),
        { minLength: 1, maxLength: 40 },
      ),
    );

  it('passes every well-quoted table; cut short or with a byte missing, it names the same place', async () => {
    await holds(
      fc.property(table, fc.constantFrom('\n', '\r\n'), chunks, fc.nat(), (rows, eol, cuts, at) => {
        const columns = rows[0]?.[0].length ?? 1;
        const header = ['primaryKey__', ...Array.from({ length: columns - 1 }, (_, k) => `c${k}`)].join(',');
        const text = header + eol + rows.map(([row, blank]) => `${row.join(',')}${eol}${blank}`).join('');
        const bytes = Buffer.from(text);
        const cut = at % bytes.length;
        const damaged = [
          bytes.subarray(0, cut),
          Buffer.concat([bytes.subarray(0, cut), bytes.subarray(cut + 1)]),
        ];

        expect(csvVerdict(bytes, cuts, true)).toBeUndefined();
        for (const file of damaged) {
          expect(csvVerdict(file, cuts, true)).toEqual(csvVerdict(file, [file.length + 1], false));
        }
      }),
      { runs: 400 },
    );
  });

  it('names a short row and an unclosed quote deep in a large file as byte by byte does', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `${i},"Water ${i}, still ""${i % 7}""",0.5 l\n`);
    const shortRow = Buffer.from(`primaryKey__,name,size\n${rows.join('')}2000,"no size"\n${rows.join('')}`);
    const unclosed = Buffer.from(
      `primaryKey__,name,size\n${rows.join('')}2000,"open, 1 l\n${rows.slice(0, 3).join('')}`,
    );

    // In a socket's chunks, in one chunk larger than the scanner's window, and in odd pieces.
    for (const chunks of [[65536], [shortRow.length], [65529], [100, 7]]) {
      expect(csvVerdict(shortRow, chunks, true)?.problem).toBe(
        'line 2002 has 2 fields, the header has 3 (separator ",")',
      );
      expect(csvVerdict(unclosed, chunks, true)).toEqual(csvVerdict(unclosed, [unclosed.length], false));
    }
  });

  it('takes every block of a well-quoted product file itself, and hands back only a block with a quote inside a value', () => {
    const rows = Array.from(
      { length: 1000 },
      (_, i) =>
        `${4006381333931 + i},"Still water ${i}","Natural, still; at source ""Quelle ${i % 97}""",0.5 l\n`,
    ).join('');
    const scan = CsvBlocks.prototype.scan;
    const handedBack: number[] = [];
    let inBlocks = 0;
    const spy = vi.spyOn(CsvBlocks.prototype, 'scan').mockImplementation(function (this: CsvBlocks, ...args) {
      const [length, at, separator, headerFields, byBytes] = args;
      const end = scan.call(this, length, at, separator, headerFields, (start) => {
        handedBack.push(start);
        return byBytes(start);
      });
      inBlocks += end;
      return end;
    });
    const header = 'primaryKey__,name,description,size\n';
    const blocksHandedBack = (csv: string, chunk = 65536) => {
      handedBack.length = 0;
      inBlocks = 0;
      expect(csvVerdict(Buffer.from(`${header}${csv}`), [chunk], true)).toBeUndefined();
      return handedBack.length;
    };

    try {
      // In chunks of a socket's usual sizes too: each chunk's last bytes are read with the next
      // chunk's first ones, so only the file's last bytes, fewer than a block, are read byte by byte.
      for (const chunk of [65536, 65529, 1000]) {
        expect(blocksHandedBack(rows, chunk)).toBe(0);
        expect(inBlocks).toBeGreaterThan(rows.length - BLOCK_BYTES);
      }
      // A quote inside an unquoted value (5" tv) is a literal quote to the PDS: that block is read byte by byte.
      expect(blocksHandedBack(rows.replace('0.5 l\n', '5" tv\n'))).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('names the line an unclosed field opened on, not a later line with "" inside it', () => {
    const csv = `primaryKey__,name\n${'x'.repeat(40)},"open\nsays ""hi""\n${'y'.repeat(100)}`;

    expect(csvVerdict(Buffer.from(csv), [csv.length], true)?.problem).toBe(
      'the quoted field opened on line 2 is never closed: the file ends inside it',
    );
  });
});

describe('JSON', () => {
  it('passes an array of item objects with every kind of value', () => {
    const json = `\ufeff[ {"primaryKey__":"1","n":-0.5e+3,"ok":true,"no":null,"esc":"a\\"\\u00fc\\n","list":[1,[],{}]},\n {} ]`;

    expect(verdictOf('items.json', json)).toBeUndefined();
  });

  it.each([
    [
      'a truncated file',
      '[{"primaryKey__":"1"',
      /the JSON text ends early, on line 1 \(an unclosed object\)/,
    ],
    ['a trailing comma', '[{"primaryKey__":"1"},]', /line 1 \(offset 22\): "\]" where a value should be/],
    ['single quotes', "[{'primaryKey__':'1'}]", /where a quoted key should be/],
    ['a top-level object', '{"items":[]}', /the top level is an object, not an array of items/],
    [
      'an item that is not an object',
      '[{"primaryKey__":"1"},\n"2"]',
      /line 2 \(offset 23\): item 2 of the top-level array is a string/,
    ],
    ['text after the array', '[]\n[]', /after the end of the JSON text/],
    ['a leading zero', '[{"n":01}]', /leading zero/],
    ['a raw line break in a string', '[{"n":"a\nb"}]', /control character/],
    ['an empty file', '', /the file is empty/],
  ])('refuses %s, naming where', (_what, json, problem) => {
    expect(verdictOf('items.json', json)?.problem).toMatch(problem);
  });

  it('agrees with JSON.parse on what is well-formed, however the bytes are cut', async () => {
    const document = fc.oneof(
      fc.json(),
      fc.array(fc.object(), { maxLength: 3 }).map((items) => JSON.stringify(items)),
      fc
        .array(fc.object(), { maxLength: 3 })
        .chain((items) => fc.nat({ max: 40 }).map((cut) => JSON.stringify(items).slice(0, cut))),
    );
    await holds(
      fc.property(document, fc.integer({ min: 1, max: 9 }), (json, chunk) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          parsed = undefined;
        }
        const items =
          Array.isArray(parsed) &&
          parsed.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item));
        expect(verdictOf('items.json', json, chunk) === undefined).toBe(items);
      }),
      { runs: 300 },
    );
  });
});

/** The JSON check's verdict on `bytes` pushed in chunks of the sizes in `cuts` (in turn). */
function jsonVerdict(bytes: Uint8Array, cuts: number[], simd: boolean) {
  const check = new JsonCheck({ simd });
  for (let at = 0, k = 0; at < bytes.length; k += 1) {
    const size = cuts[k % cuts.length] as number;
    check.push(bytes.subarray(at, at + size));
    at += size;
  }
  return check.finish();
}

describe('JSON read 64 bytes at a time (WebAssembly SIMD) against byte by byte', () => {
  // Strings with every escape (\\ and \u too), multi-byte characters and long runs; numbers of
  // every shape; words; nested containers: values that cross 64-byte windows anywhere.
  const text = fc
    .array(
      fc.constantFrom(
        'a',
        'Still water',
        'x'.repeat(70),
        '"',
        '\\',
        '/',
        '\n',
        '\t',
        'ü',
        '品目',
        '\u0001',
        ' ',
      ),
      { maxLength: 8 },
    )
    .map((parts) => parts.join(''));
  const number = fc.oneof(
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, -0.5, 1e21, 1.5e-7),
  );
  const value = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      number,
      fc.constantFrom(true, false, null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  const items = fc.array(fc.dictionary(text, value, { maxKeys: 6 }), { maxLength: 8 });
  const indent = fc.constantFrom(undefined, 1, 2, '\t');
  const chunks = fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 5 });
  /** Bytes a damaged file may have where another was: the ones the reading turns on, and others. */
  const stray = fc.constantFrom(
    ...[...'"\\{}[],:0-.eE+ tfn\n\r\t'].map((c) => c.charCodeAt(0)),
    0x01,
    0x7f,
    0xc3,
    0xff,
  );
  const damage = fc.record({
    kind: fc.constantFrom('none', 'remove', 'change', 'truncate', 'control in a string', 'insert'),
    at: fc.nat(),
    byte: stray,
  });

  function damaged(bytes: Buffer, { kind, at, byte }: { kind: string; at: number; byte: number }): Buffer {
    const k = at % (bytes.length + 1);
    if (kind === 'remove') return Buffer.concat([bytes.subarray(0, k), bytes.subarray(k + 1)]);
    if (kind === 'truncate') return bytes.subarray(0, k);
    if (kind === 'change' && k < bytes.length)
      return Buffer.concat([bytes.subarray(0, k), Buffer.of(byte), bytes.subarray(k + 1)]);
    if (kind === 'insert') return Buffer.concat([bytes.subarray(0, k), Buffer.of(byte), bytes.subarray(k)]);
    if (kind === 'control in a string') {
      const quote = bytes.indexOf(0x22, k);
      if (quote >= 0)
        return Buffer.concat([bytes.subarray(0, quote + 1), Buffer.of(at % 0x20), bytes.subarray(quote + 1)]);
    }
    return bytes;
  }

  it('gives the same verdict, word for word, on any document, damaged or not, cut anywhere', async () => {
    await holds(
      fc.property(items, indent, damage, chunks, (list, space, harm, cuts) => {
        const bytes = damaged(Buffer.from(JSON.stringify(list, null, space)), harm);

        expect(jsonVerdict(bytes, cuts, true)).toEqual(jsonVerdict(bytes, [bytes.length + 1], false));
      }),
      { runs: 400 },
    );
  });

  it('agrees with JSON.parse on what is well-formed for whole documents of any top level', async () => {
    const topLevel = fc.oneof(items, value, fc.array(value, { maxLength: 6 }));
    await holds(
      fc.property(topLevel, indent, damage, (document, space, harm) => {
        const bytes = damaged(Buffer.from(JSON.stringify(document, null, space) ?? ''), harm);
        let parsed: unknown;
        try {
          parsed = JSON.parse(bytes.toString());
        } catch {
          parsed = undefined;
        }
        const wellFormedItems =
          Array.isArray(parsed) &&
          parsed.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item));
        // JSON.parse reads text: bytes that are not UTF-8 are the UTF-8 check's to refuse.
        fc.pre(bytes.toString() === new TextDecoder().decode(bytes) || !wellFormedItems);
        expect(jsonVerdict(bytes, [bytes.length + 1], true) === undefined).toBe(wellFormedItems);
      }),
      { runs: 400 },
    );
  });

  it('names the same place with an escape or a multi-byte character cut at every byte', () => {
    const item = `{"primaryKey__":"1","name":"a \\"b\\" \\\\ \\u00fc ü 品目 \\/","n":-12.5e3,"t":[true,false,null]}`;
    const bytes = Buffer.from(`[${`${item},`.repeat(6)}${item}]`);
    const broken = Buffer.from(bytes.toString().replace('\\u00fc', '\\u00g'));

    for (let cut = 1; cut < bytes.length; cut += 1) {
      expect(jsonVerdict(bytes, [cut, bytes.length], true)).toBeUndefined();
      expect(jsonVerdict(broken, [cut, bytes.length], true)).toEqual(
        jsonVerdict(broken, [broken.length], false),
      );
    }
  });

  it('counts the lines of a chunk made only of line breaks, and of a file with more lines than a chunk has bytes', () => {
    // 65,536 line feeds in one 64 KiB chunk: the scanner counts each window's line feeds in vector
    // lanes, which must hold a whole chunk of them.
    const blankLines = Buffer.from(
      `[{"a":"b"},${'\n'.repeat(65_536)}{"a":"b"},${'\r\n'.repeat(40_000)}{"a":b}]`,
    );
    const expected = { problem: expect.stringMatching(/^line 105537 \(offset /), fix: expect.any(String) };

    expect(jsonVerdict(blankLines, [65_536], true)).toEqual(expected);
    expect(jsonVerdict(blankLines, [65_536], true)).toEqual(
      jsonVerdict(blankLines, [blankLines.length], false),
    );
  });

  it('follows nesting past what the scanner holds, and names a string item or a top-level object as byte by byte does', () => {
    const deep = (levels: number) =>
      Buffer.from(
        `[{"a":${'['.repeat(levels)}${'"x", '.repeat(20)}1${']'.repeat(levels)}}, ${'{"b":"y"},'.repeat(10)}{}]`,
      );
    const cases = [
      deep(MAX_BLOCK_DEPTH - 3),
      deep(MAX_BLOCK_DEPTH + 5),
      deep(MAX_BLOCK_DEPTH + 5).subarray(0, -1),
      Buffer.from(`[${'{"a":"b"}, '.repeat(10)}"item"]`),
      Buffer.from(`${' '.repeat(70)}{"items":[]}`),
    ];

    expect(jsonVerdict(cases[0] as Buffer, [64], true)).toBeUndefined();
    expect(jsonVerdict(cases[1] as Buffer, [64], true)).toBeUndefined();
    for (const bytes of cases) {
      for (const cut of [1, 64, 100, bytes.length]) {
        expect(jsonVerdict(bytes, [cut], true)).toEqual(jsonVerdict(bytes, [bytes.length], false));
      }
    }
    expect(jsonVerdict(cases[3] as Buffer, [200], true)?.problem).toBe(
      'line 1 (offset 111): item 11 of the top-level array is a string, not an object',
    );
  });

  it('names a problem deep in a large file as byte by byte does, in chunks of any size', () => {
    const items = Array.from(
      { length: 3000 },
      (_, i) => `{"primaryKey__":"${i}","name":"Water ${i}","n":${i}}`,
    );
    const broken = [
      // A missing comma, a bad escape and a control byte, each past several windows.
      Buffer.from(`[\n${items.join(',\n')}\n{"primaryKey__":"x"}]`),
      Buffer.from(`[\n${items.join(',\n')},\n{"name":"bad \\x escape"}]`),
      Buffer.from(`[\n${items.join(',\n')},\n{"name":"tab\there"}]`),
    ];
    for (const bytes of broken) {
      const byBytes = jsonVerdict(bytes, [bytes.length], false);
      expect(byBytes?.problem).toMatch(/^line 300[12] \(offset \d+\)/);
      for (const chunks of [[65536], [bytes.length], [65529], [100, 7]]) {
        expect(jsonVerdict(bytes, chunks, true)).toEqual(byBytes);
      }
    }
  });

  it('reads a product file itself, escapes, numbers and words included, and hands back only what it cannot vouch for', () => {
    const items = Array.from(
      { length: 1000 },
      (_, i) =>
        `{"primaryKey__":"${4006381333931 + i}","name":"Still water ${i}","description":"Natural mineral water, still; \\"Quelle ${i % 97}\\"","netContent":"0.5 l","price":${(i % 300) / 100},"organic":${i % 2 === 0}}`,
    );
    const scan = JsonBlocks.prototype.scan;
    const handedBack: string[] = [];
    let scanned = 0;
    const spy = vi.spyOn(JsonBlocks.prototype, 'scan').mockImplementation(function (
      this: JsonBlocks,
      from,
      end,
      at,
    ) {
      const stop = scan.call(this, from, end, at);
      scanned += stop - from;
      // Stopped before a byte rather than for want of a whole block.
      if (end - stop >= BLOCK_BYTES) {
        handedBack.push(Buffer.from(this.input.bytes.subarray(stop, stop + 6)).toString());
      }
      return stop;
    });
    const handBacks = (json: string, chunk: number) => {
      handedBack.length = 0;
      scanned = 0;
      expect(jsonVerdict(Buffer.from(json), [chunk], true)).toBeUndefined();
      return [...handedBack];
    };

    try {
      const file = `[\n${items.join(',\n')}\n]\n`;
      // In chunks of a socket's usual sizes, each chunk's last bytes are read with the next chunk's
      // first ones: only the file's last bytes, fewer than a block, are left to the byte-by-byte
      // reading.
      for (const chunk of [65536, 65529, 1000]) {
        expect(handBacks(file, chunk)).toEqual([]);
        expect(scanned).toBeGreaterThan(file.length - BLOCK_BYTES);
      }
      // A \u escape and a number with an exponent are read byte by byte.
      expect(handBacks(`[{"name":"\\u00fc","n":1e3},${items.slice(0, 20).join(',')}]`, 65536)).toEqual([
        '\\u00fc',
        '1e3},{',
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("the scanners' module", () => {
  it('is left out, not thrown, where the runtime cannot compile it (a WebAssembly without SIMD)', () => {
    const one: FunctionSpec = { name: 'one', params: [], results: [I32], locals: [], body: [op.i32(1)] };
    expect((instantiate(assemble(one, 1)) as { one(): number }).one()).toBe(1);
    // An instruction this runtime has no opcode for, as SIMD is to a runtime without it.
    const unknown = assemble({ ...one, body: [[0xfd, 0xff, 0x7f]] }, 1);
    expect(instantiate(unknown)).toBeUndefined();
  });
});

describe('several files checked at once', () => {
  it("keeps each check's carried bytes its own while they share one scanner", () => {
    const items = Array.from({ length: 400 }, (_, i) => `{"primaryKey__":"${i}","name":"Water ${i}"}`);
    const rows = Array.from({ length: 400 }, (_, i) => `${i},"Water ${i}, still"\n`);
    const files = {
      json: [
        Buffer.from(`[${items.join(',')}]`),
        Buffer.from(`[${items.join(',')},{"primaryKey__":"x","name":tru}]`),
      ],
      csv: [
        Buffer.from(`primaryKey__,name\n${rows.join('')}`),
        Buffer.from(`primaryKey__,name\n${rows.join('')}401,"open\n`),
      ],
    };
    const alone = {
      json: files.json.map((file) => jsonVerdict(file, [97], true)),
      csv: files.csv.map((file) => csvVerdict(file, [97], true)),
    };
    expect(alone.json[0]).toBeUndefined();
    expect(alone.json[1]?.problem).toContain('an unknown word');
    expect(alone.csv[0]).toBeUndefined();
    expect(alone.csv[1]?.problem).toContain('never closed');

    // Pushed in turns, 97 bytes at a time: each chunk ends inside a block the next one completes.
    const checks = [...files.json.map(() => new JsonCheck()), ...files.csv.map(() => new CsvCheck())];
    const bytes = [...files.json, ...files.csv];
    for (let at = 0; bytes.some((file) => at < file.length); at += 97) {
      bytes.forEach((file, k) => {
        if (at < file.length) checks[k]?.push(file.subarray(at, at + 97));
      });
    }
    expect(checks.map((check) => check.finish())).toEqual([...alone.json, ...alone.csv]);
  });
});

describe('ZIP members', () => {
  it.each([
    ['deflated, sizes in the headers', { compress: true, sizesAfterData: false }],
    ['deflated, sizes after the data (as Java writes them)', { compress: true, sizesAfterData: true }],
    ['stored', { compress: false, sizesAfterData: false }],
  ])('names the broken member of an archive %s', async (_what, options) => {
    const zip = await zipOf(
      {
        'a.csv': 'primaryKey__,name\n1,A\n',
        'notes.txt': 'anything "goes',
        'sub/b.json': `[{"primaryKey__":"2"}, ${'{"x":"y"},'.repeat(5000)}`,
        'c.csv': 'primaryKey__,name\n3,"C\n',
      },
      options,
    );

    expect(await zipVerdict(zip)).toEqual({
      file: 'batch.zip:sub/b.json',
      problem: expect.stringMatching(/ends early/),
      fix: expect.any(String),
    });
  });

  it('passes an archive whose members are all readable, whatever the chunk size', async () => {
    const zip = await zipOf({
      'a.csv': 'primaryKey__,name\n1,A\n',
      'b.json': '[{"primaryKey__":"2"}]',
      'big.csv': `primaryKey__,n\n${'4006381333931,x\n'.repeat(20_000)}`,
    });

    for (const chunk of [1, 13, 4096, zip.length]) expect(await zipVerdict(zip, chunk)).toBeUndefined();
  });

  it('leaves the rest to the PDS from a stored member whose size follows its data (its end cannot be found)', async () => {
    const zip = await zipOf({ 'a.csv': 'primaryKey__\n"open\n' }, { compress: false, sizesAfterData: true });

    expect(await zipVerdict(zip)).toBeUndefined();
  });
});

describe('checkWhileStreaming', () => {
  it('passes the bytes through unchanged and gives the verdict after the end', async () => {
    const csv = 'primaryKey__,name\n1,"open\n';
    const checked = checkWhileStreaming(Readable.from([Buffer.from(csv)]), 'incoming/items.csv');

    expect(await text(checked.stream)).toBe(csv);
    expect(await checked.verdict()).toMatchObject({
      file: 'items.csv',
      problem: expect.stringMatching(/never closed/),
    });
  });

  it('leaves files of other kinds unchecked', async () => {
    const source = Readable.from([Buffer.from('%PDF')]);

    expect(checkWhileStreaming(source, 'sheet.pdf').stream).toBe(source);
  });

  it('hands each chunk on before checking it, and checks every chunk, in order, before the end', async () => {
    const chunks = ['[{"primaryKey__":"1"},', '{"primaryKey__":"2"},', '{"primaryKey__":"3"}]'];
    const pushed: string[] = [];
    const push = JsonCheck.prototype.push;
    const spy = vi.spyOn(JsonCheck.prototype, 'push').mockImplementation(function (this: JsonCheck, bytes) {
      pushed.push(Buffer.from(bytes).toString());
      push.call(this, bytes);
    });
    try {
      const checked = checkWhileStreaming(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), 'a.json');
      const reader = checked.stream[Symbol.asyncIterator]();

      expect(Buffer.from((await reader.next()).value).toString()).toBe(chunks[0]);
      // The first chunk is on its way and not yet checked: its check waits for the next turn.
      expect(pushed).toEqual([]);
      await reader.next();
      expect(pushed).toEqual([chunks[0]]);
      await reader.next();
      expect((await reader.next()).done).toBe(true);
      expect(pushed).toEqual(chunks);
      expect(await checked.verdict()).toBeUndefined();
    } finally {
      spy.mockRestore();
    }
  });

  it('fails the stream when a check throws, and leaves no stray failure when the source fails first', async () => {
    const spy = vi.spyOn(JsonCheck.prototype, 'push').mockImplementation(() => {
      throw new Error('the check broke');
    });
    const stray: unknown[] = [];
    const onStray = (reason: unknown) => stray.push(reason);
    process.on('unhandledRejection', onStray);
    try {
      const whole = Readable.from([Buffer.from('[{"a":'), Buffer.from('"b"}]')]);
      await expect(text(checkWhileStreaming(whole, 'a.json').stream)).rejects.toThrow('the check broke');

      // The source fails while the first chunk's check waits for its turn; that check then throws too.
      async function* failing() {
        yield Buffer.from('[{"a":');
        throw new Error('the source broke');
      }
      const checked = checkWhileStreaming(Readable.from(failing()), 'a.json');
      await expect(text(checked.stream)).rejects.toThrow('the source broke');
      await setImmediate();
      await setImmediate();
      expect(spy).toHaveBeenCalledTimes(2);
      expect(stray).toEqual([]);
    } finally {
      process.off('unhandledRejection', onStray);
      spy.mockRestore();
    }
  });
});
