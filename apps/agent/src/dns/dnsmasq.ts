/**
 * The node's plain resolver: Debian's dnsmasq (cache, upstreams) on WARREN_DNS_PLAIN. The ad
 * blocker is the agent's own responder in front of it (responder.ts, issue 23), which reads the
 * operator's lists with parseBlocklist below and forwards every name it does not block here.
 */
const NAME = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const NEVER_BLOCK = new Set(['localhost', 'local', 'arpa', 'in-addr.arpa', 'ip6.arpa']);

/**
 * Reads a blocklist: one name per line, `#` comments, and hosts-file lines (`0.0.0.0 ads.example`)
 * as the common public lists write them. Invalid lines are skipped, names are de-duplicated.
 */
export function parseBlocklist(text: string): string[] {
  const names = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim().toLowerCase();
    if (!line) continue;
    const parts = line.split(/\s+/);
    for (const candidate of parts.length > 1 && /^[\d.:]+$/.test(parts[0]!) ? parts.slice(1) : [parts[0]!]) {
      const name = candidate.replace(/^\*\./, '').replace(/\.$/, '');
      if (NAME.test(name) && name.includes('.') && !NEVER_BLOCK.has(name)) names.add(name);
    }
  }
  return [...names].sort();
}

export interface DnsmasqInput {
  /** Addresses to answer on (the first is the resolver's own address on lo). */
  listen: string[];
  /** Upstream resolvers; empty: the system's (resolv.conf). */
  upstream: string[];
}

export function dnsmasqArgs(o: DnsmasqInput): string[] {
  return [
    '--keep-in-foreground',
    '--conf-file=/dev/null',
    '--log-facility=-',
    '--no-hosts',
    '--bind-interfaces',
    ...o.listen.map((a) => `--listen-address=${a}`),
    '--port=53',
    '--pid-file=',
    '--user=root',
    '--cache-size=10000',
    ...(o.upstream.length ? ['--no-resolv', ...o.upstream.map((s) => `--server=${s}`)] : []),
  ];
}
