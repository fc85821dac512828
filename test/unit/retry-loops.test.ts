import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One retry policy (packages/bridge/src/core/retry.ts): a loop that counts attempts and waits between them is a
 * retry loop, and it belongs there. This test reads every source file of the bridge and names each
 * loop written elsewhere, so a new one is moved onto the policy (`retry`, `retryEach`) instead.
 */
const root = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['packages/bridge/src', 'packages/bridge/functions'];
const POLICY = 'packages/bridge/src/core/retry.ts';

/** A counter of tries: `attempt++`, `attempts += 1`, `retries++`, `waits += 1`, `for (let attempt …`. */
const COUNTER =
  /\b(attempts?|tries|retries|waits)\s*(\+\+|\+=\s*1\b)|\+\+\s*(attempts?|tries|retries|waits)\b|for\s*\(\s*let\s+\w*(attempt|tries|retr)\w*\s*=/i;
/** A wait between tries: a sleep, a timer, a back-off computation. */
const WAIT =
  /\b(sleep|setTimeout|backoffDelayMs|retryDelayMs|sleepFor|delay|wait)\b\s*\)?\s*\(|await\s+new\s+Promise\s*\(/;
const LOOP = /\b(for|while)\s*\(|\bdo\s*\{/g;

/**
 * The text of the loop starting at `start`: its header and its body up to the matching brace (a loop
 * without braces reaches into what follows: the scan errs towards finding too much).
 */
function loopText(source: string, start: number): string {
  const open = source.indexOf('{', start);
  if (open < 0) return source.slice(start);
  let depth = 0;
  for (let index = open; index < source.length; index++) {
    const char = source[index];
    if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return source.slice(start, index + 1);
    }
  }
  return source.slice(start);
}

/** The 1-based lines where a retry loop starts in `source`: a loop counting tries and waiting. */
function retryLoops(source: string): number[] {
  const lines: number[] = [];
  for (const match of source.matchAll(LOOP)) {
    const text = loopText(source, match.index);
    if (COUNTER.test(text) && WAIT.test(text)) {
      lines.push(source.slice(0, match.index).split('\n').length);
    }
  }
  return lines;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

describe('one retry policy', () => {
  it('finds a retry loop written by hand (self-test on a synthetic source)', () => {
    // prepare
    const handWritten = `
async function fetchWithRetry() {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await fetchOnce();
    } catch (error) {
      await sleep(100 * 2 ** attempt);
    }
  }
}
async function pollUntilReady() {
  let attempts = 0;
  while (!ready()) {
    attempts += 1;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
async function injected(options) {
  for (let tries = 0; ; tries++) {
    try { return await once(); } catch { await (options.sleep ?? sleep)(10); }
  }
}`;

    // act & assess
    expect(retryLoops(handWritten)).toEqual([3, 13, 19]);
  });

  it('leaves loops alone that do not both count tries and wait (paging, pacing, parsing)', () => {
    // prepare
    const other = `
async function readAll() {
  for (let page = 1; ; page++) {
    const answer = await list(page);
    if (answer.done) return;
  }
}
async function paced(limit) {
  let moved = 0;
  while (moved < limit) {
    moved += await moveSome();
    await sleep(due);
  }
}
function rereadLayout() {
  for (let attempt = 1; ; attempt++) {
    if (!changed() || attempt === 3) return;
  }
}`;

    // act & assess
    expect(retryLoops(other)).toEqual([]);
  });

  it(`has no retry loop in ${SCANNED.join(', ')} outside ${POLICY}`, () => {
    // act
    const found = SCANNED.flatMap(sourceFiles)
      .filter((file) => file !== POLICY)
      .flatMap((file) =>
        retryLoops(readFileSync(path.join(root, file), 'utf8')).map((line) => `${file}:${line}`),
      );

    // assess: move each onto retry()/retryEach() of packages/bridge/src/core/retry.ts, stating only what differs.
    expect(found).toEqual([]);
  });
});
