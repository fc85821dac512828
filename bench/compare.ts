/**
 * Is the working tree slower than a base commit? Runs the poll, upload, ingest and webhook-delivery
 * benches on both, alternately, on this machine, and prints every figure's ratio (working tree ÷
 * base) with its spread over the runs.
 *
 *   npm run bench:compare -- --base <commit> [--runs 3] [--quick] [--only poll,webhooks]
 *                            [--poll-args="--assets 10000 --keys 200"]
 *
 * The base is checked out in a temporary git worktree (removed at the end). Its dependencies are this
 * checkout's node_modules, linked entry by entry, when the base's package-lock.json is the same as
 * the working tree's; the workspace packages are linked to the base's own folders, so the base runs
 * only its own code. With another lock file the base gets `npm ci --offline` from npm's cache.
 *
 * Each bench runs as its own tree has it (the base's bench/poll.ts for the base), at sizes small
 * enough for a round of the four to take a few minutes (`--quick`: smaller still). Rounds alternate
 * which tree goes first, so drift on a shared machine falls on both alike. Every number in the
 * benches' Markdown tables is a figure; a figure equal in every run of both trees (request and event
 * counts) is summed up in one line, the others are listed with the median of base and working tree,
 * the median of the per-round ratios and their range. "apart" marks a figure whose runs do not
 * overlap at all between the two trees: the likeliest real changes.
 */
import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { median, printTable, removeQuietly, root, runCommand, runProcess } from './support.ts';

/** The benches compared, with the arguments of a normal and of a quick comparison. */
const BENCHES = {
  poll: { full: ['--assets', '2000', '--keys', '200'], quick: ['--assets', '1000', '--keys', '100'] },
  upload: { full: ['--sizes', '64', '--runs', '1'], quick: ['--sizes', '16', '--runs', '1'] },
  ingest: {
    full: ['--size', '64', '--compare', '0', '--runs', '1'],
    quick: ['--size', '16', '--compare', '0', '--runs', '1'],
  },
  webhooks: { full: ['--events', '200'], quick: ['--events', '100'] },
} as const;
type BenchName = keyof typeof BENCHES;
const BENCH_NAMES = Object.keys(BENCHES) as BenchName[];

/** One tree's figures of one bench run, by `table row · column`. */
type Figures = Map<string, number>;

interface Tree {
  label: 'base' | 'working tree';
  dir: string;
}

function checkedOptions() {
  const { values } = parseScriptArgs({
    command: 'npm run bench:compare --',
    summary:
      'The poll, upload, ingest and webhook-delivery benches on a base commit and on the working tree, alternately on this machine: every figure as a ratio (working tree ÷ base) with its spread.',
    options: {
      base: { type: 'string', value: 'commit', description: 'the commit to compare against (required)' },
      runs: { type: 'string', default: '3', value: 'n', description: 'runs of each bench on each tree' },
      quick: { type: 'boolean', description: 'smaller sizes and 2 runs unless --runs is given' },
      only: {
        type: 'string',
        default: BENCH_NAMES.join(','),
        value: 'bench,...',
        description: `the benches to run, of ${BENCH_NAMES.join(', ')}`,
      },
      ...Object.fromEntries(
        BENCH_NAMES.map((bench) => [
          `${bench}-args`,
          {
            type: 'string',
            value: '"--flag value ..."',
            description: `the arguments of bench/${bench}.ts, given with = (--${bench}-args="..."); default "${BENCHES[bench].full.join(' ')}", with --quick "${BENCHES[bench].quick.join(' ')}"`,
          } as const,
        ]),
      ),
      out: {
        type: 'string',
        value: 'dir',
        description: "a folder to keep every run's output in (<round>-<bench>-<base|working-tree>.txt)",
      },
      'timeout-s': {
        type: 'string',
        default: '600',
        value: 's',
        description: 'longest one bench run may take before it is stopped',
      },
    },
  });
  if (!values.base) usage('--base <commit> is required: the commit to compare the working tree against');
  const runsGiven = process.argv.some((arg) => arg === '--runs' || arg.startsWith('--runs='));
  const runs = Number(values.quick && !runsGiven ? '2' : values.runs);
  if (!Number.isInteger(runs) || runs < 1)
    usage(`--runs must be a whole number of at least 1, not ${values.runs}`);
  const only = values.only.split(',').map((name) => name.trim());
  const unknown = only.filter((name) => !(name in BENCHES));
  if (unknown.length > 0) usage(`unknown bench ${unknown.join(', ')}; choose from ${BENCH_NAMES.join(', ')}`);
  const timeoutS = Number(values['timeout-s']);
  if (!(timeoutS > 0)) usage(`--timeout-s must be a positive number of seconds, not ${values['timeout-s']}`);
  const args = Object.fromEntries(
    BENCH_NAMES.map((bench) => {
      const given = (values as unknown as Record<string, string | undefined>)[`${bench}-args`];
      const chosen =
        given === undefined ? BENCHES[bench][values.quick ? 'quick' : 'full'] : given.split(/\s+/);
      return [bench, chosen.filter((word) => word !== '')];
    }),
  ) as Record<BenchName, string[]>;
  return {
    base: values.base,
    runs,
    quick: values.quick === true,
    benches: only as BenchName[],
    args,
    timeoutS,
    out: values.out,
  };
}

