/**
 * The CLI trusts only its own stack: the stack file is looked for inside the checkout only, is read
 * only when it is the user's own and no one else may write it, and the address it names never gets
 * the user's own credentials (environment or Secrets Manager); a second stack with the same file is
 * refused with the running one's process id and leaves the first one's file alone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/main.ts';
import {
  findStackFile,
  readStackFile,
  type StackFacts,
  writeStackFile,
} from '../../packages/cli/src/stack-file.ts';
import { runLocalStackCli } from '../../packages/local/src/cli.ts';
import { capturingIo } from '../helpers/cli-io.ts';

const SECRET = 'env-password-never-to-leave';

let root = '';
let checkout = '';
let pds: Server;
let pdsUrl = '';
const requests: string[] = [];
let alive: ChildProcess;

/** Facts of a stack whose process runs (a child that waits), pointing at the recording server. */
function facts(overrides: Partial<StackFacts['pds']> = {}): StackFacts {
  return {
    version: 1,
    pid: alive.pid as number,
    startedAt: '2026-12-01T00:00:00.000Z',
    aws: {
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      accessKeyId: 'test',
      secretAccessKey: 'test',
    },
    buckets: { drop: 'pds-bridge-local-drop', state: 'pds-bridge-local-state' },
    eventQueues: [{ name: 'pds-bridge-local-events', url: 'http://127.0.0.1:9/0/pds-bridge-local-events' }],
    api: { url: 'http://127.0.0.1:9', token: 'token-0123456789abcdef' },
    pds: { url: pdsUrl, username: 'demo', simulated: false, ...overrides },
  };
}

function fakeIo(cwd: string, env: Record<string, string> = {}) {
  const run = capturingIo({ cwd, env });
  return { io: run.io, stderr: run.stderr };
}

async function recordRequest(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  const auth = request.headers.authorization ?? '';
  const basic = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : '';
  return `${request.method} ${request.url} ${auth} ${basic} ${body}`;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'pds-stack-trust-'));
  checkout = path.join(root, 'checkout');
  await mkdir(path.join(checkout, '.git'), { recursive: true });
  await mkdir(path.join(checkout, 'docs'), { recursive: true });
  alive = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  pds = createServer((request, response) => {
    void recordRequest(request).then((line) => {
      requests.push(line);
      response.writeHead(401).end();
    });
  });
  pds.listen(0, '127.0.0.1');
  await once(pds, 'listening');
  pdsUrl = `http://127.0.0.1:${(pds.address() as AddressInfo).port}`;
});

afterAll(async () => {
  alive?.kill('SIGKILL');
  pds?.close();
  await rm(root, { recursive: true, force: true });
});

describe('finding the stack file', () => {
  it('never looks above the checkout: a file planted in a shared folder above it is not found', async () => {
    // prepare: /tmp/…/.local/stack.json above the checkout, none inside
    const planted = path.join(root, '.local', 'stack.json');
    await writeStackFile(planted, facts());

    // act + assess
    expect(findStackFile(path.join(checkout, 'docs'))).toBeUndefined();
    // outside any checkout nothing is looked for at all
    expect(findStackFile(path.join(root, '.local'))).toBeUndefined();
    await rm(planted);
  });

  it('`pds channels` inside the checkout does not use the planted file and says what to set', async () => {
    // prepare
    const planted = path.join(root, '.local', 'stack.json');
    await writeStackFile(planted, facts({ password: 'demo', simulated: true }));
    const { io, stderr } = fakeIo(path.join(checkout, 'docs'));

    // act
    const code = await runCli(['channels'], io);

    // assess
    expect(code).toBe(2);
    expect(stderr()).toContain('no PDS address');
    expect(requests).toEqual([]);
    await rm(planted);
  });
});

