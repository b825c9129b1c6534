import fs from 'node:fs';
import path from 'node:path';
import { createAgentMetrics } from '@warren/agent';
import { expect, it } from 'vitest';
import { createMetrics } from '../src/lib/metrics.js';

const ops = path.resolve(import.meta.dirname, '../../../ops');

/** Every series name the API (all sources on) and the agent export, histograms with their parts. */
async function exportedNames(): Promise<Set<string>> {
  const api = createMetrics({ activeSubscriptions: async () => [], jobQueues: async () => [], stealthNodes: async () => [], staffAuditHead: async () => 0 });
  api.collectDefaults();
  const agent = createAgentMetrics({ defaults: true });
  const exported = new Set<string>();
  for (const registry of [api.registry, agent.registry]) {
    for (const m of await registry.getMetricsAsJSON()) {
      exported.add(m.name);
      if (m.type === ('histogram' as never)) for (const s of ['_bucket', '_count', '_sum']) exported.add(`${m.name}${s}`);
    }
  }
  return exported;
}

/** ops/grafana/warren.json asks only for series the API and the agent really export. */
it('the Grafana dashboard uses only metrics the API and the agent export', async () => {
  const dashboard = JSON.parse(fs.readFileSync(path.join(ops, 'grafana/warren.json'), 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
  const exported = await exportedNames();
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
  expect(exprs.length).toBeGreaterThan(20);
  const used = new Set<string>();
  for (const { panel, expr } of exprs) {
    const names = expr.match(/\b(?:warren|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
    expect(names.length, panel).toBeGreaterThan(0);
    for (const n of names) {
      expect(exported.has(n), `${panel}: ${n}`).toBe(true);
      used.add(n.replace(/_(bucket|count|sum)$/, ''));
    }
  }
  // Every metric of ours has a panel.
  const ours = [...exported].filter((n) => n.startsWith('warren_') && !/_(bucket|count|sum)$/.test(n));
  expect(ours.filter((n) => !used.has(n))).toEqual(['warren_agent_desired_version']);
});

/** ops/prometheus/warren.rules.yml alerts on series that exist (a typo would never fire). */
it('the Prometheus alert rules use only metrics the API and the agent export', async () => {
  const exported = await exportedNames();
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