function usage(problem: string): never {
  process.stderr.write(`bench:compare: ${problem}\n`);
  process.exit(2);
}

/** The base commit checked out in a temporary worktree with its dependencies in place. */
async function checkoutBase(base: string): Promise<{ commit: string; dir: string; remove(): Promise<void> }> {
  const commit = (await runCommand('git', ['-C', root, 'rev-parse', '--verify', `${base}^{commit}`])).trim();
  const parent = await mkdtemp(path.join(tmpdir(), 'pds-bench-base-'));
  const dir = path.join(parent, 'tree');
  await runCommand('git', ['-C', root, 'worktree', 'add', '--detach', dir, commit]);
  const remove = async () => {
    await runCommand('git', ['-C', root, 'worktree', 'remove', '--force', dir]).catch(() => undefined);
    await removeQuietly(parent);
  };
  try {
    await installDependencies(commit, dir);
  } catch (error) {
    await remove();
    throw error;
  }
  return { commit, dir, remove };
}

async function installDependencies(commit: string, dir: string): Promise<void> {
  const baseLock = await runCommand('git', ['-C', root, 'show', `${commit}:package-lock.json`]);
  if (baseLock === readFileSync(path.join(root, 'package-lock.json'), 'utf8')) {
    await linkNodeModules(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    return;
  }
  process.stderr.write('the base has another package-lock.json: npm ci --offline in its worktree\n');
  await runCommand('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--prefix', dir]).catch(
    (error: unknown) => {
      throw new Error(
        `could not install the base's dependencies from npm's cache (${(error as Error).message}); run npm ci once at that commit, or compare against a commit with this package-lock.json`,
      );
    },
  );
}

/**
 * `to` as a folder of links to `from`'s entries. A relative link (npm's link to a workspace package,
 * `../packages/bridge`) is made again as it is, so it names the base's own package; a scope folder
 * holding such links is made a folder of its own for the same reason.
 */
async function linkNodeModules(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await readdir(from)) {
    const source = path.join(from, name);
    const target = path.join(to, name);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink() && !path.isAbsolute(readlinkSync(source))) {
      await symlink(readlinkSync(source), target);
    } else if (stat.isDirectory() && name.startsWith('@') && (await holdsRelativeLinks(source))) {
      await linkNodeModules(source, target);
    } else {
      await symlink(source, target);
    }
  }
}

async function holdsRelativeLinks(dir: string): Promise<boolean> {
  for (const name of await readdir(dir)) {
    const entry = path.join(dir, name);
    if (lstatSync(entry).isSymbolicLink() && !path.isAbsolute(readlinkSync(entry))) return true;
  }
  return false;
}

