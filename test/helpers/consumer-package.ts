/**
 * A consumer's project on disk, with pds-bridge installed the way npm lays it out: the consumer
 * package's package.json (packages/consumer), its built kit and its schemas under
 * node_modules/pds-bridge, this checkout's dependencies beside it (quick to make; the real install,
 * with exactly the package's dependencies, is test/integration/consumer-install.test.ts). Tests import `pds-bridge/consumer` from it exactly as a consumer does, through the
 * package's `exports`, so a wrong path, a missing build step or a Node 22 feature shows up here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConsumerPackage, CONSUMER_PACKAGE } from '../../scripts/build-consumer.ts';

const root = path.resolve(import.meta.dirname, '../..');

export interface ConsumerProject {
  /** The project directory: package.json (`"type": "module"`) and node_modules/pds-bridge. */
  dir: string;
  /** Where pds-bridge is installed in it. */
  packageDir: string;
  remove(): Promise<void>;
}

/**
 * Creates a consumer project in a temporary directory with the consumer kit freshly built into it
 * (never into this checkout's dist/, which other tests and builds own).
 *
 * @example
 * ```ts
 * const project = await createConsumerProject();
 * spawnSync('node', ['-e', "import('pds-bridge/consumer')"], { cwd: project.dir });
 * ```
 */
export async function createConsumerProject(): Promise<ConsumerProject> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pds-consumer-'));
  const packageDir = path.join(dir, 'node_modules', 'pds-bridge');
  try {
    await mkdir(packageDir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
    await writeFile(
      path.join(packageDir, 'package.json'),
      await readFile(path.join(CONSUMER_PACKAGE, 'package.json')),
    );
    await buildConsumerPackage(packageDir);
    // pds-bridge's dependencies (zod, the AWS SDK) beside it, in npm's flat layout, where the
    // consumer's own imports of them find them too.
    const installed = await readdir(path.join(root, 'node_modules'));
    for (const name of installed.filter((entry) => !entry.startsWith('.') && entry !== 'pds-bridge')) {
      await symlink(path.join(root, 'node_modules', name), path.join(dir, 'node_modules', name), 'dir');
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, packageDir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A `node` executable and its major version. */
export interface NodeBinary {
  path: string;
  major: number;
}

/** The oldest Node.js major the project supports: the minimum of package.json's `engines.node`. */
export function oldestSupportedMajor(): number {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    engines?: { node?: string };
  };
  const major = Number(/^>=\s*(\d+)/.exec(manifest.engines?.node ?? '')?.[1]);
  if (!Number.isInteger(major)) throw new Error('package.json needs "engines": {"node": ">=<major>"}');
  return major;
}

function probe(candidate: string): NodeBinary | undefined {
  const run = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
  const major = Number(/^v(\d+)\./.exec(run.stdout ?? '')?.[1]);
  return run.status === 0 && Number.isInteger(major) ? { path: candidate, major } : undefined;
}

/**
 * The `node` that proves what the oldest supported runtime does: `PDS_OLDEST_NODE` when set (.ci/run
 * installs the oldest supported major from npm and names it there), otherwise the oldest `node` on PATH
 * that the project supports (`engines.node`; our machines: the system's and the pinned Node 24 from
 * node_modules/.bin, which npm puts first). A `PDS_OLDEST_NODE` that is not a supported Node fails.
 */
export function oldestNodeOnPath(): NodeBinary {
  const minimum = oldestSupportedMajor();
  const named = process.env.PDS_OLDEST_NODE;
  if (named) {
    const node = probe(named);
    if (!node || node.major < minimum) {
      throw new Error(
        `PDS_OLDEST_NODE=${named} is not Node.js ${minimum} or newer; unset it or name such a node`,
      );
    }
    return node;
  }
  const found: NodeBinary[] = [];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'node');
    if (dir === '' || !existsSync(candidate) || found.some((node) => node.path === candidate)) continue;
    const node = probe(candidate);
    if (node && node.major >= minimum) found.push(node);
  }
  const oldest = found.sort((a, b) => a.major - b.major)[0];
  return oldest ?? { path: process.execPath, major: Number(process.versions.node.split('.')[0]) };
}
