import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredState, NodeStealthUser } from '@warren/contract';
import type { StealthConfig } from './config.js';
import { loadStealthConfig } from './config.js';
import { type CoreApi, addUserRequest, decode, parseUserStats, removeUserRequest } from './core-api.js';
import { ACTIVE_MS, StealthRuntime, WATCH, certNotAfter, emailOf, parseCoreVersion } from './runtime.js';
import { SITE_PAGE } from './site.js';

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
const user = (owner: number, n = 0): NodeStealthUser => ({
  owner,
  id: `00000000-0000-4000-8000-${String(owner * 10 + n).padStart(12, '0')}`,
  password: `pw${String(owner).padStart(4, '0')}${n}-aaaaaaaaaaaaaaaaaaaa`,
});

/** A core in memory: the users of each inbound by email, as V2Ray's AlterInbound keeps them (errors included). */
class FakeCore implements CoreApi {
  inbounds = new Map<string, Map<string, string>>([
    ['trojan', new Map()],
    ['vless', new Map()],
  ]);
  up = true;
  uptimeS = 100;
  calls: string[] = [];
  stats = new Map<string, { up: number; down: number }>();
  async addUser(tag: string, email: string, account: { vless: string } | { trojan: string }) {
    if (!this.up) throw new Error('connect ECONNREFUSED');
    this.calls.push(`add ${tag} ${email}`);
    const m = this.inbounds.get(tag)!;
    if (m.has(email)) throw new Error(`v2ray.com/core/proxy/${tag}: User ${email} already exists.`);
    m.set(email, 'vless' in account ? account.vless : account.trojan);
  }
  async removeUser(tag: string, email: string) {
    if (!this.up) throw new Error('connect ECONNREFUSED');
    this.calls.push(`remove ${tag} ${email}`);
    if (!this.inbounds.get(tag)!.delete(email))
      throw new Error(`v2ray.com/core/proxy/${tag}: User ${email} not found.`);
  }
  async takeUserStats(email?: string) {
    if (!this.up) throw new Error('connect ECONNREFUSED');
    if (email !== undefined) {
      const one = this.stats.get(email);
      this.stats.delete(email);
      return new Map(one ? [[email, one]] : []);
    }
    const s = this.stats;
    this.stats = new Map();
    return s;
  }
  /** An open connection of this email moves bytes. */
  traffic(email: string, bytes = 1000) {
    const e = this.stats.get(email) ?? { up: 0, down: 0 };
    e.down += bytes;
    this.stats.set(email, e);
  }
  async uptime() {
    if (!this.up) throw new Error('connect ECONNREFUSED');
    return this.uptimeS;
  }
  close() {}
  restart() {
    for (const m of this.inbounds.values()) m.clear();
    this.uptimeS = 1;
  }
  held = (tag: string) => Object.fromEntries(this.inbounds.get(tag)!);
}

let dir: string;
let conf: StealthConfig;
const runtimes: StealthRuntime[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stealth-rt-'));
  conf = {
    host: 'node.example',
    port: 443,
    wsPath: '/abc',
    api: '127.0.0.1:1',
    site: { host: '127.0.0.1', port: 0 },
    v2rayBin: '/nonexistent/v2ray',
    stateFile: path.join(dir, 'owners.json'),
    restartFile: path.join(dir, 'restart'),
  };
});
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});
const e = (owner: number, n = 0) => emailOf(user(owner, n));
async function runtime(core: FakeCore, now?: () => number, restartCore?: (reason: string) => Promise<void>) {
  const r = new StealthRuntime(conf, core, () => undefined, now, restartCore);
  runtimes.push(r);
  await r.start();
  return r;
}

