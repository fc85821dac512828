/**
 * A stack whose ports are taken says so once, naming every taken port and its flag, before it starts
 * anything (one start per clash was the friction).
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { PortInUseError } from '../../packages/local/src/errors.ts';
import { startLocalStack } from '../../packages/local/src/stack.ts';

const servers: Server[] = [];

async function takenPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

afterAll(() => {
  for (const server of servers) server.close();
});

describe('startLocalStack with taken ports', () => {
  it('reports every taken port at once, each with its flag', async () => {
    // prepare
    const aws = await takenPort();
    const api = await takenPort();

    // act
    const error = await startLocalStack({ awsPort: aws, apiPort: api, pdsPort: 0 }).catch((e: unknown) => e);

    // assess
    expect(error).toBeInstanceOf(PortInUseError);
    expect((error as PortInUseError).message).toBe(
      `ports already in use: ${aws} for the S3+SQS emulator (--aws-port), ${api} for the HTTP API (--api-port); stop whatever listens there or choose other ports with those flags (0 picks a free one)`,
    );
    expect((error as PortInUseError).taken.map((each) => each.port)).toEqual([aws, api]);
  });
});
