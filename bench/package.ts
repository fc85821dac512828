/**
 * What osls's scan for development dependencies cost each `osls package` (serverless.yml turns it off:
 * `package.excludeDevDependencies: false`). Packages the service `n` times in a row at three counts,
 * alternating the reference (the scan on, from a copy of serverless.yml that turns it back on) with
 * serverless.yml as it is, and prints the seconds of each and their ratio.
 *
 *   npm run build && node bench/package.ts [--runs 1,2,4]
 *
 * The test files that package the service (test/integration/serverless-*.test.ts) do so about a dozen
 * times a run, once per argument set (test/helpers/package-cache.ts).
 */
import { execFile } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { printTable, root } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/package.ts',
  summary:
    "What osls's scan for development dependencies costs: `osls package` n times with it on and as serverless.yml has it.",
  options: {
    runs: { type: 'string', default: '1,2,4', value: 'n,n,n', description: 'packagings in a row per count' },
  },
});
const COUNTS = String(values.runs).split(',').map(Number);
if (COUNTS.some((count) => !Number.isInteger(count) || count < 1)) {
  throw new Error(`--runs takes whole numbers above 0, like 1,2,4; got ${values.runs}`);
}

/** Runs a command to its end; rejects with its stderr when it fails. */
const run = (command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) =>
  new Promise<void>((resolve, reject) =>
    execFile(command, args, options, (error, _stdout, stderr) =>
      error
        ? reject(new Error(`${args.slice(0, 2).join(' ')} failed: ${stderr.trim()}`, { cause: error }))
        : resolve(),
    ),
  );
const SCAN_CONFIG = 'serverless.bench-scan.yml';

const functions = (await readdir(path.join(root, 'packages/bridge/functions')))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length));
for (const name of functions) {
  await access(path.join(root, 'dist', name, 'index.mjs')).catch(() => {
    throw new Error(`dist/${name}/index.mjs is missing: run \`npm run build\` first.`);
  });
}

const service = await readFile(path.join(root, 'serverless.yml'), 'utf8');
const scanOn = service.replace(/^ {2}excludeDevDependencies: false$/m, '  excludeDevDependencies: true');
if (scanOn === service) {
  throw new Error(
    'serverless.yml has no `  excludeDevDependencies: false` line under package: to turn back on.',
  );
}

/** Seconds `count` packagings take, with `config` (relative to the checkout) or serverless.yml. */
async function packageTimes(count: number, config?: string): Promise<number> {
  // No profile or credentials: packaging never needs an AWS account.
  const { AWS_PROFILE: _profile, ...inherited } = process.env;
  const env = { ...inherited, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
  const started = performance.now();
  for (let round = 0; round < count; round++) {
    const outDir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-bench-package-'));
    try {
      await run(
        process.execPath,
        [
          path.join(root, 'node_modules/osls/bin/serverless.js'),
          'package',
          '--package',
          outDir,
          ...(config ? ['--config', config] : []),
        ],
        { cwd: root, env },
      );
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }
  return (performance.now() - started) / 1000;
}

// osls reads a --config file from the service directory only, next to the deploy/ files it names.
await writeFile(path.join(root, SCAN_CONFIG), scanOn);
try {
  const rows: Array<Array<string | number>> = [];
  for (const count of COUNTS) {
    const reference = await packageTimes(count, SCAN_CONFIG);
    const configured = await packageTimes(count);
    rows.push([count, reference.toFixed(1), configured.toFixed(1), (configured / reference).toFixed(2)]);
  }
  printTable(['packagings', 'scan on (reference) s', 'serverless.yml (scan off) s', 'ratio'], rows);
} finally {
  await rm(path.join(root, SCAN_CONFIG), { force: true });
}
