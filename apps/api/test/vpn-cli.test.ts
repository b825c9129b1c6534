import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/lib/secrets.js';
import { type CliContext, runCli } from '../src/cli/index.js';
import { commands } from '../src/cli/vpn.js';
import { createTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function vpn(command: string, flags: Record<string, string | boolean>, positionals: string[] = []) {
  const lines: string[] = [];
  const ctx: CliContext = {
    db: t.app.db,
    config: t.config,
    services: async () => t.app.services,
    flags,
    positionals,
    print: (l) => lines.push(l),
  };
  await commands[command]!.run(ctx);
  return lines;
}

describe('npx warren vpn', () => {
  it('adds a location and a node, prints the token once and stores only its hash', async () => {
    await vpn('add-location', {
      slug: 'is-rey',
      'country-code': 'is',
      country: 'Iceland',
      'country-ru': 'Исландия',
      city: 'Reykjavik',
      lat: '64.14',
      lon: '-21.94',
      free: true,
    });
    const out = await vpn('add-node', {
      location: 'is-rey',
      name: 'is-rey-1',
      endpoint: '203.0.113.44',
      port: '51821',
    });
    const token = out.find((l) => l.startsWith('wn_'))!;
    expect(token).toMatch(/^wn_[A-Za-z0-9_-]{43}$/);
    // The next step as apps/agent/README.md gives it today: the token file, then setup with this port (issue 22).
    expect(out).toContain('  node /opt/warren-agent/bin/warren-agent.mjs setup --api https://<api host> --port 51821');
    expect(out.join('\n')).not.toMatch(/WARREN_API_URL=|npx warren-agent/);
    const [row] = await t.app.db.query<{
      token_hash: string;
      listen_port: number;
      premium: boolean;
      country_ru: string;
      country_zh: string;
    }>(
      `select n.token_hash, n.listen_port, l.premium, l.country_ru, l.country_zh from vpn_nodes n join vpn_locations l on l.id = n.location_id where n.name = 'is-rey-1'`,
    );
    expect(row).toMatchObject({
      token_hash: hashToken(token),
      listen_port: 51821,
      premium: false,
      country_ru: 'Исландия',
      country_zh: 'Iceland',
    });
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/nodes/desired',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(
      (await vpn('list', {})).some((l) => l.includes('is-rey-1') && l.includes('token:yes') && l.endsWith('agent:-')),
    ).toBe(true);
    // The version the agent reports (its package and commit, issue 22) is in the list.
    const report = await t.app.inject({
      method: 'POST',
      url: '/api/nodes/report',
      headers: { authorization: `Bearer ${token}` },
      payload: { load: 0, activePeers: 0, peers: [], agentVersion: '0.1.0+0123456789ab' },
    });
    expect(report.statusCode, report.body).toBe(200);
    expect((await vpn('list', {})).some((l) => l.includes('is-rey-1') && l.endsWith('agent:0.1.0+0123456789ab'))).toBe(
      true,
    );
  });

  it('rotates a node token: the old one stops working', async () => {
    const first = (await vpn('node-token', { node: 'de-fra-1' })).find((l) => l.startsWith('wn_'))!;
    const second = (await vpn('node-token', { node: 'de-fra-1' })).find((l) => l.startsWith('wn_'))!;
    const call = (tk: string) =>
      t.app.inject({ method: 'GET', url: '/api/nodes/desired', headers: { authorization: `Bearer ${tk}` } });
    expect((await call(first)).statusCode).toBe(401);
    expect((await call(second)).statusCode).toBe(200);
  });

  it('changes locations and nodes, and explains bad input', async () => {
    await vpn('set-location', { slug: 'de-fra', premium: 'true', visible: 'false' });
    const [l] = await t.app.db.query<{ premium: boolean; dash_visible: boolean }>(
      `select premium, dash_visible from vpn_locations where slug = 'de-fra'`,
    );
    expect(l).toEqual({ premium: true, dash_visible: false });
    await vpn('set-node', { node: 'de-fra-1', enabled: 'false' });
    await expect(vpn('set-node', { node: 'nope', enabled: 'false' })).rejects.toThrow('No node named nope.');
    await expect(vpn('add-node', { location: 'de-fra', name: 'Bad Name!', endpoint: 'x' })).rejects.toThrow(/name/);
    await expect(vpn('add-location', { slug: 'x' })).rejects.toThrow('--country is required');
    await expect(vpn('set-node', { node: 'de-fra-1', 'public-key': 'nope' })).rejects.toThrow(/public key/);
  });

  it('drains and undrains a node (issue 22), as the console does; the list says since when and the WireGuard capacity', async () => {
    const drainingSince = async () =>
      (
        await t.app.db.query<{ d: Date | null }>(`select draining_since as d from vpn_nodes where name = 'de-fra-1'`)
      )[0]!.d;
    expect((await vpn('drain', {}, ['de-fra-1'])).join('\n')).toContain('Node de-fra-1 is draining');
    const since = await drainingSince();
    expect(since).not.toBeNull();
    await vpn('drain', {}, ['de-fra-1']); // again: the drain keeps its start
    expect(await drainingSince()).toEqual(since);
    expect((await vpn('list', {})).find((l) => l.includes('de-fra-1'))).toContain(
      `draining-since:${new Date(since!).toISOString()}`,
    );
    await vpn('undrain', {}, ['de-fra-1']);
    expect(await drainingSince()).toBeNull();
    await vpn('set-node', { node: 'de-fra-1', draining: 'true' });
    expect(await drainingSince()).not.toBeNull();
    await vpn('set-node', { node: 'de-fra-1', draining: 'false' });
    expect(await drainingSince()).toBeNull();
    // Each change is in the staff audit log as the console's would be, by "operator (CLI)"; a refused one writes nothing.
    const rows = await t.app.db.query<{
      actor: string;
      action: string;
      target: string;
      detail: Record<string, unknown>;
    }>(
      `select actor, action, target, detail from staff_audit where action = 'node-update' and target = 'de-fra-1' and detail ? 'draining' order by id`,
    );
    expect(rows.map((r) => [r.actor, r.detail.draining])).toEqual([
      ['operator (CLI)', true],
      ['operator (CLI)', true],
      ['operator (CLI)', false],
      ['operator (CLI)', true],
      ['operator (CLI)', false],
    ]);
    await expect(vpn('drain', {}, ['no-such-node'])).rejects.toThrow('No node named no-such-node.');
    await expect(vpn('drain', {}, [])).rejects.toThrow('usage: npx warren vpn drain <node>');
    await expect(vpn('set-node', { node: 'de-fra-1', draining: 'maybe' })).rejects.toThrow(
      '--draining must be true or false',
    );
    expect(
      (
        await t.app.db.query(
          `select 1 from staff_audit where action = 'node-update' and target in ('de-fra-1', 'no-such-node') and detail ? 'draining'`,
        )
      ).length,
    ).toBe(5);
    await t.app.db.query(
      `update vpn_nodes set wg_kind = 'userspace', wg_max_peers = 65536, wg_peers = 65536, wg_refused = 12 where name = 'de-fra-1'`,
    );
    expect((await vpn('list', {})).find((l) => l.includes('de-fra-1'))).toContain(
      'wg:65536/65536(go) refused:12 agent:',
    );
  });

  // Opens a new embedded database (every migration, cold): ~13 s of CPU, more on a busy CI machine.
  it('is wired into the operator CLI', { timeout: 120_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-cli-'));
    const saved = {
      DATA_DIR: process.env.DATA_DIR,
      DATABASE_URL: process.env.DATABASE_URL,
      LOG_LEVEL: process.env.LOG_LEVEL,
    };
    process.env.DATA_DIR = dir;
    delete process.env.DATABASE_URL;
    try {
      const lines: string[] = [];
      expect(await runCli(['vpn'], (l) => lines.push(l))).toBe(0);
      expect(lines.join('\n')).toContain('add-node');
      expect(await runCli(['init'], () => {})).toBe(0); // the CLI makes no database unless asked (issue 22)
      const bad: string[] = [];
      expect(
        await runCli(['vpn', 'add-node', '--location', 'nowhere', '--name', 'n-1', '--endpoint', '192.0.2.1'], (l) =>
          bad.push(l),
        ),
      ).toBe(64);
      expect(bad.join('\n')).toContain('No location with the slug nowhere.');
      // drain / undrain take exactly one node name; anything else is a usage error that changes nothing.
      for (const args of [
        ['drain'],
        ['drain', 'a-1', 'b-1'],
        ['drian', 'a-1'],
        ['drain', '--node', 'a-1'],
        ['undrain', 'a-1', '--force'],
        ['drain', 'nowhere-1'],
      ]) {
        const out: string[] = [];
        expect(await runCli(['vpn', ...args], (l) => out.push(l)), args.join(' ')).toBe(64);
      }
    } finally {
      Object.assign(process.env, saved);
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
