/**
 * The local emulator is reachable only from this machine: fauxqs asks for every interface
 * (`0.0.0.0`), and packages/local/src/loopback.ts keeps it, and any wildcard listen while it starts, on
 * 127.0.0.1; a server that still listens elsewhere is refused.
 */
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../packages/local/src/emulator.ts';
import { EmulatorUnsupportedError } from '../../packages/local/src/errors.ts';
import { listenOnLoopback } from '../../packages/local/src/loopback.ts';

/** This machine's addresses that other machines can reach (not loopback). */
function outsideAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((address) => address !== undefined && !address.internal && address.family === 'IPv4')
    .map((address) => (address as os.NetworkInterfaceInfo).address);
}

/** Whether a TCP connection to `host:port` is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function listening(server: net.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
}

describe('the local emulator on the loopback only', () => {
  const open: Array<{ stop(): Promise<void> } | net.Server> = [];

  afterEach(async () => {
    for (const item of open.splice(0)) {
      if (item instanceof net.Server) await new Promise((resolve) => item.close(resolve));
      else await item.stop();
    }
  });

  it('binds fauxqs to 127.0.0.1, so no other interface of this machine reaches it', async () => {
    // act
    const emulator: RunningEmulator = await startEmulator({ port: 0, region: 'us-east-1' });
    open.push(emulator);

    // assess
    expect(await connects('127.0.0.1', emulator.server.port)).toBe(true);
    for (const address of outsideAddresses()) {
      expect(await connects(address, emulator.server.port), `fauxqs reached on ${address}`).toBe(false);
    }
  });

  it('binds a wildcard listen to 127.0.0.1 while it starts, and leaves listen as it was afterwards', async () => {
    // prepare
    const listen = net.Server.prototype.listen;

    // act
    const wildcard = await listenOnLoopback('a test server', async () => {
      const server = http.createServer();
      server.listen({ port: 0, host: '0.0.0.0' });
      await listening(server);
      return server;
    });
    open.push(wildcard);
    const unnamed = await listenOnLoopback('a test server', async () => {
      const server = http.createServer();
      server.listen(0);
      await listening(server);
      return server;
    });
    open.push(unnamed);

    // assess
    expect((wildcard.address() as net.AddressInfo).address).toBe('127.0.0.1');
    expect((unnamed.address() as net.AddressInfo).address).toBe('127.0.0.1');
    expect(net.Server.prototype.listen).toBe(listen);
  });

  it.runIf(outsideAddresses().length > 0)(
    'refuses and closes a server that listens on another interface anyway',
    async () => {
      // prepare
      const outside = outsideAddresses()[0] as string;
      let started: net.Server | undefined;

      // act
      const starting = listenOnLoopback('a test server', async () => {
        started = http.createServer();
        started.listen({ port: 0, host: outside });
        await listening(started);
        return started;
      });

      // assess
      await expect(starting).rejects.toBeInstanceOf(EmulatorUnsupportedError);
      await expect(starting).rejects.toThrow(`a test server listens on ${outside}:`);
      expect(started?.listening).toBe(false);
    },
  );
});
