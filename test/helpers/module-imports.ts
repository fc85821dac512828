/**
 * The imports of the repository's TypeScript files among themselves — relative ones, and those of a
 * workspace package by its name (`@pds-bridge/bridge/state`), resolved through the package's `exports` —
 * read with a regular expression (no parser needed: the formatter keeps every import on the
 * `from '…'` form). test/unit/module-graph.test.ts, test/unit/module-surfaces.test.ts and
 * test/unit/package-boundaries.test.ts check the layers, the public surfaces and the packages with them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** Every TypeScript file under `dir` (relative to the repository root), as paths relative to it. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.m?ts$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => path.join(dir, file));
}

/** Specifiers of a source text's imports and re-exports that name a file of this repository (relative, or a workspace package): type-only, side-effect and `import()` ones included. */
export function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?\sfrom\s+['"]((?:\.|@pds-bridge\/)[^'"]+)['"]|import\(\s*['"]((?:\.|@pds-bridge\/)[^'"]+)['"]\s*\)|(?:^|[\s;])import\s+['"]((?:\.|@pds-bridge\/)[^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1] ?? match[2] ?? match[3] ?? '');
  return specifiers;
}

/** The workspace packages: name → folder (relative to the root) and the `exports` of its package.json. */
export const workspacePackages: ReadonlyMap<string, { dir: string; exports: Record<string, string> }> =
  new Map(
    readdirSync(path.join(root, 'packages')).flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(path.join(root, 'packages', dir, 'package.json'), 'utf8')) as {
        name: string;
        exports?: Record<string, string | Record<string, string>>;
      };
      const exports = Object.fromEntries(
        Object.entries(manifest.exports ?? {}).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      );
      return [[manifest.name, { dir: path.join('packages', dir), exports }]];
    }),
  );

/** The TypeScript files of every workspace package's src/ (the consumer kit's built dist/ left out). */
export function packageSourceFiles(): string[] {
  return [...workspacePackages.values()].flatMap(({ dir }) => sourceFiles(path.join(dir, 'src')));
}

/** The file a workspace package's specifier names (`@pds-bridge/bridge/state/s3`), relative to the root. */
export function resolveWorkspaceSpecifier(specifier: string): string | undefined {
  const [scope, name, ...rest] = specifier.split('/');
  const entry = workspacePackages.get(`${scope}/${name}`);
  if (!entry) return undefined;
  const subpath = rest.length === 0 ? '.' : `./${rest.join('/')}`;
  const exact = entry.exports[subpath];
  if (exact) return path.join(entry.dir, exact);
  for (const [pattern, target] of Object.entries(entry.exports)) {
    if (!pattern.endsWith('*') || !subpath.startsWith(pattern.slice(0, -1))) continue;
    return path.join(entry.dir, target.replace('*', subpath.slice(pattern.length - 1)));
  }
  return undefined;
}

/** The files a repository file imports, as paths relative to the repository root. */
export function importedFiles(file: string): string[] {
  return importsOf(readFileSync(path.join(root, file), 'utf8')).map((specifier) =>
    specifier.startsWith('.')
      ? path.relative(root, path.resolve(root, path.dirname(file), specifier))
      : (resolveWorkspaceSpecifier(specifier) ?? specifier),
  );
}