describe('reading the stack file', () => {
  let file = '';

  beforeAll(async () => {
    file = path.join(checkout, '.local', 'stack.json');
  });

  it('refuses a file others may write, naming who and the mode', async () => {
    // prepare
    await writeStackFile(file, facts({ password: 'demo', simulated: true }));
    await chmod(file, 0o662);
    const { io, stderr } = fakeIo(path.join(checkout, 'docs'));

    // act
    const code = await runCli(['channels'], io);

    // assess
    expect(code).toBe(2);
    expect(stderr()).toContain(`${file} is not used: group and others may write it (mode 662)`);
    expect(stderr()).toContain('delete it and start the stack again with npm start');
    expect(requests).toEqual([]);
    await rm(file);
  });

  it('refuses a file that belongs to another user', async () => {
    // prepare
    await writeStackFile(file, facts({ password: 'demo', simulated: true }));
    const owner = (await stat(file)).uid;

    // act + assess: read as if by another user
    await expect(readStackFile(file, { uid: owner + 1 })).rejects.toThrow(
      `it belongs to user id ${owner}, not to you (${owner + 1})`,
    );
    await rm(file);
  });

  it.runIf(process.getuid?.() === 0)('refuses a file chowned to another user (run as root)', async () => {
    // prepare
    await writeStackFile(file, facts({ password: 'demo', simulated: true }));
    await chown(file, 65534, 65534);
    const { io, stderr } = fakeIo(checkout);

    // act
    const code = await runCli(['channels'], io);

    // assess
    expect(code).toBe(2);
    expect(stderr()).toContain('it belongs to user id 65534, not to you (0)');
    await rm(file);
  });
});

describe('credentials for the address a stack file names', () => {
  const file = () => path.join(checkout, '.local', 'stack.json');

  it("never sends the environment's credentials there; says to name the address instead", async () => {
    // prepare: a stack started against a real PDS (no password in its file), the user's own credentials in the environment
    await writeStackFile(file(), facts());
    const { io, stderr } = fakeIo(checkout, { PDS_USERNAME: 'me', PDS_PASSWORD: SECRET });

    // act
    const code = await runCli(['channels'], io);

    // assess
    expect(code).toBe(2);
    expect(stderr()).toContain(`uses the PDS at ${pdsUrl}`);
    expect(stderr()).toContain(`pass --base-url ${pdsUrl} (or set PDS_BASE_URL)`);
    expect(requests.join('\n')).not.toContain(SECRET);
    expect(requests).toEqual([]);
    await rm(file());
  });

  it("uses the simulator's demo credentials from the file, not the environment's", async () => {
    // prepare
    await writeStackFile(file(), facts({ password: 'demo', simulated: true }));
    const { io } = fakeIo(checkout, { PDS_USERNAME: 'me', PDS_PASSWORD: SECRET });

    // act
    await runCli(['channels'], io);

    // assess: it reached the address, without the secret
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.join('\n')).not.toContain(SECRET);
    requests.length = 0;
    await rm(file());
  });

  it('sends the environment credentials to an address named with PDS_BASE_URL', async () => {
    // prepare
    const { io } = fakeIo(checkout, { PDS_BASE_URL: pdsUrl, PDS_USERNAME: 'me', PDS_PASSWORD: SECRET });

    // act
    await runCli(['channels'], io);

    // assess: the user named it, so it gets them
    expect(requests.join('\n')).toContain(SECRET);
    requests.length = 0;
  });
});

describe('a second stack with the same stack file', () => {
  it("is refused with the running stack's process id before starting, and the first stack's file stays", async () => {
    // prepare: the file of a stack whose process runs
    const file = path.join(checkout, '.local', 'second.json');
    await writeStackFile(file, facts({ password: 'demo', simulated: true }));
    const before = await readFile(file, 'utf8');
    const out: string[] = [];

    // act
    const code = await runLocalStackCli(
      ['--aws-port', '0', '--pds-port', '0', '--api-port', '0', '--stack-file', file],
      { out: (line) => out.push(line), err: (line) => out.push(line) },
      {},
    );

    // assess
    expect(code).toBe(1);
    expect(out.join('\n')).toContain(
      `a local stack is already running in this checkout (process ${alive.pid}`,
    );
    expect(out.join('\n')).not.toContain('local stack is running');
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('replaces the file of a stack that has ended', async () => {
    // prepare
    const file = path.join(checkout, '.local', 'stale.json');
    await writeFile(file, JSON.stringify({ ...facts(), pid: 4_194_305 }), { mode: 0o600 });

    // act
    await writeStackFile(file, { ...facts(), startedAt: '2026-12-02T00:00:00.000Z' });

    // assess
    expect(JSON.parse(await readFile(file, 'utf8')).startedAt).toBe('2026-12-02T00:00:00.000Z');
  });

  it('refuses to write over the file of a running stack', async () => {
    // prepare
    const file = path.join(checkout, '.local', 'taken.json');
    await writeStackFile(file, facts());

    // act + assess
    await expect(writeStackFile(file, { ...facts(), pid: process.pid })).rejects.toThrow(
      `process ${alive.pid}`,
    );
  });
});
