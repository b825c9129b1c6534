import fs from 'node:fs';
import path from 'node:path';
import { createAgentMetrics } from '@warren/agent';
import { expect, it } from 'vitest';
import { createMetrics } from '../src/lib/metrics.js';

/** ops/grafana/warren.json asks only for series the API and the agent really export. */
it('the Grafana dashboard uses only metrics the API and the agent export', async () => {
  const file = path.resolve(import.meta.dirname, '../../../ops/grafana/warren.json');
  const dashboard = JSON.parse(fs.readFileSync(file, 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
  const api = createMetrics({ activeSubscriptions: async () => [], jobQueues: async () => [] });
  api.collectDefaults();
  const agent = createAgentMetrics({ defaults: true });
  const exported = new Set<string>();
  for (const registry of [api.registry, agent.registry]) {
    for (const m of await registry.getMetricsAsJSON()) {
      exported.add(m.name);
      if (m.type === ('histogram' as never)) for (const s of ['_bucket', '_count', '_sum']) exported.add(`${m.name}${s}`);
    }
  }
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
