import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { NODE_MAX_WAIT_S, NODE_REPORT_INTERVAL_S } from '@warren/contract';
import { parseListen } from './metrics.js';

/**
 * Agent settings: every flag also has an environment variable (flags win). Documented in
 * apps/agent/README.md and by `warren-agent --help`.
 */
export interface AgentConfig {
  apiUrl: string;
  apiSocket?: string;
  token: string;
  iface: string;
  wgBin: string;
  stateDir: string;
  waitS: number;
  reportIntervalS: number;
  resyncIntervalS: number;
  /** Active peers at which the node counts as 100 % loaded. */
  capacity: number;
  /** Above this many changes one `wg syncconf` replaces a `wg set`. */
  maxSetChanges: number;
  /** The operator's peer cap for the interface, below the implementation's own (wireguard-go 65,536; the kernel 1,048,576). */
  maxPeers?: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Where the token was read from (never the token itself in logs). */
  tokenFile?: string;
  /** The Prometheus listener (`--metrics`); undefined: off. */
  metrics?: { host: string; port: number };
  /** The extra public UDP ports setup redirected to WireGuard (`--wg-extra-ports`); reported when their rule is in place. */
  wgExtraPorts: number[];
  /** The nft tool the agent lists that rule with. */
  nftBin: string;
}

/** Where the node token is read from when neither --token-file nor an environment variable names one. */
export const DEFAULT_TOKEN_FILE = '/etc/warren/node-token';

export const HELP = `Usage: warren-agent [run] [options]
       warren-agent setup [options]   make this server a node (warren-agent setup --help)

  --env-file PATH        read KEY=VALUE settings (the file \`setup\` writes, e.g. /etc/warren/agent.env);
                         the environment and flags win over it

  --api URL              API base URL                      WARREN_API_URL (required)
  --api-socket PATH      reach the API through a unix socket (API with LISTEN_SOCKET) WARREN_API_SOCKET
  --token-file PATH      the node token (from \`npx warren vpn add-node\`), mode 600
                                                            WARREN_NODE_TOKEN_FILE (default ${DEFAULT_TOKEN_FILE})
                         (WARREN_NODE_TOKEN holds the token itself, for containers; never a flag:
                         a command line is visible to every user in ps)
  --metrics [HOST:]PORT  Prometheus metrics on GET /metrics   WARREN_METRICS_LISTEN (default off; host 127.0.0.1)
  --interface NAME       WireGuard interface (exists, key and port set) WARREN_WG_INTERFACE (default wg0)
  --wg PATH              the wg tool                         WARREN_WG_BIN (default wg)
  --state-dir DIR        where the syncconf file is written  WARREN_STATE_DIR (default /var/lib/warren-agent)
  --wait S               long-poll seconds                   WARREN_WAIT_S (default 25)
  --report-interval S    counters and load report            WARREN_REPORT_INTERVAL_S (default ${NODE_REPORT_INTERVAL_S})
  --resync-interval S    full fetch + wg syncconf (drift)    WARREN_RESYNC_INTERVAL_S (default 300)
  --capacity N           active peers that mean 100 % load   WARREN_CAPACITY (default 1000)
  --max-peers N          peers the interface may hold at most WARREN_MAX_PEERS (default: the implementation's
                         cap, wireguard-go 65,536, the kernel 1,048,576); desired peers beyond it are
                         refused (reported, never retried in a loop) and the API gives the node no new device
  --wg-extra-ports LIST  public UDP ports setup redirects to WireGuard WARREN_WG_EXTRA_PORTS (setup writes it;
                         default none): each report names those whose nftables rule is in place
  --nft PATH             the nft tool                        WARREN_NFT_BIN (default nft)
  --log-level LEVEL      debug | info | warn | error         WARREN_LOG_LEVEL (default info)
`;

export class AgentConfigError extends Error {}

/**
 * Takes `--env-file PATH` (or `--env-file=PATH`) out of the arguments and loads that file into the
 * environment (variables already set win), so the services config reads it too. The other
 * arguments are returned.
 */
