/**
 * The cost model (docs/costs.md): runs each operation of the bridge through its real Lambda handler
 * against the emulator and the PDS simulator, counts the S3 and SQS requests the handlers make (at the
 * SDK clients, SQS payloads in 64 KiB chunks as billed) and the time each invocation takes, then prices
 * a stated daily load with bench/costs/model.ts.
 *
 *   node bench/costs.ts [--drops-per-day 1000] [--assets-per-day 10000] [--keys 5000]
 *                       [--review-minutes 5] [--reviews-per-day 1000] [--publications-per-day 1000]
 *                       [--items-per-publication 10] [--latency-ms 50]
 *
 * Measured here: S3 and SQS requests per unit (a drop, an asset, a review-poll run, a new review, a
 * publication), invocations, and handler time with the simulator answering after `--latency-ms`
 * (a stand-in for a real PDS's latency: Lambda time is mostly waiting on it). Added from the
 * deployment, not measured: Lambda's event-source polling (a ReceiveMessage and a DeleteMessageBatch
 * per batch delivered) and the function memory sizes in deploy/*.yml. Drop size does not change the
 * request counts (a drop is read with one streamed GetObject), only the Lambda time.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { mapLimit } from '../packages/bridge/src/core/index.ts';
import {
  createS3Client,
  createSqsClient,
  resetAwsClients,
  s3Client,
  sqsClient,
} from '../packages/bridge/src/lambda/aws-clients.ts';
import { S3StateStore } from '../packages/bridge/src/state/s3/index.ts';
import { watch } from '../packages/bridge/src/state/watch-list.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { demoItems, itemsCsv } from '../packages/local/src/demo-files.ts';
import { startEmulator } from '../packages/local/src/emulator.ts';
import {
  applyEnvironment,
  handlerEnvironment,
  LOCAL_AWS_CREDENTIALS,
} from '../packages/local/src/environment.ts';
import { localLambdaContext, toApiGatewayV2Event } from '../packages/local/src/gateway/index.ts';
import { everyInvocationScoped, invocationStore } from '../packages/local/src/invocation-scope.ts';
import { createLocalResources, type LocalQueue } from '../packages/local/src/resources.ts';
import {
  S3Sequencer,
  s3NotificationEvent,
  s3NotificationRecord,
} from '../packages/local/src/s3-notifications.ts';
import { toSqsRecord } from '../packages/local/src/sqs-event-source.ts';
import { startSimulator } from '../packages/simulator/src/index.ts';
import { approvedReview } from '../test/helpers/polling.ts';
import {
  fixedCosts,
  type Line,
  monthly,
  PRICES,
  s3ClassOf,
  scaleLine,
  sqsBilledRequests,
  total,
  type UnitCost,
} from './costs/model.ts';
import { printTable, root } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/costs.ts',
  summary:
    'The cost model (docs/costs.md): each operation through its real handler against the emulator and the simulator, its S3/SQS requests and time counted, then the monthly bill of the stated daily load.',
  options: {
    'drops-per-day': { type: 'string', default: '1000', value: 'n', description: 'files dropped per day' },
    'assets-per-day': {
      type: 'string',
      default: '10000',
      value: 'n',
      description: 'messaging assets per day',
    },
    keys: { type: 'string', default: '5000', value: 'n', description: 'watched keys' },
    'review-minutes': {
      type: 'string',
      default: '5',
      value: 'min',
      description: 'minutes between review polls',
    },
    'reviews-per-day': {
      type: 'string',
      default: '1000',
      value: 'n',
      description: 'new supplier reviews per day',
    },
    'publications-per-day': {
      type: 'string',
      default: '1000',
      value: 'n',
      description: 'publications per day',
    },
    'items-per-publication': {
      type: 'string',
      default: '10',
      value: 'n',
      description: 'items per publication',
    },
    'latency-ms': {
      type: 'string',
      default: '50',
      value: 'ms',
      description: "the simulator's latency, a stand-in for a real PDS",
    },
  },
});
const LOAD = {
  dropsPerDay: Number(values['drops-per-day']),
  assetsPerDay: Number(values['assets-per-day']),
  keys: Number(values.keys),
  reviewMinutes: Number(values['review-minutes']),
  reviewsPerDay: Number(values['reviews-per-day']),
  publicationsPerDay: Number(values['publications-per-day']),
  itemsPerPublication: Number(values['items-per-publication']),
};
const LATENCY_MS = Number(values['latency-ms']);
const GROWTH_FACTORS = [1, 10, 100];
const DAYS_PER_MONTH = 30;
const XML = readFileSync(path.join(root, 'test/fixtures/gdsn/cic-3.1-review.xml'), 'utf8');

/** A supplier review of `primaryKey`; `serial` makes it a new one. */
function costReview(primaryKey: string, serial: number) {
  return approvedReview(primaryKey, { date: 1_767_603_600_000 + serial });
}

