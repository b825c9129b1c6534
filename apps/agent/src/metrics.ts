import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AgentObserver, ApplyMode } from './agent.js';
import { AGENT_VERSION } from './version.js';

/** warren_agent_build_info's labels from the agent's version, `0.1.0+<commit>` (version.ts). */
export function buildLabels(version: string): { version: string; commit: string } {
  const plus = version.indexOf('+');
  return plus < 0
    ? { version, commit: 'unknown' }
    : { version: version.slice(0, plus), commit: version.slice(plus + 1) || 'unknown' };
}

/** Handshake ages the node's peers are counted in (warren_agent_wireguard_peers): a fixed set, so series exist from the start. */
export const HANDSHAKE_AGES = ['under_3m', 'under_1h', 'under_1d', 'older', 'never'] as const;
export type HandshakeAge = (typeof HANDSHAKE_AGES)[number];

/** The protocols a node serves sessions on (warren_agent_sessions). */
export const SESSION_PROTOCOLS = ['wireguard', 'openvpn', 'stealth', 'socks5'] as const;
export type SessionProtocol = (typeof SESSION_PROTOCOLS)[number];

/** Where a peer's latest handshake puts it (unix seconds; 0 = never). */
export function handshakeAge(latestHandshake: number, nowS: number): HandshakeAge {
  if (latestHandshake <= 0) return 'never';
  const age = nowS - latestHandshake;
  return age < 180 ? 'under_3m' : age < 3600 ? 'under_1h' : age < 86_400 ? 'under_1d' : 'older';
}

/** The peers of a dump by handshake age, and the bytes they moved (the interface's counters, which start again when a peer is re-added). */
export function wireguardSummary(
  peers: readonly { latestHandshake: number; rxBytes: number; txBytes: number }[],
  nowS: number,
) {
  const byAge = Object.fromEntries(HANDSHAKE_AGES.map((a) => [a, 0])) as Record<HandshakeAge, number>;
  let rx = 0;
  let tx = 0;
  for (const p of peers) {
    byAge[handshakeAge(p.latestHandshake, nowS)]++;
    rx += p.rxBytes;
    tx += p.txBytes;
  }
  return { byAge, rx, tx };
}

/**
 * The agent's Prometheus metrics, served on a local port when `--metrics` is given (off by
 * default). Nothing here names a client: counts, times and the API's reachability only.
 */
