import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../packages/simulator/bin/pds-simulator.mjs', import.meta.url));
const children: ChildProcess[] = [];

function run(args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return { child, stdout: () => out, stderr: () => err };
}

async function exitCodeOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('pds-simulator command', () => {
  it('prints its address and credentials, serves requests and exits 0 on SIGTERM', async () => {
    // Prepare
    const { child, stdout } = run([
      '--port',
      '0',
      '--username',
      'cli',
      '--password',
      'secret',
      '--seed',
      '3',
    ]);
    const deadline = Date.now() + 15_000;
    while (!/http:\/\/127\.0\.0\.1:\d+/.test(stdout()) && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout())?.[0];

    // Act
    const response = await fetch(`${url}/api/v1/communicationchannels`, {
      headers: { authorization: `Basic ${Buffer.from('cli:secret').toString('base64')}` },
    });
    child.kill('SIGTERM');

    // Assess
    expect(url).toBeDefined();
    expect(stdout()).toContain('username cli, password secret');
    expect(response.status).toBe(200);
    expect(await exitCodeOf(child)).toBe(0);
  });

  it('pages the messaging-asset listing with --page-messaging-assets, and answers it whole without', async () => {
    // Prepare: the demo data has three messaging assets
    const auth = { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` };
    const listed = async (args: string[]) => {
      const { child, stdout } = run(['--port', '0', ...args]);
      const deadline = Date.now() + 15_000;
      while (
        !/http:\/\/127\.0\.0\.1:\d+/.test(stdout()) &&
        Date.now() < deadline &&
        child.exitCode === null
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout())?.[0];
      const response = await fetch(`${url}/api/v1/messaging/messagingassets/?limit=2&offset=1`, {
        headers: auth,
      });
      child.kill('SIGTERM');
      return ((await response.json()) as Array<{ id: number }>).map((asset) => asset.id);
    };

    // Act
    const paged = await listed(['--page-messaging-assets']);
    const whole = await listed([]);

    // Assess
    expect(paged).toEqual([2, 3]);
    expect(whole).toEqual([1, 2, 3]);
  });

  it('refuses an invalid flag with one line naming it and exit code 2', async () => {
    const unknown = run(['--bogus']);
    const badPort = run(['--port', 'abc']);

    const codes = [await exitCodeOf(unknown.child), await exitCodeOf(badPort.child)];

    expect(codes).toEqual([2, 2]);
    expect(unknown.stderr().trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr()).toContain('--bogus');
    expect(badPort.stderr()).toContain('--port');
  });

  it('prints the usage for --help and exits 0', async () => {
    const help = run(['--help']);

    expect(await exitCodeOf(help.child)).toBe(0);
    expect(help.stdout()).toContain('--fault-rate');
  });
});
