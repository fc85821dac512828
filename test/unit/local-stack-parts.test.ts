import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { API_SETTINGS, apiSettingsOf } from '../../packages/bridge/src/api/index.ts';
import { loadConfig } from '../../packages/bridge/src/config/index.ts';
import {
  INGEST_EVENT_TYPES,
  INGEST_SETTINGS,
  ingestOptionsFrom,
} from '../../packages/bridge/src/ingest/settings.ts';
import {
  MESSAGING_ASSET_POLL_SETTINGS,
  REVIEW_POLL_SETTINGS,
} from '../../packages/bridge/src/polling/settings.ts';
import { WORKER_SETTINGS } from '../../packages/bridge/src/publications/settings.ts';
import { StackFileError } from '../../packages/cli/src/errors.ts';
import { readStackFile, removeStackFile, writeStackFile } from '../../packages/cli/src/stack-file.ts';
import { bannerLines } from '../../packages/local/src/banner.ts';
import { demoFiles, itemsCsv } from '../../packages/local/src/demo-files.ts';
import { applyEnvironment, handlerEnvironment } from '../../packages/local/src/environment.ts';
import {
  createLocalResources,
  LOCAL_BUCKETS,
  LOCAL_QUEUES,
  type LocalResources,
} from '../../packages/local/src/resources.ts';
import type { RunningLocalStack } from '../../packages/local/src/stack.ts';
import { stackFactsOf } from '../../packages/local/src/stack-facts.ts';
import { parseCsv } from '../../packages/simulator/src/csv.ts';
import { problemsOf } from '../../packages/simulator/src/datamodel.ts';

const ENDPOINT = 'http://127.0.0.1:4566';

/** The resources createLocalResources returns, built against a recording stand-in for the emulator. */
function localResources(): LocalResources {
  const server = {
    createBucket: () => ({ bucketName: '' }),
    inspectQueue: () => undefined,
    createQueue: (name: string) => ({
      queueArn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
      queueUrl: '',
      queueName: name,
    }),
  };
  return createLocalResources(server as never, ENDPOINT);
}