export function createAgentMetrics(opts: { defaults?: boolean } = {}) {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const peers = new Gauge({
    name: 'warren_agent_peers',
    help: 'WireGuard peers the interface was last set to',
    registers: [registry],
  });
  const activePeers = new Gauge({
    name: 'warren_agent_active_peers',
    help: 'Peers with a handshake in the last 3 minutes (last report)',
    registers: [registry],
  });
  const applyDuration = new Histogram({
    name: 'warren_agent_apply_duration_seconds',
    help: 'Time to apply a desired state to the interface and services, by mode (set: one wg set; syncconf: a full wg syncconf)',
    labelNames: ['mode'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const applyFailures = new Counter({
    name: 'warren_agent_apply_failures_total',
    help: 'Desired states that failed to apply (wg or a service); the next round is a full syncconf',
    registers: [registry],
  });
  const lastSync = new Gauge({
    name: 'warren_agent_last_sync_timestamp_seconds',
    help: 'Unix time of the last round that fetched and applied the desired state',
    registers: [registry],
  });
  const apiUp = new Gauge({
    name: 'warren_agent_api_up',
    help: '1 when the last call to the API succeeded, 0 when it failed',
    registers: [registry],
  });
  const apiFailures = new Counter({
    name: 'warren_agent_api_failures_total',
    help: 'Calls to the API that failed (network, timeout, non-2xx), by call',
    labelNames: ['call'] as const,
    registers: [registry],
  });
  const version = new Gauge({
    name: 'warren_agent_desired_version',
    help: 'The API change-log version last applied',
    registers: [registry],
  });
  new Gauge({
    name: 'warren_agent_build_info',
    help: "What is running: the agent's version and the commit it was built from (value 1)",
    labelNames: ['version', 'commit'] as const,
    registers: [registry],
  }).set(buildLabels(AGENT_VERSION), 1);
  const wgPeers = new Gauge({
    name: 'warren_agent_wireguard_peers',
    help: "The interface's peers by the age of their latest handshake (under_3m, under_1h, under_1d, older, never), at the last report",
    labelNames: ['age'] as const,
    registers: [registry],
  });
  const wgBytes = new Gauge({
    name: 'warren_agent_wireguard_transfer_bytes',
    help: "Bytes the interface's current peers moved (rx: from clients; tx: to clients), summed at the last report; a removed peer's bytes leave the sum",
    labelNames: ['direction'] as const,
    registers: [registry],
  });
  const wgMaxPeers = new Gauge({
    name: 'warren_agent_wireguard_max_peers',
    help: 'Peers the interface can hold at most (wireguard-go 65,536, the kernel 1,048,576, or the lower --max-peers), by implementation (kernel, userspace), at the last report',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const wgRefused = new Gauge({
    name: 'warren_agent_wireguard_refused_peers',
    help: 'Desired peers left off the interface for want of room (0 when all fit), at the last report',
    registers: [registry],
  });
  /** Live sessions by protocol: WireGuard's are the peers with a handshake in the last 3 minutes; others come from their servers when they run here. */
  const sessionSources = new Map<SessionProtocol, () => number | undefined | Promise<number | undefined>>();
  let wgActive = 0;
  new Gauge({
    name: 'warren_agent_sessions',
    help: 'Live sessions on the node by protocol (wireguard: peers with a handshake in the last 3 minutes; openvpn: connected clients; stealth: credentials that moved bytes in the last 3 minutes; socks5: open proxied connections)',
    labelNames: ['protocol'] as const,
    registers: [registry],
    async collect() {
      this.set({ protocol: 'wireguard' }, wgActive);
      // A source that cannot answer now (an OpenVPN server restarting) leaves its last value.
      await Promise.all(
        [...sessionSources].map(async ([protocol, read]) => {
          const n = await Promise.resolve(read()).catch(() => undefined);
          if (n !== undefined) this.set({ protocol }, n);
        }),
      );
    },
  });

  const observer: AgentObserver = {
    applied(mode: ApplyMode, seconds: number) {
      if (mode !== 'none') applyDuration.observe({ mode }, seconds);
    },
    applyFailed() {
      applyFailures.inc();
    },
    synced(atMs: number, peerCount: number, v: number) {
      lastSync.set(atMs / 1000);
      peers.set(peerCount);
      version.set(v);
    },
    api(call: 'desired' | 'report', ok: boolean) {
      apiUp.set(ok ? 1 : 0);
      if (!ok) apiFailures.inc({ call });
    },
    reported(active: number) {
      activePeers.set(active);
      wgActive = active;
    },
    capacity(c) {
      wgMaxPeers.reset();
      wgMaxPeers.set({ kind: c.kind }, c.maxPeers);
      wgRefused.set(c.refused);
    },
    wireguard(peers, nowS) {
      const { byAge, rx, tx } = wireguardSummary(peers, nowS);
      for (const age of HANDSHAKE_AGES) wgPeers.set({ age }, byAge[age]);
      wgBytes.set({ direction: 'rx' }, rx);
      wgBytes.set({ direction: 'tx' }, tx);
    },
  };
  // Series that exist from the start, so a dashboard shows 0 rather than nothing.
  apiFailures.inc({ call: 'desired' }, 0);
  apiFailures.inc({ call: 'report' }, 0);
  for (const mode of ['set', 'syncconf'] as const) applyDuration.zero({ mode });
  for (const age of HANDSHAKE_AGES) wgPeers.set({ age }, 0);
  for (const direction of ['rx', 'tx'] as const) wgBytes.set({ direction }, 0);
  wgRefused.set(0);
  return {
    registry,
    observer,
    /** A protocol's live sessions, read at each scrape (main.ts: the OpenVPN servers, the stealth core and the SOCKS5 server that run here). */
    sessions(
      protocol: Exclude<SessionProtocol, 'wireguard'>,
      read: () => number | undefined | Promise<number | undefined>,
    ) {
      sessionSources.set(protocol, read);
    },
  };
}
export type AgentMetrics = ReturnType<typeof createAgentMetrics>;

/** `HOST:PORT`, `[v6]:PORT` or a bare port (127.0.0.1). */
export function parseListen(value: string): { host: string; port: number } | undefined {
  const m = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):)?(\d{1,5})$/.exec(value.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: m[1] ?? m[2] ?? '127.0.0.1', port };
}

/** Serves `GET /metrics` (Prometheus text format) and nothing else. */
export async function startMetricsServer(
  registry: Registry,
  listen: { host: string; port: number },
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path !== '/metrics') return send(404, 'Not found.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'Method not allowed.\n');
    registry.metrics().then(
      (text) => send(200, text, registry.contentType),
      () => send(500, 'Metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
