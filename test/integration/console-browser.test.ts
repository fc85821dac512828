/**
 * The operators' console (packages/cli/src/console) in a real headless browser against a local stack
 * after the demo's traffic: each page loads without a console error, passes axe-core's WCAG A/AA
 * check, shows the numbers the API and `pds bridge status` give, filters and pages; strings from
 * outside (a recipient's CIC reason, an endpoint's answer) are shown as text; a screenshot of each page
 * is written to test-results/console/. One browser, one stack.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import {
  createEvent,
  FailureRecordingSink,
  recentPublishFailures,
} from '../../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { createS3Client, createSqsClient } from '../../packages/bridge/src/lambda/aws-clients.ts';
import { createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import {
  auditMessagingAssets,
  recordedAudit,
} from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { recordDelivery } from '../../packages/bridge/src/webhooks/deliveries.ts';
import type { RunningConsole } from '../../packages/cli/src/console/server.ts';
import { startConsoleOn } from '../../packages/cli/src/console/start.ts';
import { connectOperator } from '../../packages/cli/src/ops/connect.ts';
import { bridgeStatus } from '../../packages/cli/src/ops/status.ts';
import { emulatorClientConfig } from '../../packages/cli/src/stack-file.ts';
import { runDemo } from '../../packages/local/src/demo.ts';
import type { RunningLocalStack } from '../../packages/local/src/stack.ts';
import { DEMO_CHANNEL_IDS } from '../../packages/simulator/src/demo-data.ts';
import { axeViolations, launchChromium, SCREENSHOT_DIR, watchProblems } from '../helpers/browser.ts';
import { cic, reviewReceived } from '../helpers/confirmation-ledger-suite.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { startTestStack } from '../helpers/test-stack.ts';

/** Markup, an escape sequence, a bell and a right-to-left override: what a partner might write. */
const HOSTILE = '<img src=x onerror=alert(1)><b>bold</b>\u001b[31mred\u0007 \u202Eevil';
const ENDPOINT_ANSWER = '<script>alert("answer")</script>\u001b[2J<i>oops</i>';

/** The text a page shows for `text`: every control byte and bidi override as a visible \uXXXX. */
function shown(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters the console shows as escapes
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

let stack: RunningLocalStack;
let console_: RunningConsole;
let browser: Browser;
let page: Page;
let problems: string[];
let failing: Server;
let failingEndpointId: string;
const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
  const answer = await fetch(`${stack.api.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${stack.api.token}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });
  expect(answer.status, `${path}: ${await answer.clone().text()}`).toBeLessThan(300);
  return (await answer.json()) as T;
};

const target = () => ({
  stage: 'local',
  stateBucket: stack.buckets.state,
  emulator: emulatorClientConfig(stack.aws),
});

/** A webhook endpoint that always answers 500 with markup and control bytes. */
async function startFailingEndpoint(): Promise<string> {
  failing = createServer((request, response) => {
    request.resume();
    response.writeHead(500, { 'content-type': 'text/html' }).end(ENDPOINT_ANSWER);
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook`;
}

/** A published item whose recipient asked for a correction in words full of markup (as the poller records a CIC). */
async function recordHostileReview(): Promise<void> {
  const s3 = createS3Client({ ...emulatorClientConfig(stack.aws), forcePathStyle: true });
  try {
    const ledger = new ConfirmationLedger({
      store: new S3StateStore({ client: s3, bucket: stack.buckets.state }),
      sink: new RecordingSink(),
      deadlineMs: 48 * 3_600_000,
    });
    const channel = DEMO_CHANNEL_IDS.france;
    await ledger.recordPublication({
      publicationId: 'console-test-publication',
      // An hour before the review the helper dates (2026-11-20T11:00Z), so the review is the newer fact.
      publishedAt: '2026-11-20T09:00:00.000Z',
      primaryKeys: ['00614141777772'],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: channel }],
    });
    const review = cic('REVIEW', '00614141777772', 1, {
      statuses: [
        {
          code: 'CIC999',
          descriptions: [{ languageCode: 'en', text: HOSTILE }],
          correctiveActions: [{ code: 'ACTION_NEEDED', expectedCorrectiveInformation: 'Fix <u>this</u>.' }],
        },
      ],
    });
    await ledger.recordReviews([reviewReceived('00614141777772', channel, 9001, [review])]);
  } finally {
    s3.destroy();
  }
}