export function takeEnvFile(argv: string[], load: (file: string) => void = (f) => process.loadEnvFile(f)): string[] {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let file: string | undefined;
    if (a === '--env-file') {
      file = argv[++i];
      if (file === undefined) throw new AgentConfigError('Invalid agent configuration:\n  - --env-file needs a path');
    } else if (a.startsWith('--env-file=')) file = a.slice('--env-file='.length);
    else {
      rest.push(a);
      continue;
    }
    try {
      load(file);
    } catch (err) {
      throw new AgentConfigError(
        `Invalid agent configuration:\n  - cannot read --env-file ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  return rest;
}

export function loadAgentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): AgentConfig | 'help' {
  if (argv.some((a) => a === '--token' || a.startsWith('--token='))) {
    throw new AgentConfigError(
      'Invalid agent configuration:\n  - --token is gone: a command line is visible to every user (ps). Put the token in a file (mode 600) and pass --token-file, or use the default ' +
        DEFAULT_TOKEN_FILE,
    );
  }
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      api: { type: 'string' },
      'api-socket': { type: 'string' },
      'token-file': { type: 'string' },
      metrics: { type: 'string' },
      interface: { type: 'string' },
      wg: { type: 'string' },
      'state-dir': { type: 'string' },
      wait: { type: 'string' },
      'report-interval': { type: 'string' },
      'resync-interval': { type: 'string' },
      capacity: { type: 'string' },
      'max-set-changes': { type: 'string' },
      'max-peers': { type: 'string' },
      'log-level': { type: 'string' },
      'wg-extra-ports': { type: 'string' },
      nft: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const problems: string[] = [];
  const pick = (flag: string | undefined, envName: string) => flag ?? (env[envName] || undefined);
  const int = (v: string | undefined, name: string, def: number, min: number, max: number) => {
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) problems.push(`${name} must be an integer in ${min}..${max}`);
    return n;
  };
  const apiUrl =
    pick(values.api, 'WARREN_API_URL') ??
    (pick(values['api-socket'], 'WARREN_API_SOCKET') ? 'http://localhost' : undefined);
  if (!apiUrl) problems.push('--api (WARREN_API_URL) is required');
  else if (!/^https?:\/\//.test(apiUrl)) problems.push('--api must be an http:// or https:// URL');
  // The token: from a file by default (--token-file, WARREN_NODE_TOKEN_FILE, else DEFAULT_TOKEN_FILE); WARREN_NODE_TOKEN for containers.
  const namedFile = pick(values['token-file'], 'WARREN_NODE_TOKEN_FILE');
  let token = namedFile ? undefined : env.WARREN_NODE_TOKEN || undefined;
  const tokenFile = token ? undefined : path.resolve(namedFile ?? DEFAULT_TOKEN_FILE);
  if (tokenFile) {
    try {
      token = fs.readFileSync(tokenFile, 'utf8').trim();
      if (!token) problems.push(`the token file ${tokenFile} is empty`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push(
        code === 'ENOENT' && !namedFile
          ? `no node token: write it to ${DEFAULT_TOKEN_FILE} (mode 600) or pass --token-file PATH (WARREN_NODE_TOKEN_FILE)`
          : `cannot read the token file ${tokenFile} (${code ?? (err as Error).message})`,
      );
    }
  }
  const metricsValue = pick(values.metrics, 'WARREN_METRICS_LISTEN');
  const metrics = metricsValue ? parseListen(metricsValue) : undefined;
  if (metricsValue && !metrics) problems.push('--metrics must be PORT, HOST:PORT or [IPv6]:PORT');
  const iface = pick(values.interface, 'WARREN_WG_INTERFACE') ?? 'wg0';
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(iface))
    problems.push('--interface must be a valid interface name (up to 15 characters)');
  const logLevel = pick(values['log-level'], 'WARREN_LOG_LEVEL') ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel))
    problems.push('--log-level must be debug, info, warn or error');
  const extra = pick(values['wg-extra-ports'], 'WARREN_WG_EXTRA_PORTS');
  const wgExtraPorts = extra === undefined || extra === 'none' ? [] : extra.split(',').map((x) => Number(x.trim()));
  if (wgExtraPorts.some((n) => !Number.isInteger(n) || n < 1 || n > 65535))
    problems.push('--wg-extra-ports must be ports in 1..65535, comma-separated (or none)');
  const config: AgentConfig = {
    apiUrl: apiUrl ?? '',
    apiSocket: pick(values['api-socket'], 'WARREN_API_SOCKET'),
    token: token ?? '',
    iface,
    wgBin: pick(values.wg, 'WARREN_WG_BIN') ?? 'wg',
    stateDir: path.resolve(
      pick(values['state-dir'], 'WARREN_STATE_DIR') ??
        (process.getuid?.() === 0 ? '/var/lib/warren-agent' : path.join(os.tmpdir(), 'warren-agent')),
    ),
    waitS: int(pick(values.wait, 'WARREN_WAIT_S'), '--wait', 25, 0, NODE_MAX_WAIT_S),
    reportIntervalS: int(
      pick(values['report-interval'], 'WARREN_REPORT_INTERVAL_S'),
      '--report-interval',
      NODE_REPORT_INTERVAL_S,
      1,
      3600,
    ),
    resyncIntervalS: int(
      pick(values['resync-interval'], 'WARREN_RESYNC_INTERVAL_S'),
      '--resync-interval',
      300,
      5,
      86_400,
    ),
    capacity: int(pick(values.capacity, 'WARREN_CAPACITY'), '--capacity', 1000, 1, 10_000_000),
    maxSetChanges: int(pick(values['max-set-changes'], 'WARREN_MAX_SET_CHANGES'), '--max-set-changes', 500, 1, 100_000),
    maxPeers:
      pick(values['max-peers'], 'WARREN_MAX_PEERS') === undefined
        ? undefined
        : int(pick(values['max-peers'], 'WARREN_MAX_PEERS'), '--max-peers', 0, 1, 1 << 20),
    logLevel: logLevel as AgentConfig['logLevel'],
    tokenFile,
    metrics,
    wgExtraPorts,
    nftBin: pick(values.nft, 'WARREN_NFT_BIN') ?? 'nft',
  };
  if (problems.length)
    throw new AgentConfigError(`Invalid agent configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return config;
}
