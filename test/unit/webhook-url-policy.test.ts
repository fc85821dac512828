import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkEndpointUrl,
  isNonPublicAddress,
  REFUSED_IPV4_RANGES,
  REFUSED_IPV6_RANGES,
} from '../../packages/bridge/src/webhooks/index.ts';

describe('webhook URL policy: the addresses a deployed bridge refuses', () => {
  it.each([
    ['2001:db8::1', 'IPv6 documentation'],
    ['100::1', 'discard-only'],
    ['2002:c0a8:0101::1', '6to4 embedding 192.168.1.1'],
    ['2002:0808:0808::1', '6to4 embedding even a public IPv4 address'],
    ['::7f00:1', 'IPv4-compatible ::127.0.0.1'],
    ['::c0a8:101', 'IPv4-compatible ::192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:2::1', 'IPv6 benchmarking'],
    ['3fff::1', 'IPv6 documentation (3fff::/20)'],
    ['64:ff9b::a00:1', 'NAT64 embedding 10.0.0.1'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['5f00::1', 'SRv6'],
    ['fec0::1', 'site-local'],
    ['::ffff:7f00:1', 'IPv4-mapped in hex form'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fd00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['192.0.2.10', 'TEST-NET-1'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['255.255.255.255', 'limited broadcast'],
    ['169.254.169.254', 'instance metadata'],
    ['100.64.0.1', 'CGNAT'],
  ])('refuses %s (%s)', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8',
    '2001:4860::8888',
  ])('accepts the public address %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });

  it('refuses http under the deployed policy, naming the fix', () => {
    expect(() => checkEndpointUrl('http://hooks.example.com/x', 'public')).toThrow(/is not https/);
  });

  it('lists in docs/webhooks.md every range it refuses', () => {
    const docs = readFileSync(path.resolve(import.meta.dirname, '../../docs/webhooks.md'), 'utf8');
    for (const [network, prefix] of [...REFUSED_IPV4_RANGES, ...REFUSED_IPV6_RANGES])
      expect(docs).toContain(`${network}/${prefix}`);
  });
});
