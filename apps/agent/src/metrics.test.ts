import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DesiredState, NodeReport } from '@warren/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentApi, type AgentWg } from './agent.js';
import { AgentConfigError, DEFAULT_TOKEN_FILE, loadAgentConfig } from './config.js';
import { createAgentMetrics, parseListen, startMetricsServer } from './metrics.js';
import type { DesiredPeers } from './state.js';
import type { Dump } from './wg/dump.js';

const K = ['xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=', 'TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0='] as const;
const peer = (i: number) => ({ publicKey: K[i]!, allowedIps: [`10.64.0.${i + 2}/32`], owner: i });
const answer = (a: Partial<DesiredState>): DesiredState => ({
  node: { id: 1, name: 'n' },
  version: 1,
  evaluatedAt: 1000,
  nextCheckAt: null,
  full: true,
  changedOwners: [],
  peers: [],
  serviceUsers: [],
  stealthUsers: [],
  dnsBlocking: [],
  ...a,
});

class ScriptedApi implements AgentApi {
  answers: (DesiredState | Error)[] = [];
  reportFails = false;
  async desired() {
    const a = this.answers.shift() ?? new Error('no answer scripted');
    if (a instanceof Error) throw a;
    return a;
  }
  async report(r: NodeReport) {
    if (this.reportFails) throw new Error('connect ECONNREFUSED');
    return r.peers.length;
  }
}
class ScriptedWg implements AgentWg {
  iface = 'wgt0';
  failNext = false;
  dumpValue: Dump = { iface: { publicKey: K[0], listenPort: 51820, fwmark: 'off' }, peers: [] };
  async dump() {
    return this.dumpValue;
  }
  async set() {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('wg set failed');
    }
  }
  async syncconf(_peers: DesiredPeers) {}
}

