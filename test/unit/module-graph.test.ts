/**
 * The import graph of the workspace packages read folder by folder: each folder of a package's src/
 * (packages/bridge/src/events, packages/cli/src/ops, …) and each file at its top
 * (packages/cli/src/main.ts) is one module, and so is each package's functions/ or bin/. Biome's
 * `noImportCycles` sees cycles between files only; two folders whose files import each other without a
 * file cycle slip past it, and that is an arrow running back up the layers of docs/architecture.md.
 * test/unit/package-boundaries.test.ts holds the packages themselves to their order.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importedFiles, importsOf, packageSourceFiles } from '../helpers/module-imports.ts';

/** The module of a package file: its first folder under src/ (`packages/bridge/src/events`) or the file itself. */
function moduleOf(file: string): string | undefined {
  const parts = file.split(path.sep);
  if (parts[0] !== 'packages' || parts[2] !== 'src') return undefined;
  return parts.length > 4 ? parts.slice(0, 4).join('/') : file;
}

/** Module → the modules its files import (itself left out). */
function moduleGraph(files: readonly string[] = packageSourceFiles()): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const from = moduleOf(file);
    if (!from) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of importedFiles(file)) {
      const to = moduleOf(target);
      if (to && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The cycles of a graph: its strongly connected components of two or more nodes (Tarjan's algorithm). */
function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

/** The imports inside a cycle, `from → to`, so a failure names the files to change. */
function arrowsWithin(cycle: readonly string[]): string[] {
  const members = new Set(cycle);
  const arrows: string[] = [];
  for (const file of packageSourceFiles()) {
    const from = moduleOf(file);
    if (!from || !members.has(from)) continue;
    for (const target of importedFiles(file)) {
      const to = moduleOf(target);
      if (to && to !== from && members.has(to)) arrows.push(`${file} → ${target}`);
    }
  }
  return arrows;
}

describe('module graph of the packages', () => {
  it('finds a cycle between two folders that no file cycle shows', () => {
    // arrange: a → b by one file, b → a by another; no file imports itself back
    const graph = new Map([
      ['lib/a', new Set(['lib/b'])],
      ['lib/b', new Set(['lib/a', 'lib/c'])],
      ['lib/c', new Set<string>()],
    ]);

    // act
    const cycles = cyclesOf(graph);

    // assess
    expect(cycles).toEqual([['lib/a', 'lib/b']]);
  });

  it('reads imports, re-exports, type-only, side-effect imports and import() as arrows', () => {
    // act
    const specifiers = importsOf(
      [
        "import { a } from './a.ts';",
        "import type { B } from '../b/index.ts';",
        "export { c } from './c.ts';",
        "export * from './d.ts';",
        "const e = await import('./e.ts');",
        "import './f.ts';",
        "import { g } from 'node:fs';",
        "import { h } from '@pds-bridge/bridge/state';",
      ].join('\n'),
    );

    // assess
    expect(specifiers).toEqual([
      './a.ts',
      '../b/index.ts',
      './c.ts',
      './d.ts',
      './e.ts',
      './f.ts',
      '@pds-bridge/bridge/state',
    ]);
  });

  it('has no cycle between the modules of the packages: imports run down the layers only', () => {
    // act
    const cycles = cyclesOf(moduleGraph());

    // assess
    expect(cycles.map((cycle) => ({ cycle, arrows: arrowsWithin(cycle) }))).toEqual([]);
  });
});
