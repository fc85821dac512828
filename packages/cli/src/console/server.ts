/**
 * The console's HTTP server: on 127.0.0.1 only, reached with a random token made for this run (as
 * notebook servers do), answering only to its own Host and Origin, with no CORS, and pages that
 * carry no script at all (the Content-Security-Policy allows none). It reads the stage with the
 * operator's own credentials through the CLI's connection, so a deployed stage gains no public surface.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConsoleInputError } from '../errors.ts';
import type { OperatorConnection } from '../ops/connect.ts';
import { type Html, html } from './html.ts';
import { CONSOLE_CSS, FAVICON_SVG, layout, PAGES, type PagePath } from './layout.ts';
import type { PageContext } from './page.ts';
import { redriveApply, redrivePlanPage, replayApply, replayPlanPage } from './pages/actions.ts';
import { deliveriesPage, endpointPage } from './pages/deliveries.ts';
import { pipelinePage } from './pages/pipeline.ts';
import { recipientPage, recipientsPage } from './pages/recipients.ts';
import { entryPage, publicationPage, syncPage } from './pages/sync.ts';

export interface ConsoleOptions {
  readonly connection: OperatorConnection;
  /** Port on 127.0.0.1. Default 0: any free port. */
  readonly port?: number;
  /** Allow the pages' actions (redrive, replay), each after its confirmation page. Default false: read-only. */
  readonly actions?: boolean;
  /** ` --stage NAME` when the console reads a deployed stage (the CLI commands the pages name). Default empty. */
  readonly stageFlag?: string;
  /** Told each failure a page met (its message is also on the page). Default: nothing. */
  readonly log?: (line: string) => void;
}

export interface RunningConsole {
  /** The address to open, with the run's token. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

type Reader = (context: PageContext) => Promise<Html>;
type Writer = (context: PageContext, form: URLSearchParams) => Promise<Html>;

/** Each page: its title, the navigation entry it belongs to, and what draws it. */
const READS: Record<string, { title: string; section: PagePath; draw: Reader }> = {
  '/sync': { title: 'Synchronisation', section: '/sync', draw: syncPage },
  '/sync/publication': {
    title: 'One publication: items × recipients',
    section: '/sync',
    draw: publicationPage,
  },
  '/sync/entry': { title: 'One entry and its history', section: '/sync', draw: entryPage },
  '/recipients': { title: 'Recipients', section: '/recipients', draw: recipientsPage },
  '/recipients/one': { title: 'One recipient', section: '/recipients', draw: recipientPage },
  '/deliveries': { title: 'Deliveries', section: '/deliveries', draw: deliveriesPage },
  '/deliveries/endpoint': { title: 'One webhook endpoint', section: '/deliveries', draw: endpointPage },
  '/deliveries/replay': { title: 'Replay failed deliveries', section: '/deliveries', draw: replayPlanPage },
  '/pipeline': { title: 'Pipeline', section: '/pipeline', draw: pipelinePage },
  '/pipeline/redrive': { title: 'A dead-letter queue', section: '/pipeline', draw: redrivePlanPage },
};

const WRITES: Record<string, { title: string; section: PagePath; apply: Writer }> = {
  '/pipeline/redrive': { title: 'Redrive', section: '/pipeline', apply: redriveApply },
  '/deliveries/replay': { title: 'Replay', section: '/deliveries', apply: replayApply },
};

/** No script, no frames, nothing from elsewhere; styles only from the console's own sheet. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer a browser posts with `Origin: null`, which the Origin check refuses.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Largest form body accepted (the forms carry a few short fields). */
const MAX_FORM_BYTES = 8 * 1024;

/**
 * Starts the console and resolves once it listens.
 *
 * @example
 * ```ts
 * const running = await startConsole({ connection });
 * console.log(`open ${running.url}`);
 * ```
 */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const token = randomBytes(24).toString('base64url');
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const guard = new Guard(token, port);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    answer(request, response, guard, options).catch((error: unknown) => {
      options.log?.(`console: ${(error as Error).message}`);
      if (!response.headersSent)
        send(response, 500, 'text/plain; charset=utf-8', 'The console failed; see its terminal.');
      else response.destroy();
    });
  });
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Who may talk to the console: the right Host, the console's own Origin, and the run's token. */
class Guard {
  readonly hosts: readonly string[];
  readonly origins: readonly string[];
  readonly cookie: string;
  readonly #token: Buffer;
  /** Derived from the token so the token itself never appears in a page. */
  readonly formToken: string;

  constructor(token: string, port: number) {
    this.hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    this.origins = this.hosts.map((host) => `http://${host}`);
    this.cookie = `pds-console-${port}`;
    this.#token = Buffer.from(token);
    this.formToken = randomBytes(24).toString('base64url');
  }

  matches(candidate: string | undefined | null): boolean {
    if (!candidate) return false;
    const given = Buffer.from(candidate);
    return given.length === this.#token.length && timingSafeEqual(given, this.#token);
  }

