/**
 * `npm start -- --demo`: one scripted pass through the whole bridge on a running local stack, driven
 * only through its public interfaces (the S3 API, the HTTP API, the SQS event queues, and the PDS to
 * see the imports):
 *
 * drop a CSV and a ZIP → ingest completed events → the items exist in the PDS → the API refuses a
 * request without the token → channels through the API → POST /publications to two channels →
 * publication completed event → the simulator's recipients answer with reviews → supplier-review and
 * messaging-asset events → the confirmations through the API and `pds bridge confirmations`: one
 * channel SYNCHRONISED, the other REVIEW with its corrective action.
 *
 * Before the drop, the example webhook receiver (examples/webhook-receiver, which verifies with the
 * official `standardwebhooks` library) is registered through the API; after the ingest, its signed
 * pds.ingest.completed deliveries must have arrived.
 *
 * Each step has its own timeout and prints one line (✓ or ✗ with the step's name); every event is
 * printed as it arrives. Waiting is polling with a short interval, never a fixed sleep, so a slow
 * machine only makes the demo slower.
 */

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { uploadContentType } from '@pds-bridge/bridge/ingest/upload-name.ts';
import { createS3Client, createSqsClient } from '@pds-bridge/bridge/lambda/aws-clients.ts';
import { type ClosablePdsClient, createPdsClient, PdsNotFoundError } from '@pds-bridge/bridge/pds';
import type { ConfirmationsAnswer } from '@pds-bridge/cli/ops/confirmations.ts';
import { emulatorClientConfig, writeStackFile } from '@pds-bridge/cli/stack-file.ts';
import { DEMO_CHANNEL_IDS } from '@pds-bridge/simulator';
import { type DemoFiles, demoFiles } from './demo-files.ts';
import { DemoStepError } from './errors.ts';
import { type EventEnvelope, formatEventLine, type ReceivedEvent } from './event-format.ts';
import { readEvents } from './event-reader.ts';
import { EVENT_QUEUE_ROLES } from './resources.ts';
import type { RunningLocalStack } from './stack.ts';
import { stackFactsOf } from './stack-facts.ts';

const runFile = promisify(execFile);
/** The `pds` command of this checkout. */
const PDS_COMMAND = fileURLToPath(new URL('../../cli/bin/pds.mjs', import.meta.url));

/** Per-step time limits, generous for a loaded CI machine. */
export const DEMO_TIMEOUTS_MS = Object.freeze({
  webhookRegistered: 20_000,
  drop: 20_000,
  webhookDelivered: 60_000,
  ingest: 60_000,
  imports: 20_000,
  unauthorized: 15_000,
  channels: 20_000,
  publish: 20_000,
  published: 60_000,
  reviews: 90_000,
  messagingAssets: 60_000,
  confirmations: 90_000,
  confirmationsCli: 20_000,
});

export type DemoTimeouts = Record<keyof typeof DEMO_TIMEOUTS_MS, number>;

export interface DemoOptions {
  /** Receives every line the demo prints. */
  out: (line: string) => void;
  timeouts?: Partial<DemoTimeouts>;
  /** The files to drop; fresh ones by default. */
  files?: DemoFiles;
  /** How often conditions are checked; default 100 ms. */
  pollIntervalMs?: number;
}

/** How the demo ended. */
export interface DemoResult {
  ok: boolean;
  /** The name of the step that failed. */
  failedStep?: string;
  reason?: string;
  elapsedMs: number;
  /** Every event received while the demo ran. */
  events: ReceivedEvent[];
}

/**
 * Runs the demo against a running stack (with the simulator: a real PDS does not answer with reviews
 * in time). Never throws for a failed step: the result names it.
 *
 * @example
 * ```ts
 * const result = await runDemo(stack, { out: (line) => process.stdout.write(`${line}\n`) });
 * process.exitCode = result.ok ? 0 : 1;
 * ```
 */