function fakeStack(overrides: Partial<RunningLocalStack> = {}): RunningLocalStack {
  const resources = localResources();
  return {
    aws: { endpoint: ENDPOINT, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test' },
    buckets: { ...LOCAL_BUCKETS },
    queues: resources.queues,
    deadLetterQueues: resources.deadLetterQueues,
    api: { url: 'http://127.0.0.1:3000', token: 'token-0123456789abcdef' },
    pds: { url: 'http://127.0.0.1:4010', username: 'demo', password: 'demo', simulated: true },
    rates: { messagingAssetsMs: 10_000, supplierReviewsMs: 15_000 },
    ingest: { prefix: '', suffixes: [] },
    webhookSecretsDir: '/tmp/pds-webhook-secrets-test',
    stop: async () => undefined,
    ...overrides,
  };
}

describe('createLocalResources', () => {
  it('creates every queue with the dead-letter queue and receive count of deploy/*.yml', () => {
    // prepare
    const created: Array<{ name: string; attributes: Record<string, string> }> = [];
    const server = {
      createBucket: () => ({ bucketName: '' }),
      inspectQueue: () => undefined,
      createQueue: (name: string, options: { attributes: Record<string, string> }) => {
        created.push({ name, attributes: options.attributes });
        return { queueArn: `arn:aws:sqs:us-east-1:000000000000:${name}`, queueUrl: '', queueName: name };
      },
    };

    // act
    const resources = createLocalResources(server as never, ENDPOINT);

    // assess
    const redrive = (name: string) =>
      JSON.parse(created.find((queue) => queue.name === name)?.attributes.RedrivePolicy ?? '{}');
    expect(redrive('pds-bridge-local-ingest')).toEqual({
      deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:pds-bridge-local-ingest-dlq',
      maxReceiveCount: '5',
    });
    expect(redrive('pds-bridge-local-publications').maxReceiveCount).toBe('10');
    expect(redrive('pds-bridge-local-review-poll').maxReceiveCount).toBe('3');
    expect(redrive('pds-bridge-local-supplier-review-events').maxReceiveCount).toBe('5');
    expect(redrive('pds-bridge-local-events').maxReceiveCount).toBe('5');
    expect(resources.queues.ingest.url).toBe(`${ENDPOINT}/000000000000/pds-bridge-local-ingest`);
    expect(Object.keys(resources.queues).sort()).toEqual(Object.keys(LOCAL_QUEUES).sort());
  });

  it('keeps queues that already exist (restored from a data directory) instead of replacing them', () => {
    // prepare
    const replaced: string[] = [];
    const server = {
      createBucket: () => ({ bucketName: '' }),
      inspectQueue: (name: string) => ({ arn: `arn:aws:sqs:us-east-1:000000000000:${name}` }),
      createQueue: (name: string) => {
        replaced.push(name);
        return { queueArn: '', queueUrl: '', queueName: name };
      },
    };

    // act
    const resources = createLocalResources(server as never, ENDPOINT);

    // assess
    expect(replaced).toEqual([]);
    expect(resources.queues.events.arn).toBe('arn:aws:sqs:us-east-1:000000000000:pds-bridge-local-events');
  });
});

describe('handlerEnvironment', () => {
  const input = {
    awsEndpoint: ENDPOINT,
    region: 'us-east-1',
    resources: localResources(),
    pds: { baseUrl: 'http://127.0.0.1:4010', username: 'demo', password: 'demo' },
    apiToken: 'token-0123456789abcdef',
    pollFirstRun: 'backlog' as const,
    webhookSecretsDir: '/tmp/pds-webhook-secrets-test',
  };

  it('gives every handler a configuration its cold start accepts', () => {
    // prepare
    const env: NodeJS.ProcessEnv = { PDS_CREDENTIALS_SECRET_ID: 'prod-secret', AWS_PROFILE: 'prod' };
    applyEnvironment(handlerEnvironment(input), env);

    // act
    const ingest = loadConfig(env, {
      require: ['STATE_BUCKET', 'INGEST_BUCKETS'],
      eventTypes: INGEST_EVENT_TYPES,
      settings: INGEST_SETTINGS,
    });
    const api = loadConfig(env, {
      settings: API_SETTINGS,
      require: ['STATE_BUCKET', 'PUBLICATION_QUEUE_URL'],
    });
    const messagingAssets = loadConfig(env, {
      require: ['STATE_BUCKET'],
      eventTypes: ['pds.messaging-asset.received'],
      settings: MESSAGING_ASSET_POLL_SETTINGS,
    });
    const reviews = loadConfig(env, {
      require: ['STATE_BUCKET'],
      eventTypes: ['pds.supplier-review.received'],
      settings: REVIEW_POLL_SETTINGS,
    });
    const worker = loadConfig(env, {
      settings: WORKER_SETTINGS,
      require: ['STATE_BUCKET'],
      eventTypes: ['pds.publication.completed', 'pds.publication.failed'],
    });

    // assess
    expect(ingestOptionsFrom(ingest.settings).tagObjects).toBe(false);
    expect(apiSettingsOf(api.settings).auth).toEqual({ mode: 'bearer', token: 'token-0123456789abcdef' });
    expect(messagingAssets.settings.POLL_FIRST_RUN).toBe('backlog');
    expect(reviews.settings.REVIEW_POLL_QUEUE_URL).toBe(input.resources.queues.reviewPoll.url);
    expect(worker.pdsCredentials).toEqual({ kind: 'basic', username: 'demo' });
    expect(env.AWS_PROFILE).toBeUndefined();
    expect(env.AWS_ENDPOINT_URL_S3).toBe(ENDPOINT);
  });

  it('keeps tuning variables the user set and restores everything it changed', () => {
    // prepare
    const env: NodeJS.ProcessEnv = {
      POLL_FIRST_RUN: 'now',
      AWS_REGION: 'eu-west-1',
      INGEST_TAG_OBJECTS: 'true',
    };

    // act
    const restore = applyEnvironment(handlerEnvironment(input), env);
    const applied = { ...env };
    restore();

    // assess
    expect(applied.POLL_FIRST_RUN).toBe('now');
    expect(applied.AWS_REGION).toBe('us-east-1');
    expect(applied.INGEST_TAG_OBJECTS).toBe('false');
    expect(env).toEqual({ POLL_FIRST_RUN: 'now', AWS_REGION: 'eu-west-1', INGEST_TAG_OBJECTS: 'true' });
  });
});

describe('stack file', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'local-stack-file-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives drop and events what they need, readable by its owner only and without a real PDS password', async () => {
    // prepare
    const path = join(dir, 'nested', 'stack.json');
    const facts = stackFactsOf(
      fakeStack({
        pds: { url: 'https://pds.example.com', username: 'u', password: 'real-secret', simulated: false },
      }),
    );

    // act
    await writeStackFile(path, facts);
    const read = await readStackFile(path, { isRunning: () => true });

    // assess
    expect(read).toEqual(facts);
    expect(read.eventQueues.map((queue) => queue.name)).toEqual([
      'pds-bridge-local-events',
      'pds-bridge-local-messaging-asset-events',
      'pds-bridge-local-supplier-review-events',
    ]);
    expect(await readFile(path, 'utf8')).not.toContain('real-secret');
    expect((await stat(path)).mode & 0o077).toBe(0);
  });

  it('says no stack runs when the file is missing, or that its stack is gone', async () => {
    // prepare
    const path = join(dir, 'stale.json');
    await writeStackFile(path, stackFactsOf(fakeStack(), 999_999));

    // act + assess
    await expect(readStackFile(join(dir, 'missing.json'))).rejects.toThrow(
      /No local stack is running.*npm start/,
    );
    await expect(readStackFile(path, { isRunning: () => false })).rejects.toThrow(
      /process 999999\) is no longer running/,
    );
  });

  it('refuses a damaged file with the fix', async () => {
    const path = join(dir, 'damaged.json');
    await writeFile(path, '{"version":1}');

    await expect(readStackFile(path)).rejects.toThrow(StackFileError);
    await expect(readStackFile(path)).rejects.toThrow(/not a local stack file.*delete it/);
  });

  it('is removed only by the process that wrote it', async () => {
    // prepare
    const path = join(dir, 'owned.json');
    await writeStackFile(path, stackFactsOf(fakeStack(), 4242));

    // act
    await removeStackFile(path, 1);
    const keptForOther = await stat(path).then(() => true);
    await removeStackFile(path, 4242);

    // assess
    expect(keptForOther).toBe(true);
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
  });
});

