/**
 * Small HTTP helpers shared by the simulator's `/v1` tests: authenticated fetch calls, raw requests
 * (for paths that fetch would normalise, such as `..` segments), ZIP building and reading.
 */
import { request as httpRequest } from 'node:http';
import yauzl from 'yauzl';
import { ZipFile } from 'yazl';
import type { RunningSimulator } from '../../packages/simulator/src/index.ts';

export function authHeader(sim: RunningSimulator, username = sim.username, password = sim.password): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export interface CallOptions {
  /** Sent as JSON with `content-type: application/json` unless `headers` says otherwise. */
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
  /** false: no Authorization header. */
  auth?: boolean;
}

/** One request to the simulator with the demo credentials. */
export function call(
  sim: RunningSimulator,
  method: string,
  path: string,
  { json, body, headers = {}, auth = true }: CallOptions = {},
): Promise<Response> {
  const allHeaders: Record<string, string> = {};
  if (auth) allHeaders.authorization = authHeader(sim);
  if (json !== undefined) allHeaders['content-type'] = 'application/json';
  Object.assign(allHeaders, headers);
  return fetch(`${sim.url}${path}`, {
    method,
    headers: allHeaders,
    body: json !== undefined ? JSON.stringify(json) : body,
  });
}

/** The JSON error message of a refused request. */
export async function messageOf(response: Response): Promise<string> {
  return ((await response.json()) as { message: string }).message;
}

/** A request whose path is sent exactly as given (no URL normalisation); resolves status and body text. */
export function rawRequest(
  sim: RunningSimulator,
  method: string,
  path: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(sim.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, method, path, headers: { authorization: authHeader(sim) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A ZIP archive of `files` (name → content) and empty `directories` (names ending in '/'). */
export function zipOf(files: Record<string, string>, directories: string[] = []): Promise<Buffer> {
  const zip = new ZipFile();
  for (const directory of directories) zip.addEmptyDirectory(directory);
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** The members of a ZIP: name → content (directories map to ''). */
export async function unzip(buffer: Buffer): Promise<Record<string, string>> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  const members: Record<string, string> = {};
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) {
      members[entry.fileName] = '';
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    members[entry.fileName] = Buffer.concat(chunks).toString('utf8');
  }
  return members;
}

/** A multipart form with one `file` part per given file. */
export function formOf(files: Array<{ name: string; content: string | Buffer; type?: string }>): FormData {
  const form = new FormData();
  for (const { name, content, type } of files) {
    form.append('file', new Blob([content], type ? { type } : {}), name);
  }
  return form;
}

/** Polls `probe` every 10 ms until it returns a value (bounded by `timeoutMs`). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