export async function runDemo(stack: RunningLocalStack, options: DemoOptions): Promise<DemoResult> {
  const started = Date.now();
  const session = openSession(stack, options);
  try {
    const demo: Demo = { ...session, files: options.files ?? (await demoFiles()) };
    await registerWebhookReceiver(demo);
    await dropFiles(demo);
    await ingestCompleted(demo);
    await webhookDelivered(demo);
    await itemsImported(demo);
    await unauthorizedRefused(demo);
    const channelId = await firstChannel(demo);
    // The second channel's recipient asks for a correction the first time (the simulator's `review`);
    // the third channel's data pool refuses the publication (the simulator's `data-pool-refuse`).
    const channels = {
      channelId,
      reviewingChannelId: DEMO_CHANNEL_IDS.austria,
      refusingChannelId: DEMO_CHANNEL_IDS.poland,
    };
    const publication: Publication = { ...channels, publicationId: await publish(demo, channels) };
    await publicationCompleted(demo, publication.publicationId);
    const reviewAssetIds = await reviewsReceived(demo);
    await messagingAssetsReceived(demo, reviewAssetIds);
    await apiConfirmations(demo, publication);
    await cliConfirmationsMatch(demo, publication);
    return { ok: true, elapsedMs: Date.now() - started, events: session.events };
  } catch (error) {
    const failure =
      error instanceof DemoStepError
        ? { failedStep: error.step, reason: error.message }
        : { failedStep: 'preparing the demo', reason: (error as Error).message };
    return { ok: false, ...failure, elapsedMs: Date.now() - started, events: session.events };
  } finally {
    await closeSession(session);
  }
}

/** The clients and the event reader every step uses; {@link closeSession} stops them. */
interface DemoSession {
  stack: RunningLocalStack;
  out: (line: string) => void;
  timeouts: DemoTimeouts;
  pollIntervalMs: number;
  s3: S3Client;
  sqs: SQSClient;
  pds: ClosablePdsClient;
  /** Every event received so far, in the order received. */
  events: ReceivedEvent[];
  /** The events received since the last step's line, shown under the next one. */
  unshown: ReceivedEvent[];
  authorization: { authorization: string };
  stopReading: AbortController;
  reading: Promise<void>;
  /** The example webhook receiver, once started. */
  receiver?: WebhookReceiver;
}

/** What examples/webhook-receiver/receiver.mjs's startReceiver answers. */
interface WebhookReceiver {
  url: string;
  events: Array<{ id?: string; type?: string; subject?: string }>;
  rejected: string[];
  close(): Promise<void>;
}

/** The example receiver module, loaded from the checkout (it needs the `standardwebhooks` dev dependency). */
const RECEIVER_MODULE = new URL('../../../examples/webhook-receiver/receiver.mjs', import.meta.url).href;

/** What every step shares: the session and the files dropped. */
interface Demo extends DemoSession {
  files: DemoFiles;
}

/** The publication the demo made, and its two channels. */
interface Publication {
  publicationId: string;
  /** Expected SYNCHRONISED. */
  channelId: string;
  /** Expected REVIEW, with a corrective action. */
  reviewingChannelId: string;
  /** Expected REFUSED_BY_DATA_POOL, with the data pool's reason. */
  refusingChannelId: string;
}

