/**
 * How scripts/bundle-options.ts bundles a `package.json`: the fields the importing module reads by
 * name, or the whole file when it may use the object otherwise (nothing a module reads is lost).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvScannerModule } from '../../packages/bridge/src/ingest/content/csv-blocks.ts';
import { jsonScannerModule } from '../../packages/bridge/src/ingest/content/json-blocks.ts';
import { fieldsRead, nodeBundleOptions } from '../../scripts/bundle-options.ts';

describe('fieldsRead', () => {
  it.each([
    [
      'an ES module reading one field',
      "import p from './package.json';\nexport const v = p.version;",
      ['version'],
    ],
    [
      'with an import attribute and optional chaining',
      "import p from './package.json' with { type: 'json' };\nconst a = p?.name;\nconst b = p.version;",
      ['name', 'version'],
    ],
    [
      'a CommonJS statement after a default value',
      "var info = {};\ntry {\n  info = require('./package.json');\n} catch {}\nexports.v = info.version;",
      ['version'],
    ],
  ])('%s: the fields read', (_case, source, fields) => {
    // act
    const read = fieldsRead(source, './package.json');

    // assess
    expect(read).toEqual(fields);
  });

  it.each([
    ['exported whole', "import p from './package.json';\nexport default p;"],
    ['passed on', "import p from './package.json';\nconsole.log(p);"],
    ['destructured', "import p from './package.json';\nconst { version } = p;"],
    ['indexed', "import p from './package.json';\nconst v = p['version'];"],
    ['named in a comment', "// p is the manifest\nimport p from './package.json';\nconst v = p.version;"],
    [
      'bound twice',
      "import p from './package.json';\nimport q from './package.json';\nconst v = p.version + q.name;",
    ],
    ['assigned on in a chain', "a = b = require('./package.json');\nconst v = b.version;"],
    ['a namespace import', "import * as p from './package.json';\nconst v = p.version;"],
    ['not imported', 'const v = 1;'],
  ])('%s: undefined, so the file is kept whole', (_case, source) => {
    // act
    const read = fieldsRead(source, './package.json');

    // assess
    expect(read).toBeUndefined();
  });
});

describe('a bundle of a module that imports a package.json', () => {
  let dir: string;
  const manifest = {
    name: 'example',
    version: '1.2.3',
    description: 'a description no bundle needs',
    exports: { '.': './index.js' },
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bundle-options-'));
    await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function bundled(source: string): Promise<{ code: string; value: unknown }> {
    const entry = path.join(dir, `entry-${Math.random().toString(36).slice(2)}.ts`);
    await writeFile(entry, source);
    const outfile = `${entry}.mjs`;
    await build({ ...nodeBundleOptions(entry, outfile), sourcemap: false, logLevel: 'silent' });
    const { value } = (await import(outfile)) as { value: unknown };
    return { code: await readFile(outfile, 'utf8'), value };
  }

  it('carries only the fields the module reads', async () => {
    // act
    const { code, value } = await bundled(
      "import info from './package.json' with { type: 'json' };\nexport const value = info.name + '/' + info.version;",
    );

    // assess
    expect(value).toBe('example/1.2.3');
    expect(code).not.toContain(manifest.description);
  });

  it('carries the whole file when the module hands the object on', async () => {
    // act
    const { code, value } = await bundled(
      "import info from './package.json' with { type: 'json' };\nexport const value = info;",
    );

    // assess
    expect(value).toEqual(manifest);
    expect(code).toContain(manifest.description);
  });
});

describe('a bundle of the content check', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bundle-options-scanners-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('carries the scanners assembled, and checks with them as the source does', async () => {
    // arrange
    const check = path.resolve('packages/bridge/src/ingest/content/check.ts');
    const files: Array<[string, string]> = [
      ['items.json', '[{"primaryKey__":"1","name":"Water"},\n{"primaryKey__":"2","name":"Juice"}]'],
      [
        'items.json',
        `[{"primaryKey__":"1","name":"${'x'.repeat(100)}"},\n{"primaryKey__":"2","name":Juice}]`,
      ],
      ['items.csv', `primaryKey__,name\n1,"Water"\n2,"${'x'.repeat(100)}"\n`],
      ['items.csv', `primaryKey__,name\n1,"Water"\n2,"${'x'.repeat(100)}\n`],
    ];
    const entry = path.join(dir, 'entry.ts');
    await writeFile(
      entry,
      `import { byteCheckFor } from ${JSON.stringify(check)};\n` +
        'export const value = (name: string, text: string) => { const c = byteCheckFor(name); c?.push(Buffer.from(text)); return c?.finish(); };\n',
    );
    const outfile = `${entry}.mjs`;
    const { byteCheckFor } = await import(check);

    // act
    await build({ ...nodeBundleOptions(entry, outfile), sourcemap: false, logLevel: 'silent' });
    const { value } = (await import(outfile)) as { value: (name: string, text: string) => unknown };
    const code = await readFile(outfile, 'utf8');

    // assess
    expect(code).toContain(Buffer.from(jsonScannerModule()).toString('base64'));
    expect(code).toContain(Buffer.from(csvScannerModule()).toString('base64'));
    for (const [name, text] of files) {
      const source = byteCheckFor(name);
      source?.push(Buffer.from(text));
      expect(value(name, text)).toEqual(source?.finish());
    }
    expect(files.map(([name, text]) => value(name, text) === undefined)).toEqual([true, false, true, false]);
  });
});
