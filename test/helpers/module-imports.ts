/**
 * The relative imports of the repository's TypeScript files, read with a regular expression (no
 * parser needed: the formatter keeps every import on the `from '…'` form). test/unit/module-graph.test.ts
 * and test/unit/module-surfaces.test.ts check the layers and the public surfaces with them.
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

/** Relative specifiers of a source text's imports and re-exports: type-only, side-effect and `import()` ones included. */
export function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?\sfrom\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|[\s;])import\s+['"](\.[^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1] ?? match[2] ?? match[3] ?? '');
  return specifiers;
}

/** The files a repository file imports, as paths relative to the repository root. */
export function importedFiles(file: string): string[] {
  return importsOf(readFileSync(path.join(root, file), 'utf8')).map((specifier) =>
    path.relative(root, path.resolve(root, path.dirname(file), specifier)),
  );
}
