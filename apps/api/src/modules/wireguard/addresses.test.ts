import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressesOf, bigIntToIpv6, firstFreeIndex, ipv6ToBigInt, parsePools, peerAllowedIps } from './addresses.js';

const pools = parsePools('10.64.0.0/10', 'fd77:6172:7265::/48');

describe('address pools', () => {
  it('keeps the gateway for the node and derives both addresses from one index', () => {
    expect(pools.v4.gateway).toBe('10.64.0.1');
    expect(pools.v6.gateway).toBe('fd77:6172:7265::1');
    expect(addressesOf(1, pools)).toEqual({ ipv4: '10.64.0.2', ipv6: 'fd77:6172:7265::2' });
    expect(addressesOf(254, pools)).toEqual({ ipv4: '10.64.0.255', ipv6: 'fd77:6172:7265::ff' });
    expect(peerAllowedIps(300, pools)).toEqual(['10.64.1.45/32', 'fd77:6172:7265::12d/128']);
    expect(pools.maxIndex).toBe(2 ** 22 - 3);
    expect(addressesOf(pools.maxIndex, pools).ipv4).toBe('10.127.255.254');
    expect(() => addressesOf(0, pools)).toThrow(RangeError);
    expect(() => addressesOf(pools.maxIndex + 1, pools)).toThrow(RangeError);
  });

  it('normalises the pool base and refuses nonsense', () => {
    expect(parsePools('192.168.7.9/24', 'fd00::5/64').v4.cidr).toBe('192.168.7.0/24');
    expect(() => parsePools('10.0.0.0/31', 'fd00::/64')).toThrow();
    expect(() => parsePools('nope/10', 'fd00::/64')).toThrow();
    expect(() => parsePools('10.0.0.0/10', 'fd00::/8')).toThrow();
  });

  it('maps distinct indexes to distinct addresses, inside the pools', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: pools.maxIndex }), fc.integer({ min: 1, max: pools.maxIndex }), (a, b) => {
        const x = addressesOf(a, pools),
          y = addressesOf(b, pools);
        expect(x.ipv4 === y.ipv4).toBe(a === b);
        expect(x.ipv6 === y.ipv6).toBe(a === b);
        expect(x.ipv4.startsWith('10.')).toBe(true);
        const [, second] = x.ipv4.split('.').map(Number);
        expect(second).toBeGreaterThanOrEqual(64);
        expect(second).toBeLessThanOrEqual(127);
      }),
    );
  });

  it('round-trips IPv6 text', () => {
    for (const ip of ['::1', 'fd77:6172:7265::2', '2001:db8:0:1:0:0:0:1', '::'])
      expect(bigIntToIpv6(ipv6ToBigInt(ip))).toBe(ip === '2001:db8:0:1:0:0:0:1' ? '2001:db8:0:1::1' : ip);
  });

  it('picks the smallest free index, reusing gaps', () => {
    expect(firstFreeIndex([])).toBe(1);
    expect(firstFreeIndex([1, 2, 3])).toBe(4);
    expect(firstFreeIndex([2, 3])).toBe(1);
    expect(firstFreeIndex([3, 1, 4])).toBe(2);
  });
});
