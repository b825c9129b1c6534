/**
 * The node's resolvers: two Debian dnsmasq instances, one plain and one filtering (the ad blocker).
 * OpenVPN pushes one or the other per user at connect time; the SOCKS5 server resolves through one
 * or the other per user. The filtering one reads the operator's blocklist through a servers-file,
 * which dnsmasq re-reads on SIGHUP, so a blocklist update needs no restart: blocked names (and
 * their subdomains) get NXDOMAIN.
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

/** dnsmasq servers-file: `server=/name/` with no address means "answer locally", i.e. NXDOMAIN. */
export function renderServersFile(blocked: string[]): string {
  return `# Written by warren-agent from the blocklist.\n${blocked.map((n) => `server=/${n}/`).join('\n')}\n`;
}

export interface DnsmasqInput {
  /** Addresses to answer on (the first is the resolver's own address on lo). */
  listen: string[];
  /** Upstream resolvers; empty: the system's (resolv.conf). */
  upstream: string[];
  /** Only for the filtering instance. */
  serversFile?: string;
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
    ...(o.serversFile ? [`--servers-file=${o.serversFile}`] : []),
  ];
}