/** Memory of each function, as deploy/*.yml sets it (provider default otherwise). */
function functionMemoryMb(): Record<string, number> {
  const providerDefault = Number(
    /^ {2}memorySize: (\d+)/m.exec(readFileSync(path.join(root, 'serverless.yml'), 'utf8'))?.[1],
  );
  const memory: Record<string, number> = {};
  for (const file of ['ingest', 'pollers', 'api']) {
    const text = readFileSync(path.join(root, 'deploy', `${file}.yml`), 'utf8');
    const functions = text.slice(0, text.indexOf('\nresources:'));
    for (const match of functions.matchAll(/^ {2}([a-z][\w-]*):\n((?: {4}.*\n|\s*\n)*)/gm)) {
      const size = /^ {4}memorySize: (\d+)/m.exec(match[2] ?? '')?.[1];
      memory[match[1] as string] = size ? Number(size) : providerDefault;
    }
  }
  return memory;
}

/** Counts the requests a client sends, by command, with SQS payload bytes for billing. */
class RequestCounter {
  readonly s3 = new Map<string, number>();
  sqsBilled = 0;
  sqsCalls = 0;

  watchS3(client: S3Client): void {
    client.middlewareStack.add(
      (next, context) => (args) => {
        const command = context.commandName ?? 'unknown';
        this.s3.set(command, (this.s3.get(command) ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name: 'costCounter' },
    );
  }

  watchSqs(client: SQSClient): void {
    client.middlewareStack.add(
      (next) => (args) => {
        const input = args.input as { MessageBody?: string; Entries?: Array<{ MessageBody?: string }> };
        const bytes =
          Buffer.byteLength(input.MessageBody ?? '') +
          (input.Entries ?? []).reduce((sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? ''), 0);
        this.sqsBilled += sqsBilledRequests(bytes);
        this.sqsCalls += 1;
        return next(args);
      },
      { step: 'initialize', name: 'costCounter' },
    );
  }

  reset(): void {
    this.s3.clear();
    this.sqsBilled = 0;
    this.sqsCalls = 0;
  }

  snapshot(): { s3Writes: number; s3Reads: number; sqs: number; detail: string } {
    let s3Writes = 0;
    let s3Reads = 0;
    for (const [command, count] of this.s3) {
      const kind = s3ClassOf(command);
      if (kind === 'write') s3Writes += count;
      if (kind === 'read') s3Reads += count;
    }
    const detail = [...this.s3]
      .map(([command, count]) => `${command.replace(/Command$/, '')} ${count}`)
      .join(', ');
    return { s3Writes, s3Reads, sqs: this.sqsBilled, detail };
  }
}

/**
 * The monthly costs that do not depend on the load, from the packaged template when there is one
 * (`npm run package` writes it): alarms, dashboards and the credentials secret.
 */
function printFixedCosts(): void {
  const file = path.join(root, '.serverless/cloudformation-template-update-stack.json');
  let resources: Record<string, { Type: string }>;
  try {
    resources = JSON.parse(readFileSync(file, 'utf8')).Resources;
  } catch {
    process.stdout.write(
      '\nFixed costs: run `npm run package` first to count the alarms, dashboards and secrets of the template.\n',
    );
    return;
  }
  process.stdout.write('\nFixed monthly costs of the packaged template (default parameters):\n\n');
  printTable(
    ['resource', 'count', 'price each', 'per month'],
    fixedCosts(resources).map(({ resource, count, price }) => [
      resource,
      count,
      `$${price.toFixed(2)}`,
      `$${(count * price).toFixed(2)}`,
    ]),
  );
}

/**
 * The month and the review run at 1x, 10x and 100x the stated load, from the same lines: the
 * per-unit lines take more units, the review run more keys per run (scaleLine in ./costs/model.ts).
 */
function printGrowth(lines: readonly Line[]): void {
  const usd = (value: number) => `$${value.toFixed(2)}`;
  const count = (value: number) => Math.round(value).toLocaleString('en-US');
  const run = lines.find((line) => line.growth !== undefined);
  const rows = GROWTH_FACTORS.map((factor) => {
    const scaled = lines.map((line) => scaleLine(line, factor));
    const month = total(scaled.map((line) => monthly(line)));
    const perRun = run ? scaleLine(run, factor).cost : undefined;
    return [
      `${factor}x`,
      count(LOAD.dropsPerDay * factor),
      count(LOAD.assetsPerDay * factor),
      count(LOAD.publicationsPerDay * factor),
      count(LOAD.keys * factor),
      perRun ? count(perRun.invocations) : '',
      perRun ? count(perRun.s3Reads + perRun.s3Writes) : '',
      perRun ? count(perRun.sqsRequests) : '',
      perRun ? perRun.gbSeconds.toFixed(0) : '',
      usd(month.usd.lambda),
      usd(month.usd.s3),
      usd(month.usd.sqs + month.usd.api),
      usd(month.usd.total),
    ];
  });
  process.stdout.write('\nGrowth: the same model at 1x, 10x and 100x the load (fixed costs apart):\n\n');
  printTable(
    [
      'load',
      'drops/day',
      'assets/day',
      'publications/day',
      'watched keys',
      'review run: invocations',
      'S3 requests',
      'SQS requests',
      'GB-s',
      'month: Lambda',
      'S3',
      'SQS+API',
      'total',
    ],
    rows,
  );
}

async function main(): Promise<void> {
  const region = 'us-east-1';
  const memory = functionMemoryMb();
  const sim = await startSimulator({ demoData: true, port: 0, faults: { latencyMs: LATENCY_MS } });
  const emulator = await startEmulator({ port: 0, region });
  const resources = createLocalResources(emulator.server, emulator.endpoint);
  // Powertools needs an invocation store to log and count outside Lambda, created before the
  // environment declares AWS_LAMBDA_MAX_CONCURRENCY (as the local stack does, packages/local/src/stack.ts).
  const store = await invocationStore();
  const restore = applyEnvironment(
    handlerEnvironment({
      awsEndpoint: emulator.endpoint,
      region,
      resources,
      pds: { baseUrl: sim.url, username: sim.username, password: sim.password },
      apiToken: 'cost-model-bench-token',
      pollFirstRun: 'backlog',
      webhookSecretsDir: await mkdtemp(path.join(tmpdir(), 'pds-costs-secrets-')),
      logLevel: 'ERROR',
    }),
  );
  // Deployed, the ingest tags each drop with its outcome (one more S3 write); the local stack turns it
  // off only because the emulator's tagging rewrites the object.
  process.env.INGEST_TAG_OBJECTS = 'true';
  resetAwsClients();
  const counter = new RequestCounter();
  counter.watchS3(s3Client());
  counter.watchSqs(sqsClient());
  // Imported after the environment is set: each handler module reads it once, at import (cold start).
  const { createLocalHandlers } = await import('../packages/local/src/handlers.ts');
  const handlers = everyInvocationScoped(store, createLocalHandlers(process.env));
  // The bench's own clients (seeding, draining queues) are not counted.
  const clientConfig = { endpoint: emulator.endpoint, region, credentials: { ...LOCAL_AWS_CREDENTIALS } };
  const s3 = createS3Client({ ...clientConfig, forcePathStyle: true });
  const sqs = createSqsClient(clientConfig);
  const rows: Array<Array<string | number>> = [];
  const lines: Line[] = [];

  /** Runs `work` with counting and timing; returns the unit cost for `units` units. */
  const measure = async (
    name: string,
    unit: string,
    units: number,
    functionName: string,
    work: (
      invoke: <E, R>(handler: (event: E, context: Context) => Promise<R>, event: E) => Promise<R>,
    ) => Promise<void>,
    extra: { sqs?: number; api?: number } = {},
  ): Promise<UnitCost> => {
    counter.reset();
    let invocations = 0;
    let seconds = 0;
    await work(async (handler, event) => {
      invocations++;
      const started = performance.now();
      try {
        return await handler(event, localLambdaContext({ functionName, timeoutMs: 900_000 }));
      } finally {
        seconds += (performance.now() - started) / 1000;
      }
    });
    const counted = counter.snapshot();
    const memoryGb = (memory[functionName] ?? 512) / 1024;
    const cost: UnitCost = {
      invocations: invocations / units,
      gbSeconds: (seconds * memoryGb) / units,
      s3Writes: counted.s3Writes / units,
      s3Reads: counted.s3Reads / units,
      sqsRequests: (counted.sqs + (extra.sqs ?? 0)) / units,
      apiRequests: (extra.api ?? 0) / units,
    };
    rows.push([
      name,
      `${units} ${unit}`,
      cost.invocations.toFixed(3),
      (seconds / invocations).toFixed(3),
      cost.s3Writes.toFixed(2),
      cost.s3Reads.toFixed(2),
      cost.sqsRequests.toFixed(2),
      counted.detail || '-',
    ]);
    return cost;
  };

  /** Receives up to `max` messages of a queue (bench client, not counted) as Lambda records. */
  const receive = async (queue: LocalQueue, max: number): Promise<SQSRecord[]> => {
    const records: SQSRecord[] = [];
    for (let empty = 0; records.length < max && empty < 2; ) {
      const answer = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: Math.min(10, max - records.length),
          WaitTimeSeconds: 0,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      const messages = answer.Messages ?? [];
      if (messages.length === 0) empty++;
      records.push(...messages.map((message) => toSqsRecord(message, queue.arn, region)));
    }
    return records;
  };
  const ack = async (queue: LocalQueue, records: readonly SQSRecord[]) => {
    for (let start = 0; start < records.length; start += 10) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: records.slice(start, start + 10).map((record, index) => ({
            Id: String(index),
            ReceiptHandle: record.receiptHandle,
          })),
        }),
      );
    }
  };
  const batches = <T>(items: readonly T[], size: number): T[][] =>
    Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
      items.slice(index * size, (index + 1) * size),
    );
  // Lambda's event source: a ReceiveMessage and a DeleteMessageBatch for each batch it delivers.
  const eventSourceRequests = (deliveries: number) => 2 * deliveries;

  try {
    // Drain the demo data's messaging assets first, so the asset phase counts only its own.
    await handlers.pollMessagingAssets({}, localLambdaContext());

    // Ingest: drops of the demo CSV, delivered in batches of 4 as deploy/ingest.yml configures.
    const drops = 20;
    const sequencer = new S3Sequencer();
    const notifications: SQSRecord[] = [];
    for (let index = 0; index < drops; index++) {
      const key = `costs/drop-${index}.csv`;
      const body = Buffer.from(itemsCsv(demoItems(index)));
      const put = await s3.send(
        new PutObjectCommand({ Bucket: resources.buckets.drop, Key: key, Body: body }),
      );
      const event = s3NotificationEvent([
        s3NotificationRecord({
          bucket: resources.buckets.drop,
          key,
          size: body.length,
          etag: put.ETag ?? '',
          sequencer: sequencer.next(),
        }),
      ]);
      notifications.push(
        toSqsRecord(
          { MessageId: `drop-${index}`, ReceiptHandle: `drop-${index}`, Body: JSON.stringify(event) },
          resources.queues.ingest.arn,
          region,
        ),
      );
    }
    const ingestBatches = batches(notifications, 4);
    lines.push({
      operation: 'ingest',
      unit: 'drop',
      unitsPerMonth: LOAD.dropsPerDay * DAYS_PER_MONTH,
      cost: await measure(
        'ingest',
        'drops',
        drops,
        'ingest',
        async (invoke) => {
          for (const Records of ingestBatches) await invoke(handlers.ingest, { Records } as SQSEvent);
        },
        { sqs: eventSourceRequests(ingestBatches.length) },
      ),
    });

    // Messaging assets: a backlog of new assets, polled in one run.
    const assets = 500;
    for (let index = 0; index < assets; index++) sim.state.addMessagingAsset({ xml: XML });
    lines.push({
      operation: 'messaging assets: new',
      unit: 'asset',
      unitsPerMonth: LOAD.assetsPerDay * DAYS_PER_MONTH,
      cost: await measure('poll-messaging-assets, new', 'assets', assets, 'poll-messaging-assets', (invoke) =>
        invoke(handlers.pollMessagingAssets, {}).then(() => undefined),
      ),
    });
    const assetRunsPerMonth = ((24 * 60) / 5) * DAYS_PER_MONTH;
    lines.push({
      operation: 'messaging assets: scheduled run',
      unit: 'run',
      unitsPerMonth: assetRunsPerMonth,
      cost: await measure('poll-messaging-assets, nothing new', 'run', 1, 'poll-messaging-assets', (invoke) =>
        invoke(handlers.pollMessagingAssets, {}).then(() => undefined),
      ),
    });

    // Supplier reviews: the watch list fanned out to the worker, a run with nothing new, then new reviews.
    const store = new S3StateStore({ client: s3, bucket: resources.buckets.state });
    const keys = Array.from({ length: LOAD.keys }, (_, index) => `COST-${String(index).padStart(6, '0')}`);
    // Each watched item has one review already (a known item, as a published one is).
    for (const [index, key] of keys.entries()) sim.state.addSupplierReview(costReview(key, index), XML);
    await mapLimit(keys, 16, (key) => watch(store, [key], { ttlMs: 30 * 86_400_000, source: 'costs' }));
    const reviewRun = async (invoke: Parameters<Parameters<typeof measure>[4]>[0]) => {
      await invoke(handlers.pollSupplierReviews, {});
      for (
        let records = await receive(resources.queues.reviewPoll, 10);
        records.length > 0;
        records = await receive(resources.queues.reviewPoll, 10)
      ) {
        for (const record of records)
          await invoke(handlers.pollSupplierReviewsWorker, { Records: [record] } as SQSEvent);
        await ack(resources.queues.reviewPoll, records);
      }
    };
    const chunks = Math.ceil(LOAD.keys / 100);
    await measure(
      'poll-supplier-reviews, first run after watching',
      'run',
      1,
      'poll-supplier-reviews-worker',
      reviewRun,
    );
    const reviewRunsPerMonth = ((24 * 60) / LOAD.reviewMinutes) * DAYS_PER_MONTH;
    lines.push({
      operation: `supplier reviews: run over ${LOAD.keys} keys`,
      unit: 'run',
      unitsPerMonth: reviewRunsPerMonth,
      // More load watches more keys: each run costs more (one scheduled invocation, then per chunk).
      growth: { perUnit: true, fixed: { invocations: 1 } },
      cost: await measure(
        'poll-supplier-reviews, nothing new',
        'run',
        1,
        'poll-supplier-reviews-worker',
        reviewRun,
        {
          sqs: eventSourceRequests(chunks),
        },
      ),
    });
    const newReviews = 200;
    for (let index = 0; index < newReviews; index++) {
      sim.state.addSupplierReview(
        costReview(keys[(index * 7919) % keys.length] as string, keys.length + index),
        XML,
      );
    }
    const withReviews = await measure(
      'poll-supplier-reviews, 200 new reviews',
      'run',
      1,
      'poll-supplier-reviews-worker',
      reviewRun,
      {
        sqs: eventSourceRequests(chunks),
      },
    );
    const nothingNew = lines.at(-1)?.cost as UnitCost;
    const perReview = (pick: (cost: UnitCost) => number) =>
      Math.max(0, (pick(withReviews) - pick(nothingNew)) / newReviews);
    lines.push({
      operation: 'supplier reviews: new review',
      unit: 'review',
      unitsPerMonth: LOAD.reviewsPerDay * DAYS_PER_MONTH,
      cost: {
        invocations: 0,
        gbSeconds: perReview((cost) => cost.gbSeconds),
        s3Writes: perReview((cost) => cost.s3Writes),
        s3Reads: perReview((cost) => cost.s3Reads),
        sqsRequests: perReview((cost) => cost.sqsRequests),
        apiRequests: 0,
      },
    });

    // Publications: POST /publications through the API handler, then the publish worker.
    const channelId = sim.state.channels[0]?.id ?? '';
    const itemKeys = [...sim.state.items.keys()].slice(0, LOAD.itemsPerPublication);
    const publications = 20;
    lines.push({
      operation: 'publications: API',
      unit: 'publication',
      unitsPerMonth: LOAD.publicationsPerDay * DAYS_PER_MONTH,
      cost: await measure(
        'api, POST /publications',
        'publications',
        publications,
        'api',
        async (invoke) => {
          for (let index = 0; index < publications; index++) {
            const body = Buffer.from(
              JSON.stringify({
                primaryKeys: itemKeys,
                destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: channelId }],
              }),
            );
            const answer = (await invoke(
              handlers.api,
              toApiGatewayV2Event({
                method: 'POST',
                url: '/publications',
                rawHeaders: [
                  'content-type',
                  'application/json',
                  'authorization',
                  'Bearer cost-model-bench-token',
                  'idempotency-key',
                  `cost-${index}`,
                ],
                body,
              }),
            )) as { statusCode?: number };
            if (answer.statusCode !== 202)
              throw new Error(`POST /publications answered ${answer.statusCode}`);
          }
        },
        { api: publications },
      ),
    });
    const queued = await receive(resources.queues.publications, publications);
    const publishBatches = batches(queued, 5);
    lines.push({
      operation: 'publications: worker',
      unit: 'publication',
      unitsPerMonth: LOAD.publicationsPerDay * DAYS_PER_MONTH,
      cost: await measure(
        'publish-worker',
        'publications',
        queued.length,
        'publish-worker',
        async (invoke) => {
          for (const Records of publishBatches) await invoke(handlers.publishWorker, { Records } as SQSEvent);
        },
        { sqs: eventSourceRequests(publishBatches.length) },
      ),
    });
    await ack(resources.queues.publications, queued);

    process.stdout.write(
      `\nMeasured per unit (simulator latency ${LATENCY_MS} ms; SQS requests include Lambda's event-source receives and deletes):\n\n`,
    );
    printTable(
      [
        'operation',
        'measured over',
        'invocations/unit',
        's/invocation',
        'S3 writes/unit',
        'S3 reads/unit',
        'SQS requests/unit',
        'S3 requests seen',
      ],
      rows,
    );

    const month = lines.map((line) => monthly(line));
    const sum = total(month);
    const usd = (value: number) => `$${value.toFixed(2)}`;
    const count = (value: number) => Math.round(value).toLocaleString('en-US');
    process.stdout.write(
      `\nLoad: ${LOAD.dropsPerDay} drops, ${LOAD.assetsPerDay} messaging assets, ${LOAD.reviewsPerDay} new reviews and ${LOAD.publicationsPerDay} publications (${LOAD.itemsPerPublication} items) a day; ${LOAD.keys} watched keys polled every ${LOAD.reviewMinutes} minutes. ${DAYS_PER_MONTH}-day month, ${PRICES.region} list prices (checked ${PRICES.checked}), no free tier.\n\n`,
    );
    printTable(
      [
        'operation',
        'units/month',
        'invocations',
        'GB-s',
        'S3 writes',
        'S3 reads',
        'SQS requests',
        'Lambda',
        'S3',
        'SQS',
        'API',
        'total',
      ],
      [...month, sum].map((line, index) => [
        line.operation,
        index < lines.length ? count(lines[index]?.unitsPerMonth ?? 0) : '',
        count(line.invocations),
        count(line.gbSeconds),
        count(line.s3Writes),
        count(line.s3Reads),
        count(line.sqsRequests),
        usd(line.usd.lambda),
        usd(line.usd.s3),
        usd(line.usd.sqs),
        usd(line.usd.api),
        usd(line.usd.total),
      ]),
    );
    printFixedCosts();
    printGrowth(lines);
  } finally {
    restore();
    resetAwsClients();
    s3.destroy();
    sqs.destroy();
    await emulator.stop();
    await sim.close();
  }
}

await main();