/** Runs the messaging-asset audit against the stack's PDS and records it, as the deployed daily schedule does. */
async function recordAudit(): Promise<void> {
  const s3 = createS3Client({ ...emulatorClientConfig(stack.aws), forcePathStyle: true });
  const pds = createPdsClient({
    baseUrl: stack.pds.url,
    credentials: { username: stack.pds.username, password: stack.pds.password },
  });
  try {
    const store = new S3StateStore({ client: s3, bucket: stack.buckets.state });
    await recordedAudit(store, () => auditMessagingAssets({ pds, store, sink: new RecordingSink() }));
  } finally {
    pds.close();
    s3.destroy();
  }
}

function connectionStore(): { store: S3StateStore; close(): void } {
  const s3 = createS3Client({ ...emulatorClientConfig(stack.aws), forcePathStyle: true });
  return { store: new S3StateStore({ client: s3, bucket: stack.buckets.state }), close: () => s3.destroy() };
}

/** Two events published, as a function's event sink does, to a queue the emulator does not have: a real failing destination. */
async function publishToMissingQueue(): Promise<void> {
  const sqs = createSqsClient(emulatorClientConfig(stack.aws));
  const { store, close } = connectionStore();
  try {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'pds-bridge-local-events' }));
    const missing = (QueueUrl as string).replace(/pds-bridge-local-events$/, 'no-such-queue');
    const sink = new FailureRecordingSink(
      new SqsEventPublisher({ sqs, queueUrl: () => missing, maxAttempts: 1 }),
      {
        store,
        destinationOf: () => 'sqs:no-such-queue',
      },
    );
    const events = ['a', 'b'].map((key) =>
      createEvent({
        type: 'pds.ingest.failed',
        subject: `s3://drop/${key}`,
        idParts: ['console-test', key],
        data: { bucket: 'drop', key, code: 'rejected', reason: 'refused', retryable: false },
      }),
    );
    await expect(sink.publish(events)).rejects.toThrow();
  } finally {
    close();
    sqs.destroy();
  }
}

async function until<T>(what: string, read: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  stack = await startTestStack();
  const created = await api<{ endpoint: { id: string } }>('/webhooks/endpoints', {
    method: 'POST',
    body: JSON.stringify({
      url: await startFailingEndpoint(),
      eventTypes: ['pds.ingest.completed'],
      description: 'always <b>500</b>',
    }),
  });
  failingEndpointId = created.endpoint.id;
  const demo = await runDemo(stack, { out: () => undefined });
  expect(demo.ok, demo.ok ? '' : `the demo failed at "${demo.failedStep}": ${demo.reason}`).toBe(true);
  await recordHostileReview();
  await until('a failed attempt at the failing endpoint', async () => {
    const { items } = await api<{ items: Array<{ attempts: unknown[] }> }>(
      `/webhooks/endpoints/${failingEndpointId}/deliveries`,
    );
    return items.some((item) => item.attempts.length > 0) ? true : undefined;
  });
  console_ = await startConsoleOn(target());
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000); // a missing element fails with its name, not the test's timeout
  problems = watchProblems(page);
  await page.goto(console_.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await console_?.close();
  await new Promise((resolve) => failing?.close(resolve));
  await stack?.stop();
});

