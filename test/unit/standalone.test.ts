/**
 * The repository stands alone: no file of the project refers to a folder beside the checkout (the
 * design notes, the interface text or the fixtures it was first built from). Whoever clones it from a
 * public host has only what is inside it; the interface is docs/pds-interface.md and the GDSN fixtures
 * are test/fixtures/gdsn.
 *
 * The files are those git tracks (or, outside a git checkout, every file but the ignored folders).
 * `.ci/run` proves the same from the other side: it runs the suite in a fresh clone with nothing beside it.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const IGNORED = new Set(['node_modules', 'dist', '.serverless', 'coverage', '.local', '.local-data', '.git']);

// Built from pieces so this file does not match itself.
const SIBLING = ['..', 'shared'].join('/');
const OUTSIDE_PATTERNS: readonly RegExp[] = [
  /(?:\.\.\/)+shared\b/,
  new RegExp(`/work/${'shared'}\\b`),
  new RegExp(`${'DESIGN'}\\.md`),
  new RegExp(`${'research'}-notes\\.md`),
  new RegExp(`${'product-data-service'}\\.md`),
];

/** The references to something outside the repository in one file's text, as `line: excerpt`. */
function outsideReferences(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    if (OUTSIDE_PATTERNS.some((pattern) => pattern.test(line)))
      found.push(`${index + 1}: ${line.trim().slice(0, 120)}`);
  });
  return found;
}

async function walk(dir: string, out: string[]): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (IGNORED.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await walk(full, out);
    else if (entry.isFile()) out.push(path.relative(ROOT, full));
  }
  return out;
}

async function projectFiles(): Promise<string[]> {
  try {
    const listed = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
    return listed.split('\0').filter(Boolean);
  } catch {
    return walk(ROOT, []);
  }
}

describe('the repository stands alone', () => {
  it('no project file refers to a folder beside the checkout or the documents kept there', async () => {
    const files = (await projectFiles()).filter((file) => file !== 'package-lock.json');
    expect(files.length).toBeGreaterThan(100);
    const offenders: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(path.join(ROOT, file), 'utf8');
      } catch {
        continue; // removed from the working tree but still in the index
      }
      if (text.includes('\0')) continue; // binary
      for (const hit of outsideReferences(text)) offenders.push(`${file}:${hit}`);
    }
    expect(offenders).toEqual([]);
  });

  it('recognises each kind of outside reference, and not the project’s own paths', () => {
    expect(outsideReferences(`read ${SIBLING}/spec/x.md`)).toHaveLength(1);
    expect(
      outsideReferences(`path.resolve(dir, '${['..', '..', '..', 'shared'].join('/')}/fixtures/gdsn')`),
    ).toHaveLength(1);
    expect(outsideReferences(`see ${'DESIGN'}.md and ${'research'}-notes.md`)).toHaveLength(1);
    expect(outsideReferences(`line one\nthe ${'product-data-service'}.md spec`)).toEqual([
      `2: the ${'product-data-service'}.md spec`,
    ]);
    expect(outsideReferences('docs/pds-interface.md and test/fixtures/gdsn/cic-3.1-review.xml')).toEqual([]);
    expect(outsideReferences('packages/bridge/src/state/shared-lease.ts')).toEqual([]);
  });

  it('the PDS interface and the GDSN fixtures the tests read are inside the repository', async () => {
    const files = await projectFiles();
    expect(files).toContain('docs/pds-interface.md');
    expect(
      files.filter((file) => file.startsWith('test/fixtures/gdsn/') && file.endsWith('.xml')).length,
    ).toBeGreaterThan(0);
  });
});
