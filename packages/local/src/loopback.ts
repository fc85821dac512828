/**
 * Keeps a server that insists on every interface on this machine's loopback instead.
 *
 * fauxqs 2.4.1 listens on `0.0.0.0` whatever it is told (`dist/app.js`: `app.listen({ port, host:
 * "0.0.0.0" })`; its `host` option only names the host in the URLs it builds), and it checks no
 * signature: on a shared network anyone could read and write the local buckets and queues. While
 * {@link listenOnLoopback} awaits `start`, a `listen` of this process asked for every interface
 * (`0.0.0.0`, `::`, or no host) binds `127.0.0.1` instead; afterwards `listen` is Node's own again.
 * Every server that listened meanwhile is then checked on its socket's own address (not the URL the
 * server reports: Fastify reports `127.0.0.1` for a wildcard listen too), so a future fauxqs that
 * listens another way is refused instead of exposed.
 */
import net from 'node:net';
import { EmulatorUnsupportedError } from './errors.ts';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);
const original = net.Server.prototype.listen;
/** The servers each running {@link listenOnLoopback} call saw listen; the patch stays while one runs. */
const watching = new Set<Set<net.Server>>();

function loopbackListen(this: net.Server, ...args: unknown[]): net.Server {
  for (const servers of watching) servers.add(this);
  const [first] = args;
  if (typeof first === 'object' && first !== null && !('fd' in first) && !('path' in first)) {
    const options = first as net.ListenOptions;
    if (WILDCARDS.has(options.host ?? '')) args[0] = { ...options, host: '127.0.0.1' };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback])
    const host = args[1];
    if (typeof host !== 'string') args.splice(1, 0, '127.0.0.1');
    else if (WILDCARDS.has(host)) args[1] = '127.0.0.1';
  }
  return (original as (...rest: unknown[]) => net.Server).apply(this, args);
}

/**
 * Runs `start` with every wildcard `listen` of this process bound to 127.0.0.1, then checks that every
 * server it started listens on the loopback only (else closes them and throws {@link EmulatorUnsupportedError}).
 *
 * @example
 * ```ts
 * const server = await listenOnLoopback('fauxqs', () => startFauxqs({ port: 0 }));
 * ```
 */
export async function listenOnLoopback<T>(what: string, start: () => Promise<T>): Promise<T> {
  const servers = new Set<net.Server>();
  if (watching.size === 0) net.Server.prototype.listen = loopbackListen as typeof original;
  watching.add(servers);
  let started: T;
  try {
    started = await start();
  } finally {
    watching.delete(servers);
    if (watching.size === 0) net.Server.prototype.listen = original;
  }
  const exposed = [...servers]
    .map((server) => server.address())
    .filter((address): address is net.AddressInfo => typeof address === 'object' && address !== null)
    .filter(({ address }) => !LOOPBACK.has(address));
  if (exposed.length > 0) {
    for (const server of servers) server.close();
    const where = exposed.map(({ address, port }) => `${address}:${port}`).join(', ');
    throw new EmulatorUnsupportedError(
      `${what} listens on ${where}, reachable from other machines; it must listen on 127.0.0.1 only. packages/local/src/loopback.ts no longer covers how it listens: check its version`,
    );
  }
  return started;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