function value(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('agent metrics', () => {
  it('shows peers, apply time and failures, the last sync and whether the API answers', async () => {
    const metrics = createAgentMetrics();
    const server = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0 });
    closers.push(server.close);
    const scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    const api = new ScriptedApi();
    const wg = new ScriptedWg();
    const agent = new Agent(api, wg, {
      waitS: 25,
      reportIntervalS: 30,
      resyncIntervalS: 300,
      capacity: 100,
      maxSetChanges: 10,
      observer: metrics.observer,
    });

    let text = await scrape();
    expect(value(text, 'warren_agent_last_sync_timestamp_seconds')).toBe(0);
    expect(value(text, 'warren_agent_apply_failures_total')).toBe(0);

    // A full state (syncconf), then a delta (wg set).
    const before = Date.now() / 1000;
    api.answers.push(
      answer({ version: 5, peers: [peer(0)] }),
      answer({ version: 6, full: false, changedOwners: [1], peers: [peer(1)] }),
    );
    await agent.syncOnce();
    await agent.syncOnce();
    text = await scrape();
    expect(value(text, 'warren_agent_peers')).toBe(2);
    expect(value(text, 'warren_agent_desired_version')).toBe(6);
    expect(value(text, 'warren_agent_api_up')).toBe(1);
    expect(value(text, 'warren_agent_apply_duration_seconds_count', 'mode="syncconf"')).toBe(1);
    expect(value(text, 'warren_agent_apply_duration_seconds_count', 'mode="set"')).toBe(1);
    expect(value(text, 'warren_agent_apply_duration_seconds_bucket', 'le="+Inf",mode="set"')).toBe(1);
    const synced = value(text, 'warren_agent_last_sync_timestamp_seconds')!;
    expect(synced).toBeGreaterThanOrEqual(Math.floor(before));
    expect(synced).toBeLessThanOrEqual(Date.now() / 1000);

    // wg fails: an apply failure, the API still up, the last sync unchanged.
    wg.failNext = true;
    api.answers.push(answer({ version: 7, full: false, changedOwners: [0], peers: [] }));
    await expect(agent.syncOnce()).rejects.toThrow('wg set failed');
    text = await scrape();
    expect(value(text, 'warren_agent_apply_failures_total')).toBe(1);
    expect(value(text, 'warren_agent_api_up')).toBe(1);
    expect(value(text, 'warren_agent_last_sync_timestamp_seconds')).toBe(synced);

    // The API is unreachable: down, counted per call; back: up again.
    api.answers.push(new Error('connect ECONNREFUSED'));
    await expect(agent.syncOnce()).rejects.toThrow('ECONNREFUSED');
    api.reportFails = true;
    await expect(agent.reportOnce()).rejects.toThrow('ECONNREFUSED');
    text = await scrape();
    expect(value(text, 'warren_agent_api_up')).toBe(0);
    expect(value(text, 'warren_agent_api_failures_total', 'call="desired"')).toBe(1);
    expect(value(text, 'warren_agent_api_failures_total', 'call="report"')).toBe(1);

    // A report with one active peer (handshake a minute ago) and the API back.
    api.reportFails = false;
    const nowS = Math.floor(Date.now() / 1000);
    wg.dumpValue = {
      ...wg.dumpValue,
      peers: [
        {
          publicKey: K[0],
          allowedIps: ['10.64.0.2/32'],
          latestHandshake: nowS - 60,
          rxBytes: 1,
          txBytes: 2,
          persistentKeepalive: 0,
        },
      ],
    };
    await agent.reportOnce();
    text = await scrape();
    expect(value(text, 'warren_agent_active_peers')).toBe(1);
    expect(value(text, 'warren_agent_api_up')).toBe(1);
    expect(text).not.toContain(K[0]); // no key, address or client figure is ever a label
  });

  it('serves GET /metrics only', async () => {
    const server = await startMetricsServer(createAgentMetrics({ defaults: true }).registry, {
      host: '127.0.0.1',
      port: 0,
    });
    closers.push(server.close);
    const base = `http://127.0.0.1:${server.port}`;
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(value(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});

describe('agent configuration', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-agent-cfg-'));
  const tokenFile = path.join(dir, 'node-token');
  fs.writeFileSync(tokenFile, 'node-token-value\n', { mode: 0o600 });
  const base = ['--api', 'http://127.0.0.1:1'];

  it('reads the token from a file and refuses it on the command line', () => {
    const c = loadAgentConfig([...base, '--token-file', tokenFile], {});
    expect(c).toMatchObject({ token: 'node-token-value', tokenFile });
    expect(loadAgentConfig(base, { WARREN_NODE_TOKEN_FILE: tokenFile })).toMatchObject({ token: 'node-token-value' });
    expect(() => loadAgentConfig([...base, '--token', 'secret'], {})).toThrow(/--token is gone.*--token-file/s);
    expect(() => loadAgentConfig([...base, '--token=secret'], {})).toThrow(AgentConfigError);
    // For containers the environment may hold it; a named file wins.
    expect(loadAgentConfig(base, { WARREN_NODE_TOKEN: 'from-env' })).toMatchObject({
      token: 'from-env',
      tokenFile: undefined,
    });
    expect(loadAgentConfig(base, { WARREN_NODE_TOKEN: 'from-env', WARREN_NODE_TOKEN_FILE: tokenFile })).toMatchObject({
      token: 'node-token-value',
    });
  });

  it('looks for the token in the documented default file', () => {
    if (fs.existsSync(DEFAULT_TOKEN_FILE)) return; // a real node: nothing to learn here
    expect(() => loadAgentConfig(base, {})).toThrow(`write it to ${DEFAULT_TOKEN_FILE}`);
    expect(() => loadAgentConfig([...base, '--token-file', path.join(dir, 'missing')], {})).toThrow(
      /cannot read the token file .*missing \(ENOENT\)/,
    );
    fs.writeFileSync(path.join(dir, 'empty'), '\n');
    expect(() => loadAgentConfig([...base, '--token-file', path.join(dir, 'empty')], {})).toThrow(/is empty/);
  });

  it('serves metrics only when asked, on 127.0.0.1 unless a host is given', () => {
    expect(loadAgentConfig([...base, '--token-file', tokenFile], {})).toMatchObject({ metrics: undefined });
    expect(loadAgentConfig([...base, '--token-file', tokenFile, '--metrics', '9465'], {})).toMatchObject({
      metrics: { host: '127.0.0.1', port: 9465 },
    });
    expect(
      loadAgentConfig([...base, '--token-file', tokenFile], { WARREN_METRICS_LISTEN: '10.0.0.5:9100' }),
    ).toMatchObject({ metrics: { host: '10.0.0.5', port: 9100 } });
    expect(parseListen('[::1]:9465')).toEqual({ host: '::1', port: 9465 });
    for (const bad of ['', 'x', '99999', 'host:', ':9465x', 'a b:1']) expect(parseListen(bad), bad).toBeUndefined();
    expect(() => loadAgentConfig([...base, '--token-file', tokenFile, '--metrics', 'nope'], {})).toThrow(
      /--metrics must be/,
    );
  });
});

describe('per-node figures (issue 22)', () => {
  it('counts peers by handshake age and sums their bytes', async () => {
    const { wireguardSummary, handshakeAge, buildLabels } = await import('./metrics.js');
    expect(buildLabels('0.1.0+abcdef123456')).toEqual({ version: '0.1.0', commit: 'abcdef123456' });
    expect(buildLabels('0.1.0')).toEqual({ version: '0.1.0', commit: 'unknown' });
    const now = 1_000_000;
    expect([0, now - 5, now - 600, now - 7200, now - 200_000].map((h) => handshakeAge(h, now))).toEqual([
      'never',
      'under_3m',
      'under_1h',
      'under_1d',
      'older',
    ]);
    expect(
      wireguardSummary(
        [
          { latestHandshake: now - 5, rxBytes: 10, txBytes: 20 },
          { latestHandshake: 0, rxBytes: 0, txBytes: 0 },
          { latestHandshake: now - 4000, rxBytes: 1, txBytes: 2 },
        ],
        now,
      ),
    ).toEqual({
      byAge: { under_3m: 1, under_1h: 0, under_1d: 1, older: 0, never: 1 },
      rx: 11,
      tx: 22,
    });
  });

  it('exports build info, sessions and the WireGuard figures from the start, and after a report', async () => {
    const { createAgentMetrics } = await import('./metrics.js');
    const m = createAgentMetrics();
    let socks = 3;
    m.sessions('socks5', () => socks);
    const before = await m.registry.metrics();
    expect(before).toMatch(/warren_agent_build_info\{version="[^"]+",commit="[^"]+"\} 1/);
    expect(before).toContain('warren_agent_sessions{protocol="wireguard"} 0');
    expect(before).toContain('warren_agent_sessions{protocol="socks5"} 3');
    expect(before).toContain('warren_agent_wireguard_peers{age="never"} 0');
    m.observer.reported(2);
    m.observer.wireguard!([{ latestHandshake: 990, rxBytes: 5, txBytes: 7 }], 1000);
    socks = 1;
    const after = await m.registry.metrics();
    expect(after).toContain('warren_agent_sessions{protocol="wireguard"} 2');
    expect(after).toContain('warren_agent_sessions{protocol="socks5"} 1');
    expect(after).toContain('warren_agent_wireguard_peers{age="under_3m"} 1');
    expect(after).toContain('warren_agent_wireguard_transfer_bytes{direction="tx"} 7');
  });

  it('reads OpenVPN and stealth sessions at each scrape; a source that cannot answer keeps its last value', async () => {
    const { createAgentMetrics } = await import('./metrics.js');
    const m = createAgentMetrics();
    let openvpn: number | undefined = 4;
    m.sessions('openvpn', async () => openvpn);
    m.sessions('stealth', () => 2);
    const first = await m.registry.metrics();
    expect(first).toContain('warren_agent_sessions{protocol="openvpn"} 4');
    expect(first).toContain('warren_agent_sessions{protocol="stealth"} 2');
    openvpn = undefined;
    expect(await m.registry.metrics()).toContain('warren_agent_sessions{protocol="openvpn"} 4');
    openvpn = 0;
    expect(await m.registry.metrics()).toContain('warren_agent_sessions{protocol="openvpn"} 0');
  });
});
