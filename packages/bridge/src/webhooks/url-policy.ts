/**
 * Which endpoint URLs the bridge delivers to. Deployed (`WEBHOOK_URL_POLICY=public`): https only,
 * and the host must resolve only to public addresses — no private, loopback, link-local (the instance
 * metadata service), CGNAT, multicast or unspecified ones — checked at registration and again at
 * every delivery, connecting to the address that was checked (so DNS cannot be re-pointed between
 * check and connect). Locally (`any`): http and every address, so a receiver on 127.0.0.1 works.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { WebhookError } from './errors.ts';

export const URL_POLICIES = ['public', 'any'] as const;
export type UrlPolicy = (typeof URL_POLICIES)[number];

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True when an address is not one deliveries may go to when deployed. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/**
 * The URL parsed and checked for its syntax and scheme (no DNS); throws {@link WebhookError}
 * `WEBHOOK_URL_REFUSED` naming the fix.
 */
export function checkEndpointUrl(text: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookError(
      'WEBHOOK_URL_REFUSED',
      `${JSON.stringify(text)} is not an absolute URL; give https://host/path`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookError('WEBHOOK_URL_REFUSED', `${url.protocol} URLs are not delivered to; use https://`);
  }
  if (policy === 'public' && url.protocol !== 'https:') {
    throw new WebhookError(
      'WEBHOOK_URL_REFUSED',
      `${url.origin} is not https; a deployed bridge delivers only over https`,
    );
  }
  if (url.username || url.password) {
    throw new WebhookError(
      'WEBHOOK_URL_REFUSED',
      'Credentials in the URL are refused; the signature authenticates the bridge',
    );
  }
  return url;
}

/** The resolved address a delivery connects to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Resolves the URL's host and checks every address under the policy; the first is the one to connect
 * to. Throws {@link WebhookError} `WEBHOOK_URL_REFUSED` when the host resolves to a non-public address
 * under `public`, or does not resolve.
 */
export async function resolveEndpoint(url: URL, policy: UrlPolicy): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  } catch (error) {
    throw new WebhookError('WEBHOOK_URL_REFUSED', `${host} does not resolve (${(error as Error).message})`, {
      cause: error,
      retryable: true,
    });
  }
  if (policy === 'public') {
    const refused = addresses.find((each) => isNonPublicAddress(each.address));
    if (refused) {
      throw new WebhookError(
        'WEBHOOK_URL_REFUSED',
        `${host} resolves to ${refused.address}, a private, loopback, link-local or reserved address; a deployed bridge delivers only to public addresses`,
      );
    }
  }
  const first = addresses[0];
  if (!first)
    throw new WebhookError('WEBHOOK_URL_REFUSED', `${host} resolves to no address`, { retryable: true });
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
