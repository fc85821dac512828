/**
 * The consumer package as a consumer gets it: `npm pack` in packages/consumer (its `prepack` builds
 * the kit, so a checkout without a build still packs a complete tarball), installed into an empty
 * project, where it brings exactly the kit's dependencies and no commands; then a consumer in that
 * project reads the events the bridge's publisher sent to the emulator, following a claim-check
 * pointer into its S3, and resolves every event's dataschema to the packaged JSON Schema.
 *
 * The install prefers npm's cache (`--prefer-offline`): after the first run it needs no network.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractFiles } from '../../packages/bridge/src/events/contracts.ts';
import { CONSUMER_PACKAGE } from '../../scripts/build-consumer.ts';
import { consumerTestEvents, publishAsBridge, receiveMessages } from '../helpers/consumer-events.ts';
import { oldestNodeOnPath } from '../helpers/consumer-package.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';

const run = promisify(execFile);
const { version } = (await import('../../packages/consumer/package.json', { with: { type: 'json' } }))
  .default;

/** What a consumer's project holds after `npm install <tarball>`, as `npm ls --all --json` shows it. */
interface InstalledTree {
  dependencies?: Record<string, InstalledTree & { version: string }>;
}

/** Packages of the bridge itself that a consumer must never receive. */
const BRIDGE_ONLY = [
  '@aws-lambda-powertools/batch',
  '@aws-lambda-powertools/logger',
  '@aws-lambda-powertools/metrics',
  '@aws-lambda-powertools/parameters',
  '@aws-lambda-powertools/tracer',
  'aws-xray-sdk-core',
  '@aws-sdk/client-sqs',
  '@aws-sdk/client-secrets-manager',
  'busboy',
  'yauzl',
  'yazl',
];

const CONSUMER = `
import { readFile } from 'node:fs/promises';
import { S3Client } from '@aws-sdk/client-s3';
import { createEventReader, s3PayloadFetcher } from 'pds-bridge/consumer';

const s3 = new S3Client({ endpoint: process.env.AWS_ENDPOINT_URL, forcePathStyle: true });
const reader = createEventReader({ payloads: s3PayloadFetcher(s3), claimCheck: { buckets: ['bridge-state'] } });
for (const message of JSON.parse(await readFile('messages.json', 'utf8'))) {
  const event = await reader.read(message);
  const schemaFile = import.meta.resolve(event.dataschema.replace('urn:pds-bridge:', 'pds-bridge/'));
  const schema = JSON.parse(await readFile(new URL(schemaFile), 'utf8'));
  console.log(JSON.stringify({ id: event.id, type: event.type, bytes: JSON.stringify(event.data).length, schemaId: schema.$id }));
}
`;

/** Every package name in the tree, at any depth. */
function packagesIn(tree: InstalledTree, into = new Set<string>()): Set<string> {
  for (const [name, child] of Object.entries(tree.dependencies ?? {})) {
    into.add(name);
    packagesIn(child, into);
  }
  return into;
}

function runNode(node: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(node, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the consumer package, packed and installed into an empty project', () => {
  let work: string;
  let project: string;
  let packedFiles: string[];
  let aws: AwsEmulator;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'pds-consumer-install-'));
    project = path.join(work, 'project');
    // No build beforehand: packing must build.
    await rm(path.join(CONSUMER_PACKAGE, 'dist'), { recursive: true, force: true });
    await rm(path.join(CONSUMER_PACKAGE, 'schemas'), { recursive: true, force: true });
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: CONSUMER_PACKAGE,
      maxBuffer: 16 * 1024 * 1024,
    });
    // The prepack script's own lines come first on stdout; npm's JSON starts at a line of its own.
    const json = packed.stdout.slice(packed.stdout.search(/^\[/m));
    const [tarball] = JSON.parse(json) as Array<{ filename: string; files: Array<{ path: string }> }>;
    if (!tarball) throw new Error(`npm pack printed no tarball: ${packed.stdout}`);
    packedFiles = tarball.files.map((file) => file.path);

    await run('mkdir', [project]);
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'a-consumer', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(work, tarball.filename)],
      { cwd: project, maxBuffer: 16 * 1024 * 1024 },
    );
    aws = await startAwsEmulator({ buckets: ['bridge-state'], queues: ['events'] });
  }, 240_000);

  afterAll(async () => {
    await aws?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('packs the built kit, every event schema, a README and the LICENSE, though nothing was built before', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'dist/consumer/index.js',
        'dist/consumer/types/packages/consumer/src/index.d.ts',
        ...contractFiles(version).map((file) => file.path),
      ]),
    );
    expect(
      packedFiles.filter(
        (file) => !/^(package\.json|README\.md|LICENSE|dist\/consumer\/|schemas\/)/.test(file),
      ),
    ).toEqual([]);
  });

  it('installs the kit with zod, @aws-sdk/client-s3 and @streamparser/json only, and no commands', async () => {
    // act
    const listed = await run('npm', ['ls', '--all', '--json'], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
    const tree = JSON.parse(listed.stdout) as InstalledTree;
    const installed = packagesIn(tree);

    // assess
    expect(Object.keys(tree.dependencies ?? {})).toEqual(['pds-bridge']);
    expect(Object.keys(tree.dependencies?.['pds-bridge']?.dependencies ?? {}).sort()).toEqual([
      '@aws-sdk/client-s3',
      '@streamparser/json',
      'zod',
    ]);
    expect(BRIDGE_ONLY.filter((name) => installed.has(name))).toEqual([]);
    await expect(readdir(path.join(project, 'node_modules', '.bin'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    console.log(
      `installed: ${installed.size} packages (pds-bridge, zod, @streamparser/json, @aws-sdk/client-s3 and its own)`,
    );
  });

  it('runs a consumer that reads the bridge’s events from the emulator, claim-check included', async () => {
    // prepare: the bridge's publisher sends them; the large one is claim-checked into S3
    const queueUrl = aws.queueUrls.events ?? '';
    const { small, large } = consumerTestEvents();
    const events = [...small, large];
    await publishAsBridge(aws, queueUrl, 'bridge-state', events);
    const messages = await receiveMessages(aws, queueUrl, events.length);
    await writeFile(path.join(project, 'messages.json'), JSON.stringify(messages));
    await writeFile(path.join(project, 'consumer.mjs'), CONSUMER);
    const node = oldestNodeOnPath();

    // act
    const result = await runNode(node.path, ['consumer.mjs'], project, { ...process.env, ...aws.env });

    // assess
    expect(result.code, result.stderr).toBe(0);
    const read = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; type: string; bytes: number; schemaId: string });
    expect(
      read.map(({ id, type, bytes }) => ({ id, type, bytes })).sort((a, b) => a.id.localeCompare(b.id)),
    ).toEqual(
      events
        .map((event) => ({ id: event.id, type: event.type, bytes: JSON.stringify(event.data).length }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    );
    for (const line of read) {
      expect(line.schemaId).toBe(events.find((event) => event.id === line.id)?.dataschema);
    }
  }, 90_000);
});