/** Creates the clients and starts printing every event as it arrives. */
function openSession(stack: RunningLocalStack, options: DemoOptions): DemoSession {
  const out = options.out;
  const clientConfig = emulatorClientConfig(stack.aws);
  const s3 = createS3Client({ ...clientConfig, forcePathStyle: true });
  const sqs = createSqsClient(clientConfig);
  const pds = createPdsClient({
    baseUrl: stack.pds.url,
    credentials: { username: stack.pds.username, password: stack.pds.password },
    retry: { maxAttempts: 2 },
  });
  const events: ReceivedEvent[] = [];
  const unshown: ReceivedEvent[] = [];
  const stopReading = new AbortController();
  const reading = readEvents({
    sqs,
    s3,
    queues: EVENT_QUEUE_ROLES.map((role) => stack.queues[role]),
    signal: stopReading.signal,
    waitTimeSeconds: 1,
    onEvent: (received) => {
      events.push(received);
      unshown.push(received);
    },
    onError: (error, queue) => out(`    (receiving from ${queue.name} failed: ${(error as Error).message})`),
  });
  return {
    stack,
    out,
    timeouts: { ...DEMO_TIMEOUTS_MS, ...options.timeouts },
    pollIntervalMs: options.pollIntervalMs ?? 100,
    s3,
    sqs,
    pds,
    events,
    unshown,
    authorization: { authorization: `Bearer ${stack.api.token}` },
    stopReading,
    reading,
  };
}

/** Stops reading events, waiting for the reader to end, and closes the clients. */
async function closeSession(session: DemoSession): Promise<void> {
  session.stopReading.abort();
  await session.reading;
  await session.receiver?.close();
  session.s3.destroy();
  session.sqs.destroy();
  await session.pds.close();
}

/** Runs one step within its time limit and prints its line. */
async function step<T>(
  demo: Pick<DemoSession, 'out' | 'unshown'>,
  name: string,
  timeoutMs: number,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const stepStarted = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const value = await run(signal);
    demo.out(`✓ ${name} (${seconds(Date.now() - stepStarted)})`);
    showEvents(demo);
    return value;
  } catch (error) {
    const reason = signal.aborted
      ? `timed out after ${seconds(timeoutMs)}: ${(error as Error).message}`
      : (error as Error).message;
    demo.out(`✗ ${name}: ${reason}`);
    showEvents(demo);
    throw new DemoStepError(name, reason);
  }
}

/** Event lines shown per type under a step; the rest are counted. */
const EVENT_LINES_PER_TYPE = 2;

/**
 * The events that arrived during a step, under its line: a few of each type, the rest counted, so the
 * output reads step by step instead of interleaving every event with the steps.
 */
function showEvents(demo: Pick<DemoSession, 'out' | 'unshown'>): void {
  const byType = Map.groupBy(
    demo.unshown.splice(0),
    (received) => received.event?.type ?? 'unreadable message',
  );
  for (const [type, received] of byType) {
    for (const each of received.slice(0, EVENT_LINES_PER_TYPE)) demo.out(`    ${formatEventLine(each)}`);
    const more = received.length - EVENT_LINES_PER_TYPE;
    if (more > 0) demo.out(`    … and ${more} more ${type}`);
  }
}

/** Polls `check` until it returns a value; `missing` says what is still awaited when time runs out. */
async function waitFor<T>(
  demo: Pick<DemoSession, 'pollIntervalMs'>,
  signal: AbortSignal,
  check: () => Promise<T | undefined> | T | undefined,
  missing: () => string,
): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (signal.aborted) throw new Error(missing());
    await sleep(demo.pollIntervalMs, undefined, { signal }).catch(() => undefined);
  }
}

function eventsOf(demo: Pick<DemoSession, 'events'>, type: string): EventEnvelope[] {
  return demo.events.flatMap((received) =>
    received.event && received.event.type === type ? [received.event] : [],
  );
}

function dataOf(event: EventEnvelope): Record<string, unknown> {
  return (event.data ?? {}) as Record<string, unknown>;
}

/**
 * The example webhook receiver listens on 127.0.0.1 and is registered through the API for
 * pds.ingest.completed; the secret the API answers once is handed to it.
 */