/** Opens a page of the console, checks it answered 200 with no problem and passes axe, and keeps a screenshot. */
async function open(path: string, screenshot?: string): Promise<void> {
  const answer = await page.goto(new URL(path, console_.url).href);
  expect(answer?.status(), path).toBe(200);
  if (screenshot) {
    // Each kind of page once: axe-core's check, and its picture.
    expect(await axeViolations(page), path).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${screenshot}.png`), fullPage: true });
  }
  expect(problems, path).toEqual([]);
}

async function cells(caption: string, column: number): Promise<string[]> {
  return page
    .locator(`table:has(caption:text-is("${caption}")) tbody tr`)
    .evaluateAll(
      (rows, at) =>
        rows.map(
          (row) => (row.querySelectorAll('td')[at] as HTMLElement | undefined)?.innerText.trim() ?? '',
        ),
      column,
    );
}

interface RecipientView {
  channelId: string;
  recipient: string;
  totals: { published: number; answered: number; synchronised: { count: number } };
}

interface EntryView {
  primaryKey: string;
  channelId: string;
  recipientGln?: string;
  state: string;
  reason?: { text?: string };
}

describe('the console in a browser', () => {
  it('Synchronisation lists what the API lists as needing attention, and its filters and pages match the API', async () => {
    await open('/sync', 'synchronisation');
    // The README's picture (docs/images/console.png is a copy of it).
    await page.screenshot({
      path: join(SCREENSHOT_DIR, 'readme.png'),
      clip: { x: 0, y: 0, width: 1280, height: 760 },
    });
    const { entries } = await api<{ entries: EntryView[] }>(
      '/confirmations?state=OVERDUE,REVIEW,REJECTED,REFUSED_BY_DATA_POOL&limit=50',
    );
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(await cells('The exception list', 0)).toEqual(entries.map((entry) => entry.state));
    expect(await cells('The exception list', 3)).toEqual(entries.map((entry) => entry.channelId));

    // Filter by channel: the data pool's refusal of the demo's third channel only.
    await page.getByLabel('Channel').fill(DEMO_CHANNEL_IDS.poland);
    await page.getByRole('button', { name: 'Filter' }).click();
    const refused = entries.filter((entry) => entry.channelId === DEMO_CHANNEL_IDS.poland);
    expect(refused.length).toBeGreaterThan(0);
    expect(await cells('The exception list', 0)).toEqual(refused.map((entry) => entry.state));

    // Five entries a page: the pages follow the API's order, page by page, to the end.
    await open('/sync?limit=5');
    const paged: string[] = [];
    for (let pages = 0; pages < entries.length; pages += 1) {
      paged.push(...(await cells('The exception list', 1)).map((item) => item.split('\n')[0] ?? item));
      const next = page.getByRole('link', { name: 'Next page' });
      if ((await next.count()) === 0) break;
      await next.click();
    }
    expect(paged.join('\n')).toEqual(entries.map((entry) => entry.primaryKey).join('\n'));
    expect(problems).toEqual([]);
  });

  it("shows a recipient's reason with markup and control bytes as text, on the list and the entry's page", async () => {
    await open('/sync?state=REVIEW&channel=gdsn-fr');
    const entry = page.locator('table:has(caption:text-is("The exception list")) tbody tr').first();
    expect(await entry.locator('td').nth(6).innerText()).toContain(shown(HOSTILE));
    await entry.getByRole('link', { name: 'REVIEW' }).click();
    await open(page.url(), 'entry-history');
    const main = page.locator('main');
    expect(await main.innerText()).toContain(shown(HOSTILE));
    expect(await main.innerText()).toContain('Fix <u>this</u>.');
    expect(await main.locator('img, script, b, u').count()).toBe(0);
    expect((await cells('Transitions, oldest first', 2)).at(-1)).toBe('REVIEW');
  });

  it("shows one publication's items × recipients as the API counts them", async () => {
    await open('/sync?state=REFUSED_BY_DATA_POOL');
    const publicationId = await page
      .locator('table:has(caption:text-is("The exception list")) tbody tr td')
      .nth(7)
      .innerText();
    await page.getByRole('link', { name: publicationId }).first().click();
    await open(page.url(), 'publication-matrix');
    const { entries } = await api<{ entries: EntryView[] }>(`/publications/${publicationId}/confirmations`);
    const states = await page.locator('table.matrix tbody td span').allInnerTexts();
    expect(states.sort()).toEqual(entries.map((entry) => entry.state).sort());
  });

  it("Recipients shows each recipient's figures as GET /confirmations/recipients gives them, and one recipient's times as charts", async () => {
    await open('/recipients', 'recipients');
    const { entries } = await api<{ entries: RecipientView[] }>('/confirmations/recipients?days=7&limit=50');
    expect(entries.length).toBeGreaterThan(0);
    const caption = 'Recipients over the last 7 days';
    expect(await cells(caption, 0)).toEqual(
      entries.map((entry) => `${entry.channelId} · ${entry.recipient}`),
    );
    expect(await cells(caption, 2)).toEqual(entries.map((entry) => String(entry.totals.published)));
    expect(await cells(caption, 3)).toEqual(entries.map((entry) => String(entry.totals.answered)));
    expect(await cells(caption, 5)).toEqual(entries.map((entry) => String(entry.totals.synchronised.count)));

    const synchronised = entries.find((entry) => entry.totals.synchronised.count > 0);
    if (!synchronised) throw new Error('the demo synchronised no item');
    await page.getByRole('link', { name: `${synchronised.channelId} · ${synchronised.recipient}` }).click();
    await open(page.url(), 'recipient');
    expect(await page.locator('main svg[role="img"]').count()).toBe(2);
    await page.getByText('Per day: the figures').click(); // the chart's figures, folded beneath it
    const perDay = (await cells('Per day', 1)).map(Number);
    expect(perDay.reduce((sum, count) => sum + count, 0)).toBe(synchronised.totals.synchronised.count);
  });

  it("Deliveries shows every endpoint the API lists, and a failing endpoint's answers as text", async () => {
    await publishToMissingQueue();
    await open('/deliveries', 'deliveries');
    // What the SQS destination did not accept, as the state bucket records it.
    const store = connectionStore();
    const recorded = await recentPublishFailures(store.store, Date.now() - 24 * 3_600_000, Date.now());
    store.close();
    const failures = recorded['sqs:no-such-queue'];
    expect(failures?.failedEvents).toBe(2);
    const caption = 'Destinations that did not accept events in the last 24 hours';
    expect(await cells(caption, 0)).toEqual(['sqs:no-such-queue']);
    expect(await cells(caption, 1)).toEqual(['2']);
    expect(
      (await cells('Their latest failures, newest first', 3)).every((code) =>
        /NonExistentQueue|QueueDoesNotExist/.test(code),
      ),
    ).toBe(true);
    const { items } = await api<{ items: Array<{ url: string }> }>('/webhooks/endpoints');
    expect(
      (await cells(/* caption starts */ 'Endpoints, each over its 50 most recent deliveries', 0)).length,
    ).toBe(items.length);
    await page
      .getByRole('link', { name: /127\.0\.0\.1.*\/hook/ })
      .and(page.locator(`a[href*="${failingEndpointId}"]`))
      .click();
    await open(page.url(), 'endpoint-attempts');
    const deliveries = await api<{ items: Array<{ attempts: Array<{ status?: number }> }> }>(
      `/webhooks/endpoints/${failingEndpointId}/deliveries`,
    );
    const attempts = deliveries.items.flatMap((item) => item.attempts);
    const answers = await cells('Attempts, newest first', 6);
    expect(answers.length).toBe(attempts.length);
    expect(answers[0]).toBe(shown(ENDPOINT_ANSWER));
    expect(await page.locator('main script, main i').count()).toBe(0);
  });

  it('Pipeline shows the queues and dead-letter counts `pds bridge status` gives', async () => {
    // The local stack schedules no audit: the page says it never ran; ages are labelled unavailable, not invented.
    await open('/pipeline');
    expect(await page.locator('main').innerText()).toContain('The scheduled audit never ran');
    await recordAudit();
    await open('/pipeline', 'pipeline');
    const connection = await connectOperator(target());
    try {
      const status = await bridgeStatus(connection.store, connection.queues, {
        stage: 'local',
        stateBucket: stack.buckets.state,
        queueAges: connection.queueAges,
      });
      expect(await cells('Each queue and its dead-letter queue', 0)).toEqual(
        status.queues.map((queue) => queue.name),
      );
      const dead = status.queues.reduce((sum, queue) => sum + (queue.deadLetter?.visible ?? 0), 0);
      expect(
        await page.locator('.tiles li', { hasText: 'in dead-letter queues' }).locator('.value').innerText(),
      ).toBe(String(dead));
      expect(await cells('The pollers', 0)).toEqual(status.pollers.map((poller) => poller.name));
      const failed = page.locator('.tiles li', { hasText: 'ingests failed in 24 h' }).locator('.value');
      expect(await failed.innerText()).toBe(String(status.ingests.window.failedCount));
      expect(await page.locator('main').innerText()).toContain(
        `${status.ingests.window.finished} finished between`,
      );
      // Ages: where they come from is said beside them; the emulator has none.
      expect(status.queueAges.available).toBe(false);
      expect(await page.locator('main').innerText()).toContain('age: not available locally');
      const existing = status.queues.filter((queue) => queue.exists).length;
      expect(
        (await cells('Each queue and its dead-letter queue', 4)).filter((cell) => cell === 'n/a'),
      ).toHaveLength(existing);
      // The audit's last report, as the state bucket holds it.
      const report = status.audit?.lastReport;
      if (!report) throw new Error('the audit recorded no report');
      const caption = `What the audit that completed ${report.at} found`;
      expect(await cells(caption, 0)).toEqual([String(report.listed)]);
      expect(await cells(caption, 2)).toEqual([String(report.gaps)]);
      expect(await page.locator('main').innerText()).toMatch(/Last run .* ago\): ok\./);
    } finally {
      connection.close();
    }
  });
});

describe('who may talk to the console', () => {
  const base = () => new URL(console_.url).origin;
  const token = () => new URL(console_.url).searchParams.get('token') as string;
  /** The cookie the console sets for the run's token. */
  async function cookie(): Promise<string> {
    const answer = await fetch(console_.url, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    return (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
  }

  it('listens on 127.0.0.1 only, and refuses a request without the token or with a wrong one', async () => {
    expect(new URL(console_.url).hostname).toBe('127.0.0.1');
    expect((await fetch(`${base()}/sync`)).status).toBe(401);
    expect(
      (await fetch(`${base()}/sync?token=${token().replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))}`)).status,
    ).toBe(401);
    expect((await fetch(`${base()}/sync`, { headers: { cookie: await cookie() } })).status).toBe(200);
  });

  it('refuses another Host (DNS rebinding) and another Origin, and never answers with CORS headers', async () => {
    const headers = { cookie: await cookie() };
    const { request } = await import('node:http');
    const status = (extra: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const sent = request(`${base()}/sync`, { headers: { ...headers, ...extra } }, (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        });
        sent.on('error', reject).end();
      });
    expect(await status({ host: `attacker.example:${new URL(console_.url).port}` })).toBe(421);
    expect(await status({ origin: 'http://attacker.example' })).toBe(403);
    const answer = await fetch(`${base()}/sync`, { headers: { ...headers, origin: base() } });
    expect(answer.status).toBe(200);
    expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(answer.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(answer.headers.get('content-security-policy')).not.toMatch(/script-src|unsafe-inline/);
  });

  it('is read-only unless started with actions: every page says so and a post is refused', async () => {
    const headers = { cookie: await cookie() };
    const plan = await fetch(`${base()}/deliveries/replay?id=${failingEndpointId}`, { headers });
    expect(plan.status).toBe(200);
    expect(await plan.text()).toMatch(/<span class="stage">read-only<\/span>/);
    const post = await fetch(`${base()}/deliveries/replay`, {
      method: 'POST',
      headers: { ...headers, origin: base(), 'content-type': 'application/x-www-form-urlencoded' },
      body: `id=${failingEndpointId}`,
    });
    expect(post.status).toBe(403);
    expect(await post.text()).toContain('read-only');
  });
});

interface DeliveryView {
  eventId: string;
  eventType: string;
  status: string;
  attempts: Array<{ attempt: number; replay?: boolean }>;
}

/**
 * One delivery of the failing endpoint turned `failed` as the delivery worker records it after its
 * last scheduled attempt (the schedule takes days; its next retry here is minutes away, after the test).
 */
async function failOneDelivery(): Promise<DeliveryView> {
  const retried = await until('a delivery of the failing endpoint tried twice', async () => {
    const { items } = await api<{ items: DeliveryView[] }>(
      `/webhooks/endpoints/${failingEndpointId}/deliveries`,
    );
    return items.find((item) => item.status === 'pending' && item.attempts.length >= 2);
  });
  const s3 = createS3Client({ ...emulatorClientConfig(stack.aws), forcePathStyle: true });
  try {
    await recordDelivery(
      new S3StateStore({ client: s3, bucket: stack.buckets.state }),
      { endpointId: failingEndpointId, eventId: retried.eventId, eventType: retried.eventType },
      { status: 'failed', reason: 'no success in 2 attempts', now: new Date() },
    );
  } finally {
    s3.destroy();
  }
  return retried;
}

async function deliveryOf(eventId: string): Promise<DeliveryView | undefined> {
  const { items } = await api<{ items: DeliveryView[] }>(
    `/webhooks/endpoints/${failingEndpointId}/deliveries`,
  );
  return items.find((item) => item.eventId === eventId);
}

describe('an action, with actions allowed', () => {
  it('replays a failed delivery only when confirmed: Cancel changes nothing, the confirmed replay sends it again', async () => {
    // prepare
    const failed = await failOneDelivery();
    const actions = await startConsoleOn(target(), { actions: true });
    try {
      await page.goto(actions.url);
      await page.goto(new URL(`/deliveries/endpoint?id=${failingEndpointId}`, actions.url).href);
      await page.getByRole('link', { name: 'Replay its failed deliveries…' }).click();
      const listed = await cells('Failed deliveries', 0);
      expect(listed).toContain(failed.eventId);

      // act: cancel
      await page.getByRole('link', { name: 'Cancel' }).click();
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // what a replay would have queued has had time to run
      const afterCancel = await deliveryOf(failed.eventId);

      // assess: back on the endpoint's page, the delivery as it was
      expect(new URL(page.url()).pathname).toBe('/deliveries/endpoint');
      expect(afterCancel?.status).toBe('failed');
      expect(afterCancel?.attempts).toEqual(failed.attempts);

      // act: confirm
      await page.goto(new URL(`/deliveries/replay?id=${failingEndpointId}`, actions.url).href);
      await page.getByRole('button', { name: `Replay ${listed.length} failed deliveries` }).click();

      // assess: said, and done (the endpoint answers 500 again, to a replay attempt)
      expect(await page.locator('main .notice').innerText()).toBe(
        `${listed.length} deliveries queued again for endpoint ${failingEndpointId}.`,
      );
      const replayed = await until('the replayed attempt', async () => {
        const delivery = await deliveryOf(failed.eventId);
        return delivery?.attempts.some((attempt) => attempt.replay) ? delivery : undefined;
      });
      expect(replayed.attempts.filter((attempt) => attempt.replay)).toHaveLength(1);
      expect(problems).toEqual([]);
    } finally {
      await actions.close();
    }
  });

  it('redrives a dead-letter queue only after its page showed why and the operator confirmed', async () => {
    const dlq = 'pds-bridge-local-events-dlq';
    const sqs = createSqsClient(emulatorClientConfig(stack.aws));
    const actions = await startConsoleOn(target(), { actions: true });
    try {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: dlq }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '<not json>' }));
      await page.goto(actions.url);
      await page.goto(new URL('/pipeline', actions.url).href);
      await page.getByRole('link', { name: 'why, and redrive…' }).click();
      expect(await page.locator('main').innerText()).toContain('unreadable message (not JSON)');
      await page.getByRole('button', { name: /^Move 1 messages back to pds-bridge-local-events$/ }).click();
      expect(await page.locator('main .notice').innerText()).toBe(
        '1 messages moved from pds-bridge-local-events-dlq to pds-bridge-local-events.',
      );
      const connection = await connectOperator(target());
      try {
        expect((await connection.queues.depth(dlq))?.visible).toBe(0);
      } finally {
        connection.close();
      }
      expect(problems).toEqual([]);
    } finally {
      await actions.close();
      sqs.destroy();
    }
  });
});
