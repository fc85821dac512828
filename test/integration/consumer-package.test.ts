/**
 * `pds-bridge/consumer` as a consumer meets it: resolved through package.json `exports` from an
 * installed copy, run on the oldest Node on PATH, type-checked by a consumer's TypeScript, and carried
 * in the package's tarball.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvents } from '../../packages/bridge/src/events/examples.ts';
import { serializeEvent } from '../../packages/bridge/src/events/index.ts';
import {
  type ConsumerProject,
  createConsumerProject,
  oldestNodeOnPath,
} from '../helpers/consumer-package.ts';

const root = path.resolve(import.meta.dirname, '../..');
const failed = exampleEvents()['pds.ingest.failed'][0];
if (!failed) throw new Error('the event catalogue lost its pds.ingest.failed example');

const CONSUMER_SCRIPT = `
import { S3Client } from '@aws-sdk/client-s3';
import { ConsumerError, createEventReader, s3PayloadFetcher } from 'pds-bridge/consumer';

const reader = createEventReader({
  payloads: s3PayloadFetcher(new S3Client({ region: 'us-east-1' })),
  claimCheck: { buckets: ['bridge-state'] },
});
const event = await reader.read({ MessageId: 'm-1', Body: process.env.BODY });
let refused;
try {
  reader.parse('{"specversion":"0.3"}');
} catch (error) {
  refused = error instanceof ConsumerError ? error.code : String(error);
}
console.log(JSON.stringify({ type: event.type, code: event.data.code, refused, node: process.versions.node }));
`;

const TYPED_CONSUMER = `
import { createEventReader, type BridgeEvent } from 'pds-bridge/consumer';

const reader = createEventReader();
export function describe(body: string): string {
  const event: BridgeEvent = reader.parse(body);
  switch (event.type) {
    case 'pds.ingest.failed':
      return event.data.code;
    case 'pds.ingest.completed':
      return event.data.gatheringKey;
    default:
      return event.subject;
  }
}
`;

/** The same consumer reaching for a field its event type does not have. */
const MISTYPED_CONSUMER = TYPED_CONSUMER.replace(
  'return event.data.code;',
  'return event.data.gatheringKey;',
);

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [path.join(root, 'node_modules', '@types')],
  },
  files: ['consumer.ts'],
};

function typeCheck(dir: string) {
  return spawnSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
}

describe('the pds-bridge/consumer package entry', () => {
  let project: ConsumerProject;

  beforeAll(async () => {
    project = await createConsumerProject();
  }, 180_000);

  afterAll(async () => {
    await project?.remove();
  });

  it('imports and reads an event on the oldest Node on PATH, through package.json exports', async () => {
    // prepare
    const node = oldestNodeOnPath();
    await writeFile(path.join(project.dir, 'consumer.mjs'), CONSUMER_SCRIPT);

    // act
    const run = spawnSync(node.path, ['consumer.mjs'], {
      cwd: project.dir,
      encoding: 'utf8',
      env: { ...process.env, BODY: serializeEvent(failed) },
    });

    // assess: nothing on stderr (Node 20 drew the AWS SDK's NodeVersionSupportWarning; it is no longer supported)
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      type: 'pds.ingest.failed',
      code: failed.data.code,
      refused: 'not-cloudevent',
      node: expect.stringMatching(new RegExp(`^${node.major}\\.`)),
    });
    expect(node.major).toBeGreaterThanOrEqual(22);
  });

  it("gives a consumer's TypeScript the event union: each type's data is checked", async () => {
    // prepare
    await writeFile(path.join(project.dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await writeFile(path.join(project.dir, 'consumer.ts'), TYPED_CONSUMER);

    // act
    const typed = typeCheck(project.dir);
    await writeFile(path.join(project.dir, 'consumer.ts'), MISTYPED_CONSUMER);
    const mistyped = typeCheck(project.dir);

    // assess
    expect(typed.stdout).toBe('');
    expect(typed.status).toBe(0);
    expect(mistyped.status).not.toBe(0);
    expect(mistyped.stdout).toMatch(/Property 'gatheringKey' does not exist on type 'IngestFailedData'/);
  }, 120_000);

  it('is carried in the tarball npm pack makes, with the event schemas', () => {
    // act
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: project.packageDir,
      encoding: 'utf8',
    });

    // assess
    expect(pack.status).toBe(0);
    const files = (JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map(
      (file) => file.path,
    );
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/consumer/index.js',
        'dist/consumer/types/packages/consumer/src/index.d.ts',
        'dist/consumer/types/packages/bridge/src/events/types.d.ts',
        'schemas/asyncapi.json',
      ]),
    );
  });
});
