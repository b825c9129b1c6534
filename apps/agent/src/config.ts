import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { NODE_MAX_WAIT_S, NODE_REPORT_INTERVAL_S } from '@warren/contract';

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
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export const HELP = `Usage: warren-agent [options]

  --api URL              API base URL                      WARREN_API_URL (required)
  --api-socket PATH      reach the API through a unix socket WARREN_API_SOCKET
  --token TOKEN          node token from \`npx warren vpn add-node\` WARREN_NODE_TOKEN
  --token-file PATH      read the token from a file         WARREN_NODE_TOKEN_FILE
  --interface NAME       WireGuard interface (exists, key and port set) WARREN_WG_INTERFACE (default wg0)
  --wg PATH              the wg tool                         WARREN_WG_BIN (default wg)
  --state-dir DIR        where the syncconf file is written  WARREN_STATE_DIR (default /var/lib/warren-agent)
  --wait S               long-poll seconds                   WARREN_WAIT_S (default 25)
  --report-interval S    counters and load report            WARREN_REPORT_INTERVAL_S (default ${NODE_REPORT_INTERVAL_S})
  --resync-interval S    full fetch + wg syncconf (drift)    WARREN_RESYNC_INTERVAL_S (default 300)
  --capacity N           active peers that mean 100 % load   WARREN_CAPACITY (default 1000)
  --log-level LEVEL      debug | info | warn | error         WARREN_LOG_LEVEL (default info)
`;

export class AgentConfigError extends Error {}

export function loadAgentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): AgentConfig | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      api: { type: 'string' }, 'api-socket': { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' },
      interface: { type: 'string' }, wg: { type: 'string' }, 'state-dir': { type: 'string' }, wait: { type: 'string' },
      'report-interval': { type: 'string' }, 'resync-interval': { type: 'string' }, capacity: { type: 'string' },
      'max-set-changes': { type: 'string' }, 'log-level': { type: 'string' }, help: { type: 'boolean', short: 'h' },
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
  const apiUrl = pick(values.api, 'WARREN_API_URL') ?? (pick(values['api-socket'], 'WARREN_API_SOCKET') ? 'http://localhost' : undefined);
  if (!apiUrl) problems.push('--api (WARREN_API_URL) is required');
  else if (!/^https?:\/\//.test(apiUrl)) problems.push('--api must be an http:// or https:// URL');
  let token = pick(values.token, 'WARREN_NODE_TOKEN');
  const tokenFile = pick(values['token-file'], 'WARREN_NODE_TOKEN_FILE');
  if (!token && tokenFile) {
    try {
      token = fs.readFileSync(tokenFile, 'utf8').trim();
    } catch (err) {
      problems.push(`cannot read the token file: ${(err as Error).message}`);
    }
  }
  if (!token) problems.push('--token or --token-file (WARREN_NODE_TOKEN[_FILE]) is required');
  const iface = pick(values.interface, 'WARREN_WG_INTERFACE') ?? 'wg0';
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(iface)) problems.push('--interface must be a valid interface name (up to 15 characters)');
  const logLevel = pick(values['log-level'], 'WARREN_LOG_LEVEL') ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) problems.push('--log-level must be debug, info, warn or error');
  const config: AgentConfig = {
    apiUrl: apiUrl ?? '',
    apiSocket: pick(values['api-socket'], 'WARREN_API_SOCKET'),
    token: token ?? '',
    iface,
    wgBin: pick(values.wg, 'WARREN_WG_BIN') ?? 'wg',
    stateDir: path.resolve(pick(values['state-dir'], 'WARREN_STATE_DIR') ?? (process.getuid?.() === 0 ? '/var/lib/warren-agent' : path.join(os.tmpdir(), 'warren-agent'))),
    waitS: int(pick(values.wait, 'WARREN_WAIT_S'), '--wait', 25, 0, NODE_MAX_WAIT_S),
    reportIntervalS: int(pick(values['report-interval'], 'WARREN_REPORT_INTERVAL_S'), '--report-interval', NODE_REPORT_INTERVAL_S, 1, 3600),
    resyncIntervalS: int(pick(values['resync-interval'], 'WARREN_RESYNC_INTERVAL_S'), '--resync-interval', 300, 5, 86_400),
    capacity: int(pick(values.capacity, 'WARREN_CAPACITY'), '--capacity', 1000, 1, 10_000_000),
    maxSetChanges: int(pick(values['max-set-changes'], 'WARREN_MAX_SET_CHANGES'), '--max-set-changes', 500, 1, 100_000),
    logLevel: logLevel as AgentConfig['logLevel'],
  };
  if (problems.length) throw new AgentConfigError(`Invalid agent configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return config;
}
