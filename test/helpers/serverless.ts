import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

export interface CloudFormationTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DependsOn?: unknown }>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** One lock per checkout: the build empties dist/, so two packagers at once would package each other's gaps. */
const lockDir = path.join(
  tmpdir(),
  `pds-bridge-package-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.lock`,
);
/** A lock older than this was left by a crashed run. */
const STALE_LOCK_MS = 10 * 60_000;

/** Runs `fn` while no other test process builds or packages this checkout (mkdir is atomic). */
async function exclusively<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await stat(lockDir).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) await rm(lockDir, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

const mtime = (file: string) =>
  stat(file).then(
    (info) => info.mtimeMs,
    () => undefined,
  );

/**
 * True when every function has its bundle and no source is newer than the oldest bundle, so test
 * files packaging one after the other build once instead of each time.
 */
async function bundlesAreFresh(): Promise<boolean> {
  const names = (await readdir(path.join(root, 'functions'))).filter((file) => file.endsWith('.ts'));
  let oldestBundle = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const built = await mtime(path.join(root, 'dist', name.slice(0, -'.ts'.length), 'index.mjs'));
    if (built === undefined) return false;
    oldestBundle = Math.min(oldestBundle, built);
  }
  const sources = ['package-lock.json', 'scripts/build.ts'];
  for (const dir of ['functions', 'lib']) {
    for (const entry of await readdir(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) sources.push(path.relative(root, path.join(entry.parentPath, entry.name)));
    }
  }
  for (const source of sources) {
    if (((await mtime(path.join(root, source))) ?? 0) > oldestBundle) return false;
  }
  return true;
}

/**
 * Builds the bundles and runs `osls package` offline into a temporary directory, returning the
 * generated CloudFormation template. No AWS account or credentials are involved. Test files that
 * package run one after the other (a lock in the temporary directory), whatever vitest runs in
 * parallel, and the bundles are rebuilt only when a source changed since the last build.
 */
export async function packageService(args: string[] = []): Promise<CloudFormationTemplate> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-package-'));
  try {
    // No profile or credentials: packaging must never need an AWS account.
    const { AWS_PROFILE: _profile, ...inherited } = process.env;
    const env = { ...inherited, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
    await exclusively(async () => {
      if (!(await bundlesAreFresh())) await run(process.execPath, ['scripts/build.ts'], { cwd: root, env });
      await run(
        process.execPath,
        [path.join(root, 'node_modules/osls/bin/serverless.js'), 'package', '--package', outDir, ...args],
        {
          cwd: root,
          env,
        },
      );
    });
    return JSON.parse(await readFile(path.join(outDir, 'cloudformation-template-update-stack.json'), 'utf8'));
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** Resources of one CloudFormation type, by logical id. */
export function resourcesOfType(template: CloudFormationTemplate, type: string): string[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([logicalId]) => logicalId)
    .sort();
}