describe('bannerLines', () => {
  it('names the webhooks and the EventBridge backend, or that there is none and how to add one', () => {
    // act
    const without = bannerLines(fakeStack()).join('\n');
    const withBus = bannerLines(fakeStack({ eventBridgeEndpoint: 'http://127.0.0.1:5000' })).join('\n');

    // assess
    expect(without).toContain(
      'Webhooks        signed POSTs to the endpoints you register (npx pds bridge webhooks create URL)',
    );
    expect(without).toContain(
      'EventBridge     none (--eventbridge http://127.0.0.1:5000 with moto_server adds a bus)',
    );
    expect(withBus).toContain(
      "EventBridge     http://127.0.0.1:5000: every event also goes to the stack's bus there",
    );
  });

  it('tells where to drop files, how to call the API with the token and how to read events', () => {
    const text = bannerLines(fakeStack(), { stackFile: '.local/stack.json' }).join('\n');

    expect(text).toContain(
      'aws s3 cp items.csv s3://pds-bridge-local-drop/ --endpoint-url http://127.0.0.1:4566',
    );
    expect(text).toContain('npm run drop -- ');
    expect(text).toContain(
      "curl -H 'Authorization: Bearer token-0123456789abcdef' http://127.0.0.1:3000/communication-channels",
    );
    expect(text).toContain('npm run events');
    expect(text).toContain('PDS simulator   http://127.0.0.1:4010   user demo, password demo');
    expect(text).toContain('.local/stack.json');
  });

  it('gives the AWS CLI its region in both variables, as AWS CLI v1 reads only AWS_DEFAULT_REGION', () => {
    // Act
    const text = bannerLines(fakeStack()).join('\n');

    // Assess
    expect(text).toMatch(/AWS_REGION=(\S+) AWS_DEFAULT_REGION=\1\b/);
  });

  it('says every key is ingested and which files the simulator creates items from, without filters', () => {
    const text = bannerLines(fakeStack()).join('\n');

    expect(text).toContain(
      'Drop files to ingest them: every key (no INGEST_PREFIX or INGEST_SUFFIXES set); the simulator creates items from .csv and .json files (also as members of a .zip), other files are accepted and create none.',
    );
    expect(text).not.toContain('(.csv, .json, .zip)');
  });

  it('shows the active INGEST_PREFIX and INGEST_SUFFIXES', () => {
    const text = bannerLines(fakeStack({ ingest: { prefix: 'incoming/', suffixes: ['.csv', '.zip'] } })).join(
      '\n',
    );

    expect(text).toContain(
      'Drop files to ingest them: keys under incoming/ ending in .csv, .zip only (INGEST_PREFIX, INGEST_SUFFIXES)',
    );
  });

  it('names a real PDS without its password', () => {
    const text = bannerLines(
      fakeStack({
        pds: { url: 'https://pds.example.com', username: 'ops', password: 'real-secret', simulated: false },
      }),
    ).join('\n');

    expect(text).toContain('PDS             https://pds.example.com   user ops');
    expect(text).not.toContain('real-secret');
  });
});