async function registerWebhookReceiver(demo: Demo): Promise<void> {
  let secret = '';
  const { startReceiver } = (await import(RECEIVER_MODULE)) as {
    startReceiver(options: { secret: () => string }): Promise<WebhookReceiver>;
  };
  const receiver = await startReceiver({ secret: () => secret });
  demo.receiver = receiver;
  await step(
    demo,
    `register the example webhook receiver ${receiver.url}/hook (POST /webhooks/endpoints)`,
    demo.timeouts.webhookRegistered,
    async (signal) => {
      const answer = await fetch(`${demo.stack.api.url}/webhooks/endpoints`, {
        method: 'POST',
        headers: { ...demo.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `${receiver.url}/hook`,
          eventTypes: ['pds.ingest.completed'],
          description: 'npm run demo: examples/webhook-receiver',
        }),
        signal,
      });
      const body = (await answer.json()) as { secret?: string; detail?: string };
      if (answer.status !== 201 || !body.secret) {
        throw new Error(
          `POST /webhooks/endpoints answered ${answer.status}: ${body.detail ?? JSON.stringify(body)}`,
        );
      }
      secret = body.secret;
    },
  );
}

/** The receiver got a signed pds.ingest.completed for each file, verified by the standardwebhooks library. */
async function webhookDelivered(demo: Demo): Promise<void> {
  const drop = demo.stack.buckets.drop;
  const subjects = [demo.files.csv, demo.files.zip].map((file) => `s3://${drop}/${file.name}`);
  const receiver = demo.receiver as WebhookReceiver;
  const arrived = () => new Set(receiver.events.map((event) => String(event.subject)));
  await step(
    demo,
    'signed pds.ingest.completed webhooks arrived, verified by the standardwebhooks library',
    demo.timeouts.webhookDelivered,
    (signal) =>
      waitFor(
        demo,
        signal,
        () => {
          if (receiver.rejected.length > 0)
            throw new Error(`a delivery failed verification: ${receiver.rejected[0]}`);
          const got = arrived();
          return subjects.every((subject) => got.has(subject)) ? true : undefined;
        },
        () =>
          `no verified webhook yet for ${subjects.filter((subject) => !arrived().has(subject)).join(', ')}`,
      ),
  );
}

/** The two files go into the drop bucket through the S3 API, as an uploader would put them. */
async function dropFiles(demo: Demo): Promise<void> {
  const { files, s3 } = demo;
  const drop = demo.stack.buckets.drop;
  await step(
    demo,
    `drop ${files.csv.name} and ${files.zip.name} into s3://${drop}`,
    demo.timeouts.drop,
    async (signal) => {
      for (const file of [files.csv, files.zip]) {
        await s3.send(
          new PutObjectCommand({
            Bucket: drop,
            Key: file.name,
            Body: file.body,
            ContentType: uploadContentType(file.name, undefined),
          }),
          { abortSignal: signal },
        );
      }
    },
  );
}

/** A pds.ingest.completed event for each file; a pds.ingest.failed one ends the demo. */
async function ingestCompleted(demo: Demo): Promise<void> {
  const drop = demo.stack.buckets.drop;
  const subjects = [demo.files.csv, demo.files.zip].map((file) => `s3://${drop}/${file.name}`);
  const completed = () =>
    new Set(eventsOf(demo, 'pds.ingest.completed').map((event) => String(event.subject)));
  await step(demo, 'ingest completed for both files', demo.timeouts.ingest, (signal) =>
    waitFor(
      demo,
      signal,
      () => {
        const failed = eventsOf(demo, 'pds.ingest.failed').find((event) =>
          subjects.includes(String(event.subject)),
        );
        if (failed) throw new Error(`ingest failed for ${failed.subject}: ${dataOf(failed).reason}`);
        const done = completed();
        return subjects.every((subject) => done.has(subject)) ? true : undefined;
      },
      () => {
        const done = completed();
        return `no pds.ingest.completed event yet for ${subjects.filter((subject) => !done.has(subject)).join(', ')}`;
      },
    ),
  );
}

