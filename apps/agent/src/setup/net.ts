import net from 'node:net';

/**
 * Address arithmetic for setup: the gateway of a pool is its first host address (base + 1), as the
 * API allocates devices from base + 2 on (apps/api/src/modules/wireguard/addresses.ts). The agent
 * ships alone, so it carries its own few lines instead of importing the API.
 */
export interface Pool {
  cidr: string;
  prefix: number;
  gateway: string;
}

function v6ToBigInt(ip: string): bigint {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function bigIntToV6(n: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((n >> BigInt(i * 16)) & 0xffffn).toString(16));
  let best = -1;
  let bestLen = 1; // RFC 5952: only a run of two or more zero groups is compressed
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** The canonical text of an address (what `ip` prints), so observed and wanted addresses compare. */
export function canonicalIp(ip: string): string {
  return net.isIPv6(ip) ? bigIntToV6(v6ToBigInt(ip.toLowerCase())) : ip;
}

/** Parses `a.b.c.d/n` (n 8..28) or an IPv6 `x::/n` (n 16..120) into its network and gateway; throws on anything else. */
export function parsePool(cidr: string, family: 4 | 6): Pool {
  const [addr, p] = cidr.trim().split('/');
  const prefix = Number(p);
  if (family === 4) {
    if (!addr || !net.isIPv4(addr) || !Number.isInteger(prefix) || prefix < 8 || prefix > 28)
      throw new Error(`IPv4 pool must be a.b.c.d/8..28, got ${cidr}`);
    const n = addr.split('.').reduce((a, o) => a * 256 + Number(o), 0);
    const size = 2 ** (32 - prefix);
    const base = n - (n % size);
    const ip = (x: number) => [x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255].join('.');
    return { cidr: `${ip(base)}/${prefix}`, prefix, gateway: ip(base + 1) };
  }
  if (!addr || !net.isIPv6(addr) || addr.includes('.') || !Number.isInteger(prefix) || prefix < 16 || prefix > 120)
    throw new Error(`IPv6 pool must be an IPv6 /16..120, got ${cidr}`);
  const mask = (1n << BigInt(128 - prefix)) - 1n;
  const base = v6ToBigInt(addr.toLowerCase()) & ~mask;
  return { cidr: `${bigIntToV6(base)}/${prefix}`, prefix, gateway: bigIntToV6(base + 1n) };
}
