/**
 * Which endpoint URLs the bridge delivers to. Deployed (`WEBHOOK_URL_POLICY=public`): https only,
 * and the host must resolve only to public addresses — no private, loopback, link-local (the instance
 * metadata service), CGNAT, multicast, documentation, benchmarking, reserved or unspecified ones, and
 * no IPv6 form that embeds an IPv4 address the bridge cannot check (6to4, Teredo, NAT64,
 * IPv4-compatible) — checked at registration and again at every attempt, scheme included, connecting
 * to the address that was checked (so DNS cannot be re-pointed between check and connect). Locally
 * (`any`): http and every address, so a receiver on 127.0.0.1 works. docs/webhooks.md lists the ranges.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { WebhookError } from './errors.ts';

export const URL_POLICIES = ['public', 'any'] as const;
export type UrlPolicy = (typeof URL_POLICIES)[number];

/**
 * IPv4 ranges refused under `public` (IANA's special-purpose registry, RFC 6890 and successors):
 * each with what it is, so docs/webhooks.md lists the same.
 */
export const REFUSED_IPV4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (the instance metadata service)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, '6to4 relay anycast (deprecated)'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved, and the limited broadcast address'],
];

/**
 * IPv6 under `public`: only global unicast (2000::/3) is allowed, which leaves out the unspecified
 * and loopback addresses, IPv4-compatible (::/96) and IPv4-mapped forms (an IPv4-mapped address in
 * dotted form is checked as its IPv4 address), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), discard-only
 * (100::/64), SRv6 (5f00::/16), unique-local (fc00::/7), link-local (fe80::/10), site-local
 * (fec0::/10) and multicast (ff00::/8). Within 2000::/3 these are refused too.
 */
export const REFUSED_IPV6_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  [
    '2001::',
    23,
    'IETF protocol assignments (Teredo 2001::/32 embeds an IPv4 address; benchmarking 2001:2::/48; ORCHID)',
  ],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4 (embeds an IPv4 address)'],
  ['3fff::', 20, 'documentation'],
];

const refusedV4 = new BlockList();
for (const [network, prefix] of REFUSED_IPV4_RANGES) refusedV4.addSubnet(network, prefix, 'ipv4');
const refusedV6 = new BlockList();
for (const [network, prefix] of REFUSED_IPV6_RANGES) refusedV6.addSubnet(network, prefix, 'ipv6');
const globalUnicastV6 = new BlockList();
globalUnicastV6.addSubnet('2000::', 3, 'ipv6');

/** True when an address is not one deliveries may go to when deployed. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refusedV4.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return refusedV4.check(mapped[1], 'ipv4');
    return !globalUnicastV6.check(address, 'ipv6') || refusedV6.check(address, 'ipv6');
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