/** Every imported item is known to the PDS (its supplier reviews can be listed). */
async function itemsImported(demo: Demo): Promise<void> {
  const { files, pds } = demo;
  const pending = new Set(files.primaryKeys);
  await step(
    demo,
    `the ${files.primaryKeys.length} imported items exist in the PDS`,
    demo.timeouts.imports,
    (signal) =>
      waitFor(
        demo,
        signal,
        async () => {
          for (const key of [...pending]) {
            try {
              await pds.listSupplierReviews(key, { signal });
              pending.delete(key);
            } catch (error) {
              if (!(error instanceof PdsNotFoundError)) throw error;
            }
          }
          return pending.size === 0 ? true : undefined;
        },
        () => `the PDS does not know ${[...pending].join(', ')} yet`,
      ),
  );
}

async function unauthorizedRefused(demo: Demo): Promise<void> {
  await step(
    demo,
    'the API refuses a request without the token (401)',
    demo.timeouts.unauthorized,
    async (signal) => {
      const response = await fetch(`${demo.stack.api.url}/communication-channels`, { signal });
      await response.body?.cancel();
      if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`);
    },
  );
}

/** The id of the first communication channel the API lists. */
async function firstChannel(demo: Demo): Promise<string> {
  return step(
    demo,
    'communication channels listed through the API',
    demo.timeouts.channels,
    async (signal) => {
      const response = await fetch(`${demo.stack.api.url}/communication-channels`, {
        headers: demo.authorization,
        signal,
      });
      const body = (await response.json()) as { channels?: Array<{ id?: string }> };
      const id = body.channels?.[0]?.id;
      if (response.status !== 200 || !id) {
        throw new Error(
          `GET /communication-channels answered ${response.status} ${JSON.stringify(body).slice(0, 200)}`,
        );
      }
      return id;
    },
  );
}

/** POST /publications of every item to both channels; the publication's id. */
async function publish(demo: Demo, channels: Omit<Publication, 'publicationId'>): Promise<string> {
  const { files } = demo;
  const { channelId, reviewingChannelId, refusingChannelId } = channels;
  return step(
    demo,
    `publication of ${files.primaryKeys.length} items to ${channelId}, ${reviewingChannelId} and ${refusingChannelId} accepted (202)`,
    demo.timeouts.publish,
    async (signal) => {
      const response = await fetch(`${demo.stack.api.url}/publications`, {
        method: 'POST',
        headers: {
          ...demo.authorization,
          'content-type': 'application/json',
          'idempotency-key': `demo-${files.csv.name}`,
        },
        body: JSON.stringify({
          primaryKeys: files.primaryKeys,
          destinations: [channelId, reviewingChannelId, refusingChannelId].map((destinationId) => ({
            destinationType: 'COMMUNICATION_CHANNEL',
            destinationId,
          })),
        }),
        signal,
      });
      const body = (await response.json()) as { publicationId?: string };
      if (response.status !== 202 || !body.publicationId) {
        throw new Error(
          `POST /publications answered ${response.status} ${JSON.stringify(body).slice(0, 300)}`,
        );
      }
      return body.publicationId;
    },
  );
}

/** A pds.publication.completed event, and the API then calls the publication published. */
async function publicationCompleted(demo: Demo, publicationId: string): Promise<void> {
  await step(demo, 'publication completed', demo.timeouts.published, async (signal) => {
    await waitFor(
      demo,
      signal,
      () => {
        const ofThis = (event: EventEnvelope) => dataOf(event).publicationId === publicationId;
        const failed = eventsOf(demo, 'pds.publication.failed').find(ofThis);
        if (failed) throw new Error(`pds.publication.failed: ${dataOf(failed).reason}`);
        return eventsOf(demo, 'pds.publication.completed').find(ofThis);
      },
      () => `no pds.publication.completed event for publication ${publicationId} yet`,
    );
    const response = await fetch(`${demo.stack.api.url}/publications/${publicationId}`, {
      headers: demo.authorization,
      signal,
    });
    const body = (await response.json()) as { status?: string };
    if (body.status !== 'published') {
      throw new Error(
        `GET /publications/${publicationId} says ${body.status ?? response.status}, not published`,
      );
    }
  });
}

/** A pds.supplier-review.received event for every item; the reviews' messaging asset ids. */
async function reviewsReceived(demo: Demo): Promise<number[]> {
  const { primaryKeys } = demo.files;
  return step(
    demo,
    `supplier reviews received for all ${primaryKeys.length} items`,
    demo.timeouts.reviews,
    (signal) =>
      waitFor(
        demo,
        signal,
        () => {
          const reviews = eventsOf(demo, 'pds.supplier-review.received');
          const ids: number[] = [];
          for (const key of primaryKeys) {
            const review = reviews.find((event) => event.subject === `item/${key}`);
            if (!review) return undefined;
            ids.push(Number(dataOf(review).messagingAssetId));
          }
          return ids;
        },
        () => {
          const received = new Set(
            eventsOf(demo, 'pds.supplier-review.received').map((event) => event.subject),
          );
          const missing = primaryKeys.filter((key) => !received.has(`item/${key}`));
          return `no pds.supplier-review.received event yet for ${missing.join(', ')}`;
        },
      ),
  );
}

/** A pds.messaging-asset.received event for the messaging asset of every review. */
async function messagingAssetsReceived(demo: Demo, reviewAssetIds: readonly number[]): Promise<void> {
  const seen = () =>
    new Set(eventsOf(demo, 'pds.messaging-asset.received').map((event) => dataOf(event).messagingAssetId));
  await step(demo, 'messaging assets of the reviews received', demo.timeouts.messagingAssets, (signal) =>
    waitFor(
      demo,
      signal,
      () => {
        const received = seen();
        return reviewAssetIds.every((id) => received.has(id)) ? true : undefined;
      },
      () => {
        const received = seen();
        return `no pds.messaging-asset.received event yet for assets ${reviewAssetIds.filter((id) => !received.has(id)).join(', ')}`;
      },
    ),
  );
}

/** The states the demo expects at its three channels. */
function expectedStates(publication: Publication): Record<string, string> {
  return {
    [publication.channelId]: 'SYNCHRONISED',
    [publication.reviewingChannelId]: 'REVIEW',
    [publication.refusingChannelId]: 'REFUSED_BY_DATA_POOL',
  };
}

/** GET /publications/{id}/confirmations shows the expected states; prints them. */
async function apiConfirmations(demo: Demo, publication: Publication): Promise<void> {
  const { channelId, reviewingChannelId, refusingChannelId, publicationId } = publication;
  const expected = expectedStates(publication);
  await step(
    demo,
    `confirmations through the API: ${channelId} SYNCHRONISED, ${reviewingChannelId} REVIEW with its corrective action, ${refusingChannelId} REFUSED_BY_DATA_POOL with its reason`,
    demo.timeouts.confirmations,
    async (signal) => {
      const answer = await waitFor(
        demo,
        signal,
        async () => {
          const response = await fetch(`${demo.stack.api.url}/publications/${publicationId}/confirmations`, {
            headers: demo.authorization,
            signal,
          });
          const body = (await response.json()) as PublicationConfirmations;
          return confirmationsAsExpected(body, demo.files.primaryKeys, expected) ? body : undefined;
        },
        () =>
          `GET /publications/${publicationId}/confirmations does not show ${JSON.stringify(expected)} for every item yet`,
      );
      demo.out(`    summary: ${JSON.stringify(answer.summary)}`);
      // One line per channel and state (every item of a channel answers alike), with the first reason.
      const groups = Map.groupBy(answer.entries, (entry) => `${entry.channelId} ${entry.state}`);
      for (const [first, ...others] of groups.values()) {
        if (!first) continue;
        const actions = first.correctiveActions.map(
          (action) => `${action.code}: ${action.description ?? ''}`,
        );
        const reason = first.reason ? ` because ${first.reason.code ?? ''}: ${first.reason.text}` : '';
        demo.out(
          `    ${others.length + 1} items at ${first.channelId}: ${first.state}${reason}${actions.length && !reason ? ` (${actions.join('; ')})` : ''}`,
        );
      }
    },
  );
}

/** `pds bridge confirmations` shows the same states; prints them. */
async function cliConfirmationsMatch(demo: Demo, publication: Publication): Promise<void> {
  const { publicationId } = publication;
  await step(demo, 'the same through pds bridge confirmations', demo.timeouts.confirmationsCli, async () => {
    const answer = await cliConfirmations(demo.stack, publicationId);
    const rows = answer.rows as Array<{
      primaryKey: string;
      channelId: string;
      state: string;
      correctiveActions: string[];
      reason?: string;
    }>;
    const asEntries = rows.map(({ reason, ...row }) => ({
      ...row,
      correctiveActions: row.correctiveActions.map((code) => ({ code })),
      ...(reason ? { reason: { text: reason } } : {}),
    }));
    if (
      !confirmationsAsExpected(
        { summary: {}, entries: asEntries },
        demo.files.primaryKeys,
        expectedStates(publication),
      )
    ) {
      throw new Error(`pds bridge confirmations ${publicationId} answered ${JSON.stringify(answer.summary)}`);
    }
    // The same entries the API step printed: said once, not listed again.
    demo.out(`    the same ${rows.length} entries and states as the API: ${JSON.stringify(answer.summary)}`);
  });
}

interface PublicationConfirmations {
  summary: Record<string, number>;
  entries: Array<{
    primaryKey: string;
    channelId: string;
    state: string;
    correctiveActions: Array<{ code: string; description?: string }>;
    reason?: { code?: string; text: string };
  }>;
}

/**
 * Every item is in the expected state at each channel, every REVIEW names a corrective action and
 * every REFUSED_BY_DATA_POOL a reason.
 */
function confirmationsAsExpected(
  answer: Pick<PublicationConfirmations, 'entries'> & { summary: unknown },
  primaryKeys: readonly string[],
  expected: Record<string, string>,
): boolean {
  return primaryKeys.every((primaryKey) =>
    Object.entries(expected).every(([channelId, state]) =>
      answer.entries.some(
        (entry) =>
          entry.primaryKey === primaryKey &&
          entry.channelId === channelId &&
          entry.state === state &&
          (state !== 'REVIEW' || entry.correctiveActions.length > 0) &&
          (state !== 'REFUSED_BY_DATA_POOL' || (entry.reason?.text ?? '') !== ''),
      ),
    ),
  );
}

/**
 * `pds bridge confirmations PUBLICATION_ID --json` against the running stack, run as an operator runs
 * it: the `pds` command in a process of its own (the local stack does not import the CLI).
 */
async function cliConfirmations(
  stack: RunningLocalStack,
  publicationId: string,
): Promise<ConfirmationsAnswer> {
  const directory = await mkdtemp(join(tmpdir(), 'pds-demo-'));
  try {
    const stackFile = join(directory, 'stack.json');
    await writeStackFile(stackFile, stackFactsOf(stack));
    const { stdout } = await runFile(
      process.execPath,
      [PDS_COMMAND, 'bridge', 'confirmations', publicationId, '--stack-file', stackFile, '--json'],
      { timeout: DEMO_TIMEOUTS_MS.confirmationsCli, env: { ...process.env, NO_COLOR: '1' } },
    ).catch((error: Error & { stderr?: string; code?: number }) => {
      throw new Error(
        `pds bridge confirmations exited with ${error.code ?? 'an error'}: ${(error.stderr ?? error.message).trim()}`,
      );
    });
    return JSON.parse(stdout) as ConfirmationsAnswer;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
