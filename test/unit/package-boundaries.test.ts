/**
 * The workspace's packages and the rules between them (docs/architecture.md, "Packages"): the bridge
 * that ships to Lambda imports nothing of its workshop (the simulator, the command line, the local
 * stack), each package imports only the packages its package.json declares, in one order and without a
 * cycle, no relative import leaves its package (the consumer kit, built from the bridge's sources by
 * scripts/build-consumer.ts, is the one exception), and every index names what it exports.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles, workspacePackages } from '../helpers/module-imports.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The bridge's package: what ships to Lambda. */
const BRIDGE = '@pds-bridge/bridge';

/** The packages the bridge must never import: its workshop. */
const WORKSHOP = ['@pds-bridge/simulator', '@pds-bridge/cli', '@pds-bridge/local-stack'];

/** The packages' order: each may import those before it, never one after it. */
const ORDER = [BRIDGE, '@pds-bridge/cli', '@pds-bridge/simulator', '@pds-bridge/local-stack'];

/** Relative imports that leave their package on purpose: the kit is bundled from the bridge's sources. */
const BUNDLED_FROM_SOURCES: Readonly<Record<string, string>> = { 'packages/consumer': 'packages/bridge/src' };

interface PackageFile {
  /** The package's name. */
  name: string;
  /** Its folder, relative to the root. */
  dir: string;
  /** The file, relative to the root. */
  file: string;
  /** Its source text. */
  source: string;
}

/** A source without its comment lines: an example in a comment imports nothing. */
const codeOf = (source: string) =>
  source
    .split('\n')
    .filter((line) => !/^\s*(?:\/\/|\/?\*)/.test(line))
    .join('\n');

/** Every TypeScript file of every package (its built dist/ and node_modules left out). */
function packageFiles(): PackageFile[] {
  return [...workspacePackages].flatMap(([name, { dir }]) =>
    sourceFiles(dir)
      .filter((file) => !file.split(path.sep).some((part) => part === 'dist' || part === 'node_modules'))
      .map((file) => ({ name, dir, file, source: codeOf(readFileSync(path.join(root, file), 'utf8')) })),
  );
}

/** The workspace package a specifier names (`@pds-bridge/cli/command-line.ts` → `@pds-bridge/cli`). */
const packageNamed = (specifier: string) => specifier.split('/').slice(0, 2).join('/');

/** `file → specifier` for each import of `files` that breaks a rule, with the rule it breaks. */
function boundaryViolations(files: readonly PackageFile[]): string[] {
  const found: string[] = [];
  // Each package's manifest read once, not once per import.
  const manifests = new Map<string, Set<string>>();
  const declared = (name: string): Set<string> => {
    const known = manifests.get(name);
    if (known) return known;
    const dir = workspacePackages.get(name)?.dir ?? '';
    const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const names = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
    ]);
    manifests.set(name, names);
    return names;
  };
  for (const { name, dir, file, source } of files) {
    for (const specifier of importsOf(source)) {
      if (specifier.startsWith('.')) {
        const target = path.relative(root, path.resolve(root, path.dirname(file), specifier));
        const allowed = BUNDLED_FROM_SOURCES[dir];
        if (!target.startsWith(dir + path.sep) && !(allowed && target.startsWith(allowed + path.sep))) {
          found.push(
            `${file} → ${specifier}: a relative import leaves ${dir}; import the package by its name`,
          );
        }
        continue;
      }
      const imported = packageNamed(specifier);
      if (imported === name) {
        found.push(`${file} → ${specifier}: a package imports itself by name; use a relative import`);
      } else if (name === BRIDGE && WORKSHOP.includes(imported)) {
        found.push(`${file} → ${specifier}: the bridge imports its workshop`);
      } else if (!declared(name).has(imported)) {
        found.push(`${file} → ${specifier}: ${imported} is not a dependency in ${dir}/package.json`);
      } else if (ORDER.includes(name) && ORDER.indexOf(imported) > ORDER.indexOf(name)) {
        found.push(`${file} → ${specifier}: ${name} comes before ${imported} in the packages' order`);
      }
    }
  }
  return found;
}

/** The index files that re-export everything of a module (`export * from`), which hides what they export. */
function wildcardExports(files: readonly PackageFile[]): string[] {
  return files
    .filter(
      ({ file }) =>
        path.basename(file) === 'index.ts' &&
        /^export \*/m.test(files.find((f) => f.file === file)?.source ?? ''),
    )
    .map(({ file }) => file);
}

describe('package boundaries', () => {
  it('finds each kind of broken rule in a package that breaks them', () => {
    // arrange: sources written as the rules forbid
    const bridge = workspacePackages.get(BRIDGE)?.dir ?? '';
    const cli = workspacePackages.get('@pds-bridge/cli')?.dir ?? '';
    const files: PackageFile[] = [
      {
        name: BRIDGE,
        dir: bridge,
        file: path.join(bridge, 'src', 'ingest', 'x.ts'),
        source: [
          "import { runCli } from '@pds-bridge/cli';",
          "import { startSimulator } from '@pds-bridge/simulator/index.ts';",
          "import { helper } from '../../../cli/src/main.ts';",
          "import { store } from '@pds-bridge/bridge/state';",
        ].join('\n'),
      },
      {
        name: '@pds-bridge/cli',
        dir: cli,
        file: path.join(cli, 'src', 'y.ts'),
        source: "import { startLocalStack } from '@pds-bridge/local-stack';\n",
      },
      {
        name: BRIDGE,
        dir: bridge,
        file: path.join(bridge, 'src', 'z', 'index.ts'),
        source: "export * from './a.ts';\n",
      },
    ];

    // act
    const violations = boundaryViolations(files);
    const wildcards = wildcardExports(files);

    // assess
    expect(violations).toEqual([
      expect.stringContaining('the bridge imports its workshop'),
      expect.stringContaining('the bridge imports its workshop'),
      expect.stringContaining('a relative import leaves packages/bridge'),
      expect.stringContaining('a package imports itself by name'),
      expect.stringContaining('@pds-bridge/local-stack is not a dependency in packages/cli/package.json'),
    ]);
    expect(wildcards).toEqual([path.join(bridge, 'src', 'z', 'index.ts')]);
  });

  it('keeps the bridge apart from its workshop, each package to its declared dependencies and order', () => {
    // act
    const violations = boundaryViolations(packageFiles());

    // assess
    expect(violations).toEqual([]);
  });

  it('names every export of every index: no index exports with `export *`', () => {
    // act
    const wildcards = wildcardExports(packageFiles());

    // assess
    expect(wildcards).toEqual([]);
  });

  it('gives every package an entry of named exports and a subpath for each room with an index', () => {
    for (const [name, { dir, exports }] of workspacePackages) {
      if (name === 'pds-bridge') continue; // the consumer kit exports its built files (packages/consumer)
      const rooms = sourceFiles(path.join(dir, 'src'))
        .filter((file) => path.basename(file) === 'index.ts' && path.dirname(file) !== path.join(dir, 'src'))
        .map((file) => `./${path.relative(path.join(dir, 'src'), path.dirname(file))}`);
      expect(exports['.'], name).toBe('./src/index.ts');
      expect(Object.keys(exports), name).toEqual(expect.arrayContaining(rooms));
    }
  });
});
