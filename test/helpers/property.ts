/**
 * The property tier's one way to run a property (test/unit/property-*.test.ts): seeded, bounded, and
 * replayable.
 *
 * - Seeded: every run of `npm test` draws the same inputs (seed {@link DEFAULT_SEED}), so a red build
 *   is never a coin toss. `FUZZ_SEED=random` draws new ones; `FUZZ_SEED=<n>` repeats run `<n>`.
 * - Bounded: each property names its own number of runs, small enough that the whole tier stays
 *   within about 30 s on a 2-core machine. `FUZZ_RUNS=<n>` runs every property `<n>` times instead
 *   (the long run: `FUZZ_RUNS=20000 FUZZ_SEED=random npx vitest run test/unit/property-`).
 * - Replayable: a failure prints the shrunk counterexample and the exact command that replays it
 *   (`FUZZ_SEED=… FUZZ_PATH=… npx vitest run <file> -t '<test name>'`).
 *
 * Each input also gets a time budget ({@link MAX_MS_PER_INPUT}): not a speed target (bench/ measures
 * speed) but the line past which one input counts as a hang, such as a quadratic scan or a
 * backtracking regular expression.
 *
 * @example
 * ```ts
 * it('never throws anything but its own error', async () => {
 *   await holds(fc.property(fc.string(), (text) => { parseOrRefuse(text); }), { runs: 500 });
 * });
 * ```
 */
import path from 'node:path';
import * as fc from 'fast-check';
import { expect } from 'vitest';

/** The seed of `npm test` runs. */
export const DEFAULT_SEED = 21;
/** Longest time one input may take before it counts as a hang. */
export const MAX_MS_PER_INPUT = 2000;

function envInteger(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '' || value === 'random') return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed))
    throw new Error(`${name} must be an integer (or "random" for FUZZ_SEED), got ${value}`);
  return parsed;
}

/** The seed of this process: FUZZ_SEED, a fresh one for `random`, else {@link DEFAULT_SEED}. */
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? Date.now() ^ (Math.random() * 0x100000000)
    : (envInteger('FUZZ_SEED') ?? DEFAULT_SEED);

/** Runs of a property: FUZZ_RUNS when set, else what the property asks for. */
export function runsOf(runs: number): number {
  const override = envInteger('FUZZ_RUNS');
  if (override !== undefined && override < 1) throw new Error('FUZZ_RUNS must be at least 1');
  return override ?? runs;
}

function replayCommand(seed: number, counterexamplePath: string | null): string {
  const state = expect.getState();
  const file = state.testPath ? path.relative(process.cwd(), state.testPath) : 'test/unit/property-*.test.ts';
  const name = (state.currentTestName ?? '').split(' > ').at(-1) ?? '';
  const where = counterexamplePath === null ? '' : ` FUZZ_PATH=${counterexamplePath}`;
  // vitest reads -t as a regular expression; the shell gets it in single quotes.
  const pattern = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll("'", "'\\''");
  return `FUZZ_SEED=${seed}${where} npx vitest run ${file} -t '${pattern}'`;
}

/**
 * Checks `property` and fails the test with fast-check's report (seed, path, shrunk counterexample)
 * and the command that replays the failure.
 */
export async function holds<Ts>(
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  options: { runs: number },
): Promise<void> {
  const replayPath = process.env.FUZZ_PATH || undefined;
  const parameters: fc.Parameters<Ts> = {
    seed: SEED,
    numRuns: runsOf(options.runs),
    ...(replayPath ? { path: replayPath, endOnFailure: true } : {}),
  };
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, parameters);
  if (!details.failed) return;
  const report = fc.defaultReportMessage(details) ?? 'The property failed.';
  throw new Error(
    `${report}\n\nReplay it with:\n  ${replayCommand(details.seed, details.counterexamplePath)}`,
  );
}

/**
 * Runs `work` on one input and fails when it took longer than {@link MAX_MS_PER_INPUT}: the
 * "bounded time per input" property.
 */
export function withinTimeBudget<T>(work: () => T): T {
  const started = performance.now();
  const result = work();
  const elapsed = performance.now() - started;
  if (elapsed > MAX_MS_PER_INPUT) {
    throw new Error(
      `one input took ${elapsed.toFixed(0)} ms, more than the ${MAX_MS_PER_INPUT} ms budget of any input`,
    );
  }
  return result;
}

/** {@link withinTimeBudget} for asynchronous work. */
export async function withinTimeBudgetAsync<T>(work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  const elapsed = performance.now() - started;
  if (elapsed > MAX_MS_PER_INPUT) {
    throw new Error(
      `one input took ${elapsed.toFixed(0)} ms, more than the ${MAX_MS_PER_INPUT} ms budget of any input`,
    );
  }
  return result;
}

/**
 * Strings as outside input brings them: mostly printable, sometimes any UTF-16 code unit (lone
 * surrogates included), sometimes one of the texts that broke parsers before.
 */
export function hostileString(
  constraints: { maxLength?: number; minLength?: number } = {},
): fc.Arbitrary<string> {
  const maxLength = constraints.maxLength ?? 40;
  const minLength = constraints.minLength ?? 0;
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength, maxLength }) },
    {
      weight: 1,
      arbitrary: fc.string({
        unit: fc.constantFrom('\ud800', '\udfff', 'a', '%', '+', '/', '\u0000'),
        minLength,
        maxLength,
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '__proto__',
          'constructor',
          'toString',
          '%',
          '%ZZ',
          '%ED%A0%80',
          '\ud800',
          '../..',
          'a'.repeat(maxLength),
        )
        .filter((text) => text.length >= minLength),
    },
  );
}
