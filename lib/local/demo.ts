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
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client, createSqsClient } from '../aws.ts';
import { uploadContentType } from '../ingest/upload-name.ts';
import type { ConfirmationsAnswer } from '../ops/confirmations.ts';
import { createPdsClient, PdsNotFoundError } from '../pds/index.ts';
import { DEMO_CHANNEL_IDS } from '../simulator/index.ts';
import { type DemoFiles, demoFiles } from './demo-files.ts';
import { DemoStepError } from './errors.ts';
import { type EventEnvelope, formatEventLine, type ReceivedEvent } from './event-format.ts';
import { readEvents } from './event-reader.ts';
import { EVENT_QUEUE_ROLES } from './resources.ts';
import type { RunningLocalStack } from './stack.ts';
import { emulatorClientConfig, stackFactsOf, writeStackFile } from './stack-file.ts';

const runFile = promisify(execFile);
/** The `pds` command of this checkout. */
const PDS_COMMAND = fileURLToPath(new URL('../../bin/pds.mjs', import.meta.url));

/** Per-step time limits, generous for a loaded CI machine. */
export const DEMO_TIMEOUTS_MS = Object.freeze({
  drop: 20_000,
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
  const timeouts: DemoTimeouts = { ...DEMO_TIMEOUTS_MS, ...options.timeouts };
  const interval = options.pollIntervalMs ?? 100;
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
  const stopReading = new AbortController();
  const reading = readEvents({
    sqs,
    s3,
    queues: EVENT_QUEUE_ROLES.map((role) => stack.queues[role]),
    signal: stopReading.signal,
    waitTimeSeconds: 1,
    onEvent: (received) => {
      events.push(received);
      out(`    ${formatEventLine(received)}`);
    },
    onError: (error, queue) => out(`    (receiving from ${queue.name} failed: ${(error as Error).message})`),
  });

  /** Runs one step within its time limit and prints its line. */
  async function step<T>(name: string, timeoutMs: number, run: (signal: AbortSignal) => Promise<T>) {
    const stepStarted = Date.now();
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const value = await run(signal);
      out(`✓ ${name} (${seconds(Date.now() - stepStarted)})`);
      return value;
    } catch (error) {
      const reason = signal.aborted
        ? `timed out after ${seconds(timeoutMs)}: ${(error as Error).message}`
        : (error as Error).message;
      out(`✗ ${name}: ${reason}`);
      throw new DemoStepError(name, reason);
    }
  }

  /** Polls `check` until it returns a value; `missing` says what is still awaited when time runs out. */
  async function waitFor<T>(
    signal: AbortSignal,
    check: () => Promise<T | undefined> | T | undefined,
    missing: () => string,
  ) {
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (signal.aborted) throw new Error(missing());
      await sleep(interval, undefined, { signal }).catch(() => undefined);
    }
  }

  const eventsOf = (type: string) =>
    events.flatMap((received) => (received.event && received.event.type === type ? [received.event] : []));
  const dataOf = (event: EventEnvelope) => (event.data ?? {}) as Record<string, unknown>;

  try {
    const files = options.files ?? (await demoFiles());
    const drop = stack.buckets.drop;
    const subjects = [files.csv, files.zip].map((file) => `s3://${drop}/${file.name}`);

    await step(
      `drop ${files.csv.name} and ${files.zip.name} into s3://${drop}`,
      timeouts.drop,
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

    await step('ingest completed for both files', timeouts.ingest, (signal) =>
      waitFor(
        signal,
        () => {
          const failed = eventsOf('pds.ingest.failed').find((event) =>
            subjects.includes(String(event.subject)),
          );
          if (failed) throw new Error(`ingest failed for ${failed.subject}: ${dataOf(failed).reason}`);
          const done = new Set(eventsOf('pds.ingest.completed').map((event) => String(event.subject)));
          return subjects.every((subject) => done.has(subject)) ? true : undefined;
        },
        () =>
          `no pds.ingest.completed event yet for ${subjects.filter((subject) => !eventsOf('pds.ingest.completed').some((event) => event.subject === subject)).join(', ')}`,
      ),
    );

    const pending = new Set(files.primaryKeys);
    await step(
      `the ${files.primaryKeys.length} imported items exist in the PDS`,
      timeouts.imports,
      (signal) =>
        waitFor(
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

    await step('the API refuses a request without the token (401)', timeouts.unauthorized, async (signal) => {
      const response = await fetch(`${stack.api.url}/communication-channels`, { signal });
      await response.body?.cancel();
      if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`);
    });

    const authorization = { authorization: `Bearer ${stack.api.token}` };
    const channelId = await step(
      'communication channels listed through the API',
      timeouts.channels,
      async (signal) => {
        const response = await fetch(`${stack.api.url}/communication-channels`, {
          headers: authorization,
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

    // The second channel's recipient asks for a correction the first time (the simulator's `review`).
    const reviewingChannelId = DEMO_CHANNEL_IDS.austria;
    const publicationId = await step(
      `publication of ${files.primaryKeys.length} items to ${channelId} and ${reviewingChannelId} accepted (202)`,
      timeouts.publish,
      async (signal) => {
        const response = await fetch(`${stack.api.url}/publications`, {
          method: 'POST',
          headers: {
            ...authorization,
            'content-type': 'application/json',
            'idempotency-key': `demo-${files.csv.name}`,
          },
          body: JSON.stringify({
            primaryKeys: files.primaryKeys,
            destinations: [channelId, reviewingChannelId].map((destinationId) => ({
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

    await step('publication completed', timeouts.published, async (signal) => {
      await waitFor(
        signal,
        () => {
          const ofThis = (event: EventEnvelope) => dataOf(event).publicationId === publicationId;
          const failed = eventsOf('pds.publication.failed').find(ofThis);
          if (failed) throw new Error(`pds.publication.failed: ${dataOf(failed).reason}`);
          return eventsOf('pds.publication.completed').find(ofThis);
        },
        () => `no pds.publication.completed event for publication ${publicationId} yet`,
      );
      const response = await fetch(`${stack.api.url}/publications/${publicationId}`, {
        headers: authorization,
        signal,
      });
      const body = (await response.json()) as { status?: string };
      if (body.status !== 'published') {
        throw new Error(
          `GET /publications/${publicationId} says ${body.status ?? response.status}, not published`,
        );
      }
    });

    const reviewAssetIds = await step(
      `supplier reviews received for all ${files.primaryKeys.length} items`,
      timeouts.reviews,
      (signal) =>
        waitFor(
          signal,
          () => {
            const reviews = eventsOf('pds.supplier-review.received');
            const ids: number[] = [];
            for (const key of files.primaryKeys) {
              const review = reviews.find((event) => event.subject === `item/${key}`);
              if (!review) return undefined;
              ids.push(Number(dataOf(review).messagingAssetId));
            }
            return ids;
          },
          () => {
            const received = new Set(eventsOf('pds.supplier-review.received').map((event) => event.subject));
            const missing = files.primaryKeys.filter((key) => !received.has(`item/${key}`));
            return `no pds.supplier-review.received event yet for ${missing.join(', ')}`;
          },
        ),
    );

    await step('messaging assets of the reviews received', timeouts.messagingAssets, (signal) =>
      waitFor(
        signal,
        () => {
          const seen = new Set(
            eventsOf('pds.messaging-asset.received').map((event) => dataOf(event).messagingAssetId),
          );
          return reviewAssetIds.every((id) => seen.has(id)) ? true : undefined;
        },
        () => {
          const seen = new Set(
            eventsOf('pds.messaging-asset.received').map((event) => dataOf(event).messagingAssetId),
          );
          return `no pds.messaging-asset.received event yet for assets ${reviewAssetIds.filter((id) => !seen.has(id)).join(', ')}`;
        },
      ),
    );
    const expected = { [channelId]: 'SYNCHRONISED', [reviewingChannelId]: 'REVIEW' };
    await step(
      `confirmations through the API: ${channelId} SYNCHRONISED, ${reviewingChannelId} REVIEW with its corrective action`,
      timeouts.confirmations,
      async (signal) => {
        const answer = await waitFor(
          signal,
          async () => {
            const response = await fetch(`${stack.api.url}/publications/${publicationId}/confirmations`, {
              headers: authorization,
              signal,
            });
            const body = (await response.json()) as PublicationConfirmations;
            return confirmationsAsExpected(body, files.primaryKeys, expected) ? body : undefined;
          },
          () =>
            `GET /publications/${publicationId}/confirmations does not show ${JSON.stringify(expected)} for every item yet`,
        );
        out(`    summary: ${JSON.stringify(answer.summary)}`);
        for (const entry of answer.entries) {
          const actions = entry.correctiveActions.map(
            (action) => `${action.code}: ${action.description ?? ''}`,
          );
          out(
            `    ${entry.primaryKey} at ${entry.channelId}: ${entry.state}${actions.length ? ` (${actions.join('; ')})` : ''}`,
          );
        }
      },
    );

    await step('the same through pds bridge confirmations', timeouts.confirmationsCli, async () => {
      const answer = await cliConfirmations(stack, publicationId);
      const rows = answer.rows as Array<{
        primaryKey: string;
        channelId: string;
        state: string;
        correctiveActions: string[];
      }>;
      const asEntries = rows.map((row) => ({
        ...row,
        correctiveActions: row.correctiveActions.map((code) => ({ code })),
      }));
      if (!confirmationsAsExpected({ summary: {}, entries: asEntries }, files.primaryKeys, expected)) {
        throw new Error(
          `pds bridge confirmations ${publicationId} answered ${JSON.stringify(answer.summary)}`,
        );
      }
      out(`    ${JSON.stringify(answer.summary)}`);
      for (const row of rows) {
        out(
          `    ${row.primaryKey} at ${row.channelId}: ${row.state} ${row.correctiveActions.join('; ')}`.trimEnd(),
        );
      }
    });
    return { ok: true, elapsedMs: Date.now() - started, events };
  } catch (error) {
    const failure =
      error instanceof DemoStepError
        ? { failedStep: error.step, reason: error.message }
        : { failedStep: 'preparing the demo', reason: (error as Error).message };
    return { ok: false, ...failure, elapsedMs: Date.now() - started, events };
  } finally {
    stopReading.abort();
    await reading;
    s3.destroy();
    sqs.destroy();
    await pds.close();
  }
}

interface PublicationConfirmations {
  summary: Record<string, number>;
  entries: Array<{
    primaryKey: string;
    channelId: string;
    state: string;
    correctiveActions: Array<{ code: string; description?: string }>;
  }>;
}

/** Every item is in the expected state at each channel, and every REVIEW names a corrective action. */
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
          (state !== 'REVIEW' || entry.correctiveActions.length > 0),
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