describe('demoFiles', () => {
  it('carries items the simulator’s data model accepts without a problem, under valid GTIN keys', async () => {
    // act
    const files = await demoFiles(42);

    // assess
    const csvItems = csvRecords(files.csv.body.toString('utf8'));
    expect(csvItems).toHaveLength(3);
    for (const row of csvItems) {
      const item = { ...row, netContent: Number(row.netContent) };
      expect(problemsOf(item)).toEqual([]);
    }
    expect(new Set(files.primaryKeys).size).toBe(6);
    for (const key of files.primaryKeys) expect(key).toMatch(/^0614141\d{6}$/);
  });

  it('zips a JSON array and a CSV, the rest of the keys', async () => {
    // prepare
    const files = await demoFiles(42);

    // act
    const members = await unzip(files.zip.body);

    // assess
    expect([...members.keys()]).toEqual(files.zipMembers);
    const json = JSON.parse(members.get('items.json') ?? '[]') as Array<{ primaryKey__: string }>;
    const csv = csvRecords(members.get('more-items.csv') ?? '');
    expect([...json.map((item) => item.primaryKey__), ...csv.map((row) => row.primaryKey__)]).toEqual(
      files.primaryKeys.slice(3),
    );
    expect(csv[0]?.name).toBe('Hand Soap "Lavender"');
  });

  it('quotes CSV cells with commas, quotes and line breaks', () => {
    expect(itemsCsv([{ primaryKey__: '1', name: 'A, "B"\nC' }])).toContain('1,"A, ""B""\nC"');
  });
});

function csvRecords(text: string): Array<Record<string, string>> {
  const { header, rows } = parseCsv(text);
  return rows.map((row) => Object.fromEntries(header.map((name, index) => [name, row[index] ?? ''])));
}

async function unzip(buffer: Buffer): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  const members = new Map<string, string>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    members.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
  }
  return members;
}