  cookieOf(request: IncomingMessage): string | undefined {
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === this.cookie) return value.join('=');
    }
    return undefined;
  }
}

function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, ...headers });
  response.end(body);
}

/** Checks who is asking, then routes. */
async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  guard: Guard,
  options: ConsoleOptions,
): Promise<void> {
  const text = 'text/plain; charset=utf-8';
  // A page reached through another name (DNS rebinding) or from another site is refused before anything is read.
  if (!guard.hosts.includes(request.headers.host ?? '')) {
    return send(response, 421, text, `This console answers only at ${guard.origins[0]}/.`);
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !guard.origins.includes(origin)) {
    return send(response, 403, text, 'Requests from other sites are refused.');
  }
  const url = new URL(request.url ?? '/', guard.origins[0]);
  const given = url.searchParams.get('token');
  if (given !== null) {
    if (!guard.matches(given)) return send(response, 401, text, unauthorised);
    // Keep the token out of the address bar, the history and every later link: a cookie for this port only.
    url.searchParams.delete('token');
    return send(response, 303, text, '', {
      location: `${url.pathname}${url.search}`,
      'set-cookie': `${guard.cookie}=${given}; HttpOnly; SameSite=Strict; Path=/`,
    });
  }
  if (!guard.matches(guard.cookieOf(request))) return send(response, 401, text, unauthorised);
  if (request.method === 'GET' || request.method === 'HEAD') return read(url, response, guard, options);
  if (request.method === 'POST') return write(request, url, response, guard, options);
  return send(response, 405, text, 'The console answers GET and POST only.', { allow: 'GET, HEAD, POST' });
}

const unauthorised =
  'Open the console with the address it printed (it carries a token made for this run): pds bridge console, or the banner of npm start.';

function contextOf(url: URL, guard: Guard, options: ConsoleOptions): PageContext {
  return {
    connection: options.connection,
    url,
    now: Date.now(),
    stageFlag: options.stageFlag ?? '',
    actions: options.actions === true,
    formToken: guard.formToken,
  };
}

async function read(
  url: URL,
  response: ServerResponse,
  guard: Guard,
  options: ConsoleOptions,
): Promise<void> {
  if (url.pathname === '/console.css') return send(response, 200, 'text/css; charset=utf-8', CONSOLE_CSS);
  if (url.pathname === '/favicon.svg' || url.pathname === '/favicon.ico') {
    return send(response, 200, 'image/svg+xml', FAVICON_SVG);
  }
  if (url.pathname === '/')
    return send(response, 303, 'text/plain; charset=utf-8', '', { location: PAGES[0].path });
  const page = READS[url.pathname];
  if (!page)
    return sendPage(response, 404, options, {
      title: 'Not here',
      section: '/sync',
      body: html`<p>There is no page ${url.pathname}; the pages are listed above.</p>`,
    });
  const { status, body } = await drawn(() => page.draw(contextOf(url, guard, options)), options);
  return sendPage(response, status, options, { title: page.title, section: page.section, body });
}

async function write(
  request: IncomingMessage,
  url: URL,
  response: ServerResponse,
  guard: Guard,
  options: ConsoleOptions,
): Promise<void> {
  const page = WRITES[url.pathname];
  const text = 'text/plain; charset=utf-8';
  if (!page) return send(response, 404, text, 'Nothing to post here.');
  // A browser always sends Origin with a form post; its absence means something else is posting.
  if (request.headers.origin === undefined)
    return send(response, 403, text, 'A post must come from the console page.');
  if (options.actions !== true)
    return send(response, 403, text, 'This console is read-only: start it with --allow-actions.');
  const form = await formOf(request);
  if (form === undefined) return send(response, 413, text, 'The form is too large.');
  if (form.get('form-token') !== guard.formToken)
    return send(response, 403, text, 'The form is stale: reload the page and confirm again.');
  const { status, body } = await drawn(() => page.apply(contextOf(url, guard, options), form), options);
  return sendPage(response, status, options, { title: page.title, section: page.section, body });
}

/** The page, or the failure as a page: a query it cannot use is a 400 saying what to do, anything else a 500. */
async function drawn(
  draw: () => Promise<Html>,
  options: ConsoleOptions,
): Promise<{ status: number; body: Html }> {
  try {
    return { status: 200, body: await draw() };
  } catch (error) {
    if (error instanceof ConsoleInputError)
      return { status: 400, body: html`<p class="error">${error.message}</p>` };
    options.log?.(`console: ${(error as Error).message}`);
    return {
      status: 500,
      body: html`<p class="error">Could not read this page: ${(error as Error).message}</p>`,
    };
  }
}

function sendPage(
  response: ServerResponse,
  status: number,
  options: ConsoleOptions,
  page: { title: string; section: PagePath; body: Html },
): void {
  const stage = options.connection.stage;
  send(
    response,
    status,
    'text/html; charset=utf-8',
    layout({ ...page, stage, actions: options.actions === true }).toString(),
  );
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