/** Runs one bench in `tree`; its figures, or undefined when the tree has no such bench or it failed. */
async function runBench(tree: Tree, bench: BenchName, args: readonly string[], timeoutS: number) {
  const script = path.join(tree.dir, 'bench', `${bench}.ts`);
  if (!existsSync(script)) return { error: `${tree.label} has no bench/${bench}.ts` };
  const started = performance.now();
  const { code, signal, out, err } = await runProcess(process.execPath, [script, ...args], {
    cwd: tree.dir,
    timeoutMs: timeoutS * 1000,
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) {
    const why = signal ? `stopped by ${signal} after ${seconds.toFixed(0)} s` : `exited with ${code}`;
    return {
      error: `${tree.label}: bench/${bench}.ts ${why}: ${crashReason(err)}`,
    };
  }
  return { figures: figuresOf(out), output: out, seconds };
}

/**
 * What a failed bench printed that says why: the thrown error's own line where Node printed one (its
 * last lines are the error's fields and Node's version), else the last three lines.
 */
export function crashReason(stderr: string): string {
  const thrown = /^(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)\b.*$/m.exec(stderr);
  return thrown ? thrown[0].trim() : stderr.trim().split('\n').slice(-3).join(' ');
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Every number in the Markdown tables of a bench's output, by `row label · column header`. */
export function figuresOf(output: string): Figures {
  const figures: Figures = new Map();
  let header: string[] | undefined;
  for (const line of output.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) {
      header = undefined;
      continue;
    }
    const cells = trimmed
      .slice(1, trimmed.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((cell) => cell.trim());
    if (header === undefined) {
      // A header repeated in one table (two `ratio` columns) is told apart by its place: `ratio (2)`.
      header = cells.map((name, column) => {
        const before = cells.slice(0, column).filter((other) => other === name).length;
        return before === 0 ? name : `${name} (${before + 1})`;
      });
      continue;
    }
    if (cells.every((cell) => /^-+$/.test(cell))) continue;
    cells.forEach((cell, column) => {
      if (column === 0 || !NUMBER.test(cell)) return;
      // A row label met again (in a later table) is told apart the same way.
      const name = `${cells[0]} · ${header?.[column] ?? column}`;
      let key = name;
      for (let n = 2; figures.has(key); n++) key = `${name} (${n})`;
      figures.set(key, Number(cell));
    });
  }
  return figures;
}

export interface Collected {
  base: Figures[];
  head: Figures[];
  errors: string[];
}

/** The rows of the comparison of one bench: a figure's medians, ratio and spread. */
export function compareRows(bench: string, collected: Collected): { rows: string[][]; equal: number } {
  const rows: string[][] = [];
  let equal = 0;
  const rounds = Math.min(collected.base.length, collected.head.length);
  if (rounds === 0) return { rows, equal };
  for (const key of collected.base[0]?.keys() ?? []) {
    const base = collected.base.slice(0, rounds).map((figures) => figures.get(key));
    const head = collected.head.slice(0, rounds).map((figures) => figures.get(key));
    if (base.some((v) => v === undefined) || head.some((v) => v === undefined)) continue;
    const b = base as number[];
    const h = head as number[];
    if ([...b, ...h].every((v) => v === b[0])) {
      equal++;
      continue;
    }
    const ratios = b.map((v, i) => (v === 0 ? Number.NaN : (h[i] as number) / v));
    const apart = Math.max(...h) < Math.min(...b) || Math.min(...h) > Math.max(...b);
    rows.push([
      bench,
      key,
      String(median(b)),
      String(median(h)),
      fixed(median(ratios)),
      `${fixed(Math.min(...ratios))}–${fixed(Math.max(...ratios))}`,
      apart && rounds > 1 ? 'apart' : '',
    ]);
  }
  return { rows, equal };
}

function fixed(ratio: number): string {
  return Number.isFinite(ratio) ? ratio.toFixed(2) : '-';
}

async function main(): Promise<void> {
  const options = checkedOptions();
  if (options.out !== undefined) await mkdir(options.out, { recursive: true });
  const checkout = await checkoutBase(options.base);
  const trees: Tree[] = [
    { label: 'base', dir: checkout.dir },
    { label: 'working tree', dir: root },
  ];
  const collected = new Map<BenchName, Collected>(
    options.benches.map((bench) => [bench, { base: [], head: [], errors: [] }]),
  );
  const started = performance.now();
  const stopBase = () => void checkout.remove().then(() => process.exit(130));
  process.once('SIGINT', stopBase);
  try {
    for (let round = 0; round < options.runs; round++) {
      // Alternate which tree goes first, so that drift on a shared machine falls on both alike.
      const order = round % 2 === 0 ? trees : [...trees].reverse();
      for (const bench of options.benches) {
        for (const tree of order) {
          const result = await runBench(tree, bench, options.args[bench], options.timeoutS);
          const into = collected.get(bench) as Collected;
          if ('error' in result) {
            into.errors.push(result.error as string);
            process.stderr.write(`round ${round + 1}: ${result.error}\n`);
            continue;
          }
          (tree.label === 'base' ? into.base : into.head).push(result.figures);
          if (options.out !== undefined) {
            const name = `${round + 1}-${bench}-${tree.label.replace(' ', '-')}.txt`;
            await writeFile(path.join(options.out, name), result.output);
          }
          process.stderr.write(
            `round ${round + 1}/${options.runs}: ${bench} on the ${tree.label} took ${result.seconds.toFixed(1)} s\n`,
          );
        }
      }
    }
  } finally {
    process.off('SIGINT', stopBase);
    await checkout.remove();
  }
  report(options, checkout.commit, collected, (performance.now() - started) / 1000);
}

function report(
  options: ReturnType<typeof checkedOptions>,
  commit: string,
  collected: Map<BenchName, Collected>,
  seconds: number,
): void {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const [bench, results] of collected) {
    const { rows: benchRows, equal } = compareRows(bench, results);
    rows.push(...benchRows);
    const runs = Math.min(results.base.length, results.head.length);
    notes.push(`${bench}: ${runs} run(s) of each tree, ${equal} figure(s) equal in every run`);
    notes.push(...new Set(results.errors));
  }
  process.stdout.write(
    `\nworking tree against ${commit.slice(0, 12)}, ${options.runs} run(s) each, node ${process.version}, ${(seconds / 60).toFixed(1)} min\n${options.benches.map((bench) => `  bench/${bench}.ts ${options.args[bench].join(' ')}`).join('\n')}\n\n`,
  );
  printTable(['bench', 'figure (row · column)', 'base', 'working tree', 'ratio', 'spread', 'runs'], rows);
  process.stdout.write(`\n${notes.join('\n')}\n`);
  process.stdout.write(
    '\nratio: working tree ÷ base, the median of the per-round ratios; spread: their range. Whether higher is better depends on the figure (seconds, CPU: lower; MiB/s, events/s: higher).\n',
  );
}

if (import.meta.main) {
  await main().catch((error: unknown) => {
    process.stderr.write(`bench:compare: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
