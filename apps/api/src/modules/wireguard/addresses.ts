import net from 'node:net';

/**
 * Device addresses. Every device has one index; its IPv4 and IPv6 are the pools' base + 1 + index
 * (base + 1 is the node's own tunnel address, the gateway). The database's unique index on the index
 * is what makes two devices never share an address, also under concurrency; these functions are pure.
 */
export interface Pools {
  v4: { base: number; prefix: number; gateway: string; cidr: string };
  v6: { base: bigint; prefix: number; gateway: string; cidr: string };
  /** Highest usable index. */
  maxIndex: number;
}

export function ipv4ToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}
export function intToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function ipv6ToBigInt(ip: string): bigint {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) throw new Error(`bad IPv6 address ${ip}`);
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}
export function bigIntToIpv6(n: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((n >> BigInt(i * 16)) & 0xffffn).toString(16));
  // Compress the longest run of zero groups (RFC 5952).
  let best = -1,
    bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

export function parsePools(v4cidr: string, v6cidr: string): Pools {
  const [a4, p4s] = v4cidr.trim().split('/');
  const [a6, p6s] = v6cidr.trim().split('/');
  const p4 = Number(p4s),
    p6 = Number(p6s);
  if (!a4 || net.isIPv4(a4) === false || !Number.isInteger(p4) || p4 < 8 || p4 > 28)
    throw new Error(`IPv4 pool must be a.b.c.d/8..28, got ${v4cidr}`);
  if (!a6 || net.isIPv6(a6) === false || !Number.isInteger(p6) || p6 < 16 || p6 > 120)
    throw new Error(`IPv6 pool must be an IPv6 /16..120, got ${v6cidr}`);
  const size4 = 2 ** (32 - p4);
  const base4 = ipv4ToInt(a4) - (ipv4ToInt(a4) % size4);
  const mask6 = (1n << BigInt(128 - p6)) - 1n;
  const base6 = ipv6ToBigInt(a6) & ~mask6;
  // Index i takes base + 1 + i; keep the network address, the gateway and the IPv4 broadcast out.
  const max4 = size4 - 3;
  const max6 = mask6 - 1n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(mask6 - 1n);
  return {
    v4: { base: base4, prefix: p4, gateway: intToIpv4(base4 + 1), cidr: `${intToIpv4(base4)}/${p4}` },
    v6: { base: base6, prefix: p6, gateway: bigIntToIpv6(base6 + 1n), cidr: `${bigIntToIpv6(base6)}/${p6}` },
    maxIndex: Math.min(max4, max6, 2 ** 31 - 1),
  };
}

export function addressesOf(index: number, pools: Pools): { ipv4: string; ipv6: string } {
  if (!Number.isInteger(index) || index < 1 || index > pools.maxIndex)
    throw new RangeError(`address index ${index} outside 1..${pools.maxIndex}`);
  return { ipv4: intToIpv4(pools.v4.base + 1 + index), ipv6: bigIntToIpv6(pools.v6.base + 1n + BigInt(index)) };
}

/** The peer's AllowedIPs on a node: exactly its two host addresses. */
export function peerAllowedIps(index: number, pools: Pools): string[] {
  const a = addressesOf(index, pools);
  return [`${a.ipv4}/32`, `${a.ipv6}/128`];
}

/** Smallest index not in `used` (any order): what the allocator's SQL picks, as a pure function for tests. */
export function firstFreeIndex(used: Iterable<number>): number {
  const set = new Set(used);
  let i = 1;
  while (set.has(i)) i++;
  return i;
}