describe('StealthRuntime', () => {
  it('counts as live sessions the credentials that moved bytes in the last 3 minutes (warren_agent_sessions{protocol="stealth"})', async () => {
    const core = new FakeCore();
    let t = 1_000_000;
    const r = await runtime(core, () => t);
    await r.apply(answer({ stealthUsers: [user(1), user(2), user(3)] }));
    expect(r.activeSessions()).toBe(0);
    core.traffic(e(1));
    core.traffic(e(2));
    await r.collect();
    expect(r.activeSessions()).toBe(2);
    t += ACTIVE_MS - 1000;
    core.traffic(e(2));
    await r.collect();
    expect(r.activeSessions()).toBe(2);
    t += 2000; // owner 1 quiet for over 3 minutes; owner 2 moved 2 s ago
    await r.collect();
    expect(r.activeSessions()).toBe(1);
    t += ACTIVE_MS;
    expect(r.activeSessions()).toBe(0);
  });

  it('loads the first state, then applies deltas on the running core: adds, removes, rotates, touching no one else', async () => {
    const core = new FakeCore();
    const r = await runtime(core);
    await r.apply(answer({ stealthUsers: [user(1), user(2)] }));
    await r.check();
    expect(core.held('vless')).toEqual({ [e(1)]: user(1).id, [e(2)]: user(2).id });
    expect(core.held('trojan')).toEqual({ [e(1)]: user(1).password, [e(2)]: user(2).password });
    expect(e(1)).toMatch(/^u1\.[0-9a-f]{8}$/);
    core.calls = [];
    // Owner 2 rotated, owner 3 new, owner 1 untouched.
    await r.apply(answer({ full: false, changedOwners: [2, 3], stealthUsers: [user(2, 1), user(3)] }));
    expect(core.held('trojan')).toEqual({
      [e(1)]: user(1).password,
      [e(2, 1)]: user(2, 1).password,
      [e(3)]: user(3).password,
    });
    expect(core.calls.some((c) => c.endsWith(` ${e(1)}`))).toBe(false);
    core.calls = [];
    await r.apply(answer({ full: false, changedOwners: [2], stealthUsers: [] }));
    expect(core.held('vless')).toEqual({ [e(1)]: user(1).id, [e(3)]: user(3).id });
    expect(core.calls).toEqual([`remove trojan ${e(2, 1)}`, `remove vless ${e(2, 1)}`]);
    expect(r.state).toMatchObject({ up: true, users: 2, dirty: 0 });
  });

  it('a core that restarted (uptime went back) gets every user again', async () => {
    const core = new FakeCore();
    let t = 1_000_000;
    const r = await runtime(core, () => t);
    await r.apply(answer({ stealthUsers: [user(1), user(2)] }));
    await r.check();
    t += 10_000;
    core.uptimeS += 10;
    await r.check();
    expect(Object.keys(core.held('trojan'))).toEqual([e(1), e(2)]);
    core.restart();
    t += 2_000;
    await r.check();
    expect(Object.keys(core.held('trojan')).sort()).toEqual([e(1), e(2)].sort());
    expect(Object.keys(core.held('vless')).sort()).toEqual([e(1), e(2)].sort());
  });

  it('a core that is down fails nothing; the check catches up when it is back', async () => {
    const core = new FakeCore();
    const r = await runtime(core);
    await r.apply(answer({ stealthUsers: [user(1)] }));
    await r.check();
    core.up = false;
    await expect(
      r.apply(answer({ full: false, changedOwners: [1, 2], stealthUsers: [user(2)] })),
    ).resolves.toBeUndefined();
    await r.check();
    expect(r.state).toMatchObject({ up: false, dirty: 2 });
    core.up = true;
    await r.check();
    expect(core.held('trojan')).toEqual({ [e(2)]: user(2).password });
    expect(r.state).toMatchObject({ up: true, dirty: 0 });
  });

  it('after an agent restart, owners it gave the core earlier and no longer desired are removed from a core that ran on', async () => {
    const core = new FakeCore();
    const r1 = await runtime(core);
    await r1.apply(answer({ stealthUsers: [user(1), user(2)] }));
    await r1.check();
    await r1.stop();
    // The agent is away; owner 2 is revoked meanwhile. The core (its own unit) still holds u2.
    expect(JSON.parse(fs.readFileSync(conf.stateFile, 'utf8'))).toEqual({ emails: { 1: [e(1)], 2: [e(2)] } });
    const r2 = await runtime(core);
    await r2.check(); // no state yet: nothing is touched
    expect(Object.keys(core.held('trojan'))).toEqual([e(1), e(2)]);
    await r2.apply(answer({ stealthUsers: [user(1)] }));
    await r2.check();
    expect(core.held('trojan')).toEqual({ [e(1)]: user(1).password });
    expect(core.held('vless')).toEqual({ [e(1)]: user(1).id });
  });

  it("an older agent's state (owners, their u<owner> emails) is honoured: those users are removed, the desired ones get tagged emails", async () => {
    const core = new FakeCore();
    await core.addUser('trojan', 'u1', { trojan: user(1).password });
    await core.addUser('trojan', 'u2', { trojan: user(2).password });
    await core.addUser('vless', 'u2', { vless: user(2).id });
    fs.writeFileSync(conf.stateFile, '[1, 2]');
    const r = await runtime(core);
    await r.apply(answer({ stealthUsers: [user(1)] }));
    await r.check();
    expect(core.held('trojan')).toEqual({ [e(1)]: user(1).password });
    expect(core.held('vless')).toEqual({ [e(1)]: user(1).id });
  });

  describe("when access ends on open connections (V2Ray 4 cannot end one user's connections)", () => {
    async function twoUsers(restart: 'works' | 'ignored' = 'works') {
      const core = new FakeCore();
      const clock = { t: 1_000_000 };
      const asked: string[] = [];
      const r = await runtime(
        core,
        () => clock.t,
        async (reason) => {
          asked.push(reason);
          if (restart === 'works') core.restart();
        },
      );
      await r.apply(answer({ stealthUsers: [user(1), user(2), user(3)] }));
      await r.check();
      clock.t += 60_000;
      core.uptimeS += 60;
      return { core, clock, asked, r };
    }

    it('a removed customer whose counters still move after the grace gets the core restarted once; everyone desired is loaded again', async () => {
      const { core, clock, asked, r } = await twoUsers();
      await r.apply(answer({ full: false, changedOwners: [2], stealthUsers: [] }));
      expect(r.state.watched).toBe(1);
      // What was in flight when it was removed: not an open connection.
      core.traffic(e(2));
      clock.t += 500;
      await r.sample();
      expect(asked).toEqual([]);
      clock.t += WATCH.graceMs;
      core.traffic(e(2));
      await r.sample();
      expect(asked).toEqual(['1 customer(s) whose access ended still have open connections']);
      // Asked once, however long the restart takes.
      core.traffic(e(2));
      clock.t += 100;
      await r.sample();
      expect(asked).toHaveLength(1);
      clock.t += 100;
      await r.check();
      expect(core.held('trojan')).toEqual({ [e(1)]: user(1).password, [e(3)]: user(3).password });
      expect(core.held('vless')).toEqual({ [e(1)]: user(1).id, [e(3)]: user(3).id });
      expect(r.state).toMatchObject({ watched: 0, restarts: 1, users: 2 });
      // Its bytes are still reported (they were used before the restart ended them).
      expect((await r.collect()).stealthTraffic).toEqual([{ owner: 2, rxBytes: 0, txBytes: 3000 }]);
    });

    it("movement seen by the report's read counts too", async () => {
      const { core, clock, asked, r } = await twoUsers();
      await r.apply(answer({ full: false, changedOwners: [1], stealthUsers: [] }));
      clock.t += WATCH.graceMs;
      core.traffic(e(1));
      await r.collect();
      await r.sample();
      expect(asked).toHaveLength(1);
    });

    it("no restart: nothing moves, bytes only within the grace, a rotation's new credentials in use, the same credentials given back, a watch that ended", async () => {
      const { core, clock, asked, r } = await twoUsers();
      // Rotation of 1 (the new credentials are used at once), lapse of 2 (nothing open), 3 suspended and given back.
      await r.apply(answer({ full: false, changedOwners: [1, 2, 3], stealthUsers: [user(1, 1)] }));
      expect(r.state.watched).toBe(3);
      await r.apply(answer({ full: false, changedOwners: [3], stealthUsers: [user(3)] }));
      expect(r.state.watched).toBe(2);
      core.traffic(e(2)); // in flight
      clock.t += 400;
      await r.sample();
      for (let i = 0; i < 6; i++) {
        clock.t += 500;
        core.traffic(e(1, 1));
        core.traffic(e(3));
        await r.sample();
      }
      expect(asked).toEqual([]);
      clock.t += WATCH.forMs;
      await r.sample();
      expect(r.state.watched).toBe(0);
      core.traffic(e(2));
      await r.sample();
      expect(asked).toEqual([]);
    });

    it('at most one restart per gap; a restart that does not happen is reported and asked again after the gap', async () => {
      const { core, clock, asked, r } = await twoUsers('ignored');
      await r.apply(answer({ full: false, changedOwners: [1], stealthUsers: [] }));
      clock.t += WATCH.graceMs;
      core.traffic(e(1));
      await r.sample();
      expect(asked).toHaveLength(1);
      await r.apply(answer({ full: false, changedOwners: [2], stealthUsers: [] }));
      clock.t += WATCH.graceMs;
      core.traffic(e(2));
      await r.sample();
      expect(asked).toHaveLength(1);
      clock.t += WATCH.restartTimeoutMs;
      core.uptimeS += 20;
      await r.check(); // not restarted: reported, no longer awaited
      core.traffic(e(2));
      await r.sample();
      expect(asked).toEqual([
        '1 customer(s) whose access ended still have open connections',
        '2 customer(s) whose access ended still have open connections',
      ]);
    });

    it('the default way to ask: the trigger file its restart unit watches', async () => {
      const core = new FakeCore();
      let t = 1_000_000;
      const r = await runtime(core, () => t);
      await r.apply(answer({ stealthUsers: [user(1)] }));
      await r.check();
      await r.apply(answer({ full: false, changedOwners: [1], stealthUsers: [] }));
      t += WATCH.graceMs;
      core.traffic(e(1));
      await r.sample();
      expect(fs.readFileSync(conf.restartFile, 'utf8')).toMatch(
        /^\d{4}-.*Z 1 customer\(s\) whose access ended still have open connections\n$/,
      );
    });
  });

  it('a malformed answer is refused whole', async () => {
    const r = await runtime(new FakeCore());
    await expect(r.apply(answer({ stealthUsers: [{ owner: 1, id: 'x', password: 'y' }] }))).rejects.toThrow(
      /invalid stealth user/,
    );
  });

  it('reports the status and per-owner bytes; bytes of a failed report go with the next one', async () => {
    const core = new FakeCore();
    const pem = fs.readFileSync(new URL('./testdata/cert.pem', import.meta.url), 'utf8');
    fs.writeFileSync(path.join(dir, 'cert.pem'), pem);
    conf.certFile = path.join(dir, 'cert.pem');
    const r = await runtime(core);
    await r.apply(answer({ stealthUsers: [user(1)] }));
    await r.check();
    core.stats = parseUserStats([
      { name: `user>>>${e(1)}>>>traffic>>>uplink`, value: 100 },
      { name: `user>>>${e(1)}>>>traffic>>>downlink`, value: 2000 },
      { name: 'user>>>someone>>>traffic>>>uplink', value: 5 },
      { name: 'inbound>>>trojan>>>traffic>>>uplink', value: 9 },
    ]);
    const first = await r.collect();
    expect(first.stealth).toEqual({
      host: 'node.example',
      port: 443,
      wsPath: '/abc',
      up: true,
      version: null,
      users: 1,
      certNotAfter: certNotAfter(pem),
    });
    expect(first.stealth!.certNotAfter).toBeGreaterThan(0);
    expect(first.stealthTraffic).toEqual([{ owner: 1, rxBytes: 100, txBytes: 2000 }]);
    // Not committed (the report failed): counted again with the new bytes.
    core.stats = parseUserStats([{ name: `user>>>${e(1)}>>>traffic>>>uplink`, value: 1 }]);
    expect((await r.collect()).stealthTraffic).toEqual([{ owner: 1, rxBytes: 101, txBytes: 2000 }]);
    r.committed();
    expect((await r.collect()).stealthTraffic).toEqual([]);
  });

  it('serves an ordinary website on its loopback port', async () => {
    conf.site = { host: '127.0.0.1', port: 0 };
    const r = new StealthRuntime(conf, new FakeCore(), () => undefined);
    runtimes.push(r);
    await r.start();
    const addr = (r as unknown as { servers: http.Server[] }).servers[0]!.address() as { port: number };
    const page = await fetch(`http://127.0.0.1:${addr.port}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('server')).toBe('nginx');
    const text = await page.text();
    expect(text).toBe(SITE_PAGE);
    expect(text).not.toMatch(/vpn|warren|proxy|v2ray|trojan|vless/i);
    expect((await fetch(`http://127.0.0.1:${addr.port}/abc`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${addr.port}/`, { method: 'POST', body: 'x' })).status).toBe(405);
  });
});

describe('core API messages', () => {
  it('encodes AlterInbound add/remove as V2Ray expects (a TypedMessage inside a TypedMessage)', () => {
    const req = decode<{ tag: string; operation: { type: string; value: Buffer } }>(
      'v2ray.core.app.proxyman.command.AlterInboundRequest',
      addUserRequest('trojan', 'u7', { trojan: 'secret' }),
    );
    expect(req.tag).toBe('trojan');
    expect(req.operation.type).toBe('v2ray.core.app.proxyman.command.AddUserOperation');
    const op = decode<{ user: { level: number; email: string; account: { type: string; value: Buffer } } }>(
      'v2ray.core.app.proxyman.command.AddUserOperation',
      Buffer.from(req.operation.value),
    );
    expect(op.user).toMatchObject({ level: 0, email: 'u7', account: { type: 'v2ray.core.proxy.trojan.Account' } });
    expect(decode('v2ray.core.proxy.trojan.Account', Buffer.from(op.user.account.value))).toMatchObject({
      password: 'secret',
    });
    const vl = decode<{ operation: { value: Buffer } }>(
      'v2ray.core.app.proxyman.command.AlterInboundRequest',
      addUserRequest('vless', 'u7', { vless: user(7).id }),
    );
    const vop = decode<{ user: { account: { type: string; value: Buffer } } }>(
      'v2ray.core.app.proxyman.command.AddUserOperation',
      Buffer.from(vl.operation.value),
    );
    expect(decode('v2ray.core.proxy.vless.Account', Buffer.from(vop.user.account.value))).toMatchObject({
      id: user(7).id,
      encryption: 'none',
    });
    const rm = decode<{ operation: { type: string; value: Buffer } }>(
      'v2ray.core.app.proxyman.command.AlterInboundRequest',
      removeUserRequest('vless', 'u7'),
    );
    expect(rm.operation.type).toBe('v2ray.core.app.proxyman.command.RemoveUserOperation');
    expect(decode('v2ray.core.app.proxyman.command.RemoveUserOperation', Buffer.from(rm.operation.value))).toEqual({
      email: 'u7',
    });
  });

  it('reads the version line and the settings', () => {
    expect(parseCoreVersion('V2Ray 4.34.0 (user) 20230518-074445 (go1.19.8 linux/amd64)\nA unified platform')).toBe(
      '4.34.0',
    );
    expect(parseCoreVersion('nothing')).toBeNull();
    expect(loadStealthConfig('/var/lib/x', {})).toBeNull();
    expect(
      loadStealthConfig('/var/lib/x', { WARREN_STEALTH_HOST: 'vpn.example.com', WARREN_STEALTH_WS_PATH: '/p4th' }),
    ).toMatchObject({ port: 443, api: '127.0.0.1:10085', site: { host: '127.0.0.1', port: 10080 } });
    expect(() => loadStealthConfig('/x', { WARREN_STEALTH_HOST: 'vpn.example.com' })).toThrow(/WS_PATH/);
    expect(() => loadStealthConfig('/x', { WARREN_STEALTH_HOST: 'bad host', WARREN_STEALTH_WS_PATH: '/a' })).toThrow(
      /host name/,
    );
    expect(() =>
      loadStealthConfig('/x', {
        WARREN_STEALTH_HOST: 'a.b',
        WARREN_STEALTH_WS_PATH: '/a',
        WARREN_STEALTH_HTTP: 'nope',
      }),
    ).toThrow(/ADDRESS:PORT/);
  });
});
