import fs from 'node:fs';
import path from 'node:path';
import { createAgentMetrics, startMetricsServer } from '@warren/agent';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type MetricsListener, startMetricsListener } from '../src/plugins/metrics.js';
import { type TestApp, createTestApp } from './helpers.js';

const ops = path.resolve(import.meta.dirname, '../../../ops');

/**
 * What Prometheus would read (issue 22): a real scrape of a running API's metrics listener (after
 * one request) and of the agent's metrics server as main.ts starts it, before any round. Per name:
 * its type, and whether the scrape holds a sample of it (a HELP line alone draws nothing).
 */
interface Scraped {
  types: Map<string, string>;
  sampled: Set<string>;
}
let t: TestApp;
let listener: MetricsListener;
let agent: { port: number; close(): Promise<void> };
let scraped: Scraped;

async function scrape(url: string, into: Scraped): Promise<void> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  for (const line of (await res.text()).split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) into.types.set(type[1]!, type[2]!);
    else if (line && !line.startsWith('#')) into.sampled.add(line.split(/[{ ]/, 1)[0]!);
  }
}

beforeAll(async () => {
  // The job engine on, as a deployment runs it: its queue gauge is part of the scrape.
  t = await createTestApp({ JOBS: 'true' });
  listener = await startMetricsListener(t.app.services.metrics, { host: '127.0.0.1', port: 0 });
  const metrics = createAgentMetrics({ defaults: true });
  agent = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0 });
  expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  scraped = { types: new Map(), sampled: new Set() };
  await scrape(`http://127.0.0.1:${listener.port}/metrics`, scraped);
  await scrape(`http://127.0.0.1:${agent.port}/metrics`, scraped);
});
afterAll(async () => {
  await agent?.close();
  await listener?.close();
  await t?.close();
});

/** Every series name the scrape declares, histograms with their parts. */
function exportedNames(): Set<string> {
  const exported = new Set<string>();
  for (const [name, type] of scraped.types) {
    exported.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_count', '_sum']) exported.add(`${name}${s}`);
  }
  return exported;
}

/**
 * Series that are empty until there is something to count per entity (a node's stealth core, an agent's cap before its first round, a
 * tariff with members, a job queue): the dashboard may ask for them, and they draw nothing on an
 * empty deployment. Everything else must be in the scrape from the start.
 */
const PER_ENTITY = new Set([
  'warren_active_subscriptions',
  'warren_job_queue_jobs',
  'warren_node_stealth_up',
  'warren_node_stealth_users',
  'warren_node_stealth_cert_expiry_seconds',
  'warren_node_stealth_info',
  'warren_agent_wireguard_max_peers',
]);

it('every warren counter and histogram has its known label sets at zero from the start, and both sides say what runs', () => {
  const empty = [...scraped.types].filter(
    ([name, type]) =>
      name.startsWith('warren_') &&
      (type === 'counter' || type === 'histogram') &&
      !scraped.sampled.has(type === 'histogram' ? `${name}_count` : name),
  );
  expect(empty.map(([n]) => n)).toEqual([]);
  for (const n of [
    'warren_build_info',
    'warren_agent_build_info',
    'warren_nodes',
    'warren_nodes_draining',
    'warren_agent_sessions',
    'warren_agent_wireguard_peers',
    'warren_agent_wireguard_transfer_bytes',
  ]) {
    expect(scraped.sampled.has(n), n).toBe(true);
  }
});

/** ops/grafana/warren.json asks only for series the API and the agent really export. */
it('the Grafana dashboard uses only series a real scrape of the API and the agent holds', () => {
  const dashboard = JSON.parse(fs.readFileSync(path.join(ops, 'grafana/warren.json'), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const exported = exportedNames();
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
  expect(exprs.length).toBeGreaterThan(20);
  const used = new Set<string>();
  for (const { panel, expr } of exprs) {
    const names = expr.match(/\b(?:warren|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
    expect(names.length, panel).toBeGreaterThan(0);
    for (const n of names) {
      expect(exported.has(n), `${panel}: ${n}`).toBe(true);
      const base = scraped.types.has(n) ? n : n.replace(/_(bucket|count|sum)$/, '');
      // Declared is not enough: a panel draws samples (a counter nobody initialised is an empty panel until its first event).
      expect(scraped.sampled.has(n) || PER_ENTITY.has(base), `${panel}: ${n} has no sample in the scrape`).toBe(true);
      used.add(base);
    }
  }
  // Every metric of ours has a panel.
  const ours = [...exported].filter((n) => n.startsWith('warren_') && !/_(bucket|count|sum)$/.test(n));
  expect(ours.filter((n) => !used.has(n))).toEqual(['warren_agent_desired_version']);
});

/** ops/prometheus/warren.rules.yml alerts on series that exist (a typo would never fire). */
it('the Prometheus alert rules use only metrics the API and the agent export', () => {
  const exported = exportedNames();
  const rules = fs.readFileSync(path.join(ops, 'prometheus/warren.rules.yml'), 'utf8');
  const exprs = [...rules.matchAll(/^\s*expr: (.+)$/gm)].map((m) => m[1]!);
  expect(exprs.length).toBeGreaterThan(8);
  for (const expr of exprs) {
    const names = expr.match(/\b(?:warren|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
    if (!/\bup\{/.test(expr)) expect(names.length, expr).toBeGreaterThan(0);
    for (const n of names) expect(exported.has(n), `${expr}: ${n}`).toBe(true);
  }
  expect(fs.readFileSync(path.join(ops, 'prometheus/prometheus.yml'), 'utf8')).toContain('warren.rules.yml');
});
