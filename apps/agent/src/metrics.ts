import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AgentObserver, ApplyMode } from './agent.js';

/**
 * The agent's Prometheus metrics, served on a local port when `--metrics` is given (off by
 * default). Nothing here names a client: counts, times and the API's reachability only.
 */
export function createAgentMetrics(opts: { defaults?: boolean } = {}) {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const peers = new Gauge({ name: 'warren_agent_peers', help: 'WireGuard peers the interface was last set to', registers: [registry] });
  const activePeers = new Gauge({ name: 'warren_agent_active_peers', help: 'Peers with a handshake in the last 3 minutes (last report)', registers: [registry] });
  const applyDuration = new Histogram({
    name: 'warren_agent_apply_duration_seconds',
    help: 'Time to apply a desired state to the interface and services, by mode (set: one wg set; syncconf: a full wg syncconf)',
    labelNames: ['mode'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const applyFailures = new Counter({ name: 'warren_agent_apply_failures_total', help: 'Desired states that failed to apply (wg or a service); the next round is a full syncconf', registers: [registry] });
  const lastSync = new Gauge({ name: 'warren_agent_last_sync_timestamp_seconds', help: 'Unix time of the last round that fetched and applied the desired state', registers: [registry] });
  const apiUp = new Gauge({ name: 'warren_agent_api_up', help: '1 when the last call to the API succeeded, 0 when it failed', registers: [registry] });
  const apiFailures = new Counter({ name: 'warren_agent_api_failures_total', help: 'Calls to the API that failed (network, timeout, non-2xx), by call', labelNames: ['call'] as const, registers: [registry] });
  const version = new Gauge({ name: 'warren_agent_desired_version', help: "The API change-log version last applied", registers: [registry] });

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
    },
  };
  // Series that exist from the start, so a dashboard shows 0 rather than nothing.
  apiFailures.inc({ call: 'desired' }, 0);
  apiFailures.inc({ call: 'report' }, 0);
  return { registry, observer };
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
export async function startMetricsServer(registry: Registry, listen: { host: string; port: number }): Promise<{ port: number; close(): Promise<void> }> {
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
