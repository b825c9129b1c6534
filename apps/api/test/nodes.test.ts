// The node API the agents long-poll, through HTTP (modules/nodes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState, WgDevice } from '@warren/contract';
import { addLocation, addNode, issueNodeToken, setLocation } from '../src/modules/nodes/admin.js';
import { createTestApp, type TestApp } from './helpers.js';
import { vpnFixtures } from './vpn-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
const { wgKey, user, servers, overview, addDevice } = vpnFixtures(() => t);

describe('node API', () => {
  let token: string;
  let freeToken: string;
  beforeAll(async () => {
    await addLocation(t.app.db, {
      slug: 'xx-test',
      countryCode: 'XX',
      country: { en: 'Testland', ru: 'Тестландия', zh: '测试' },
      city: { en: 'Lab', ru: 'Лаб', zh: '实验室' },
      latitude: 0,
      longitude: 0,
      premium: true,
    });
    token = (await addNode(t.app.db, { location: 'xx-test', name: 'xx-test-1', endpointHost: '198.51.100.7' })).token;
    freeToken = await issueNodeToken(t.app.db, 'nl-ams-1');
  });
  const node = (tk: string) => ({ authorization: `Bearer ${tk}` });
  const desired = async (tk: string, q = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/api/nodes/desired${q}`, headers: node(tk) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as DesiredState;
  };

  it('refuses calls without a valid node token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/nodes/desired' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/nodes/desired', headers: node('wn_nope') })).statusCode,
    ).toBe(401);
    const { c } = await user('paid');
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/nodes/desired',
          headers: { authorization: `Bearer ${c.token}` },
        })
      ).statusCode,
    ).toBe(401);
  });

  it('puts paid devices on premium nodes and free devices only on free nodes', async () => {
    const { c: paid } = await user('paid');
    const { c: free } = await user('free');
    const pd = (await addDevice(paid)).json().data.device as WgDevice;
    const fd = (await addDevice(free)).json().data.device as WgDevice;
    const premium = await desired(token);
    expect(premium.full).toBe(true);
    const keys = premium.peers.map((p) => p.publicKey);
    expect(keys).toContain(pd.publicKey);
    expect(keys).not.toContain(fd.publicKey);
    expect(premium.peers.find((p) => p.publicKey === pd.publicKey)!.allowedIps).toEqual([
      `${pd.ipv4}/32`,
      `${pd.ipv6}/128`,
    ]);
    const freeNode = await desired(freeToken);
    expect(freeNode.peers.map((p) => p.publicKey)).toEqual(expect.arrayContaining([pd.publicKey, fd.publicKey]));
  });

  it('answers a delta with only the accounts that changed, and a long poll wakes on a new device and on a revoke', async () => {
    const { c } = await user('paid');
    const base = await desired(token);
    const q = `?since=${base.version}&at=${base.evaluatedAt}&wait=20`;
    const started = Date.now();
    const pending = desired(token, q);
    await new Promise((r) => setImmediate(r));
    const d = (await addDevice(c)).json().data.device as WgDevice;
    const delta = await pending;
    // Woken by the device, not by the 20 s poll timeout (the margin absorbs a loaded CI machine).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(delta.full).toBe(false);
    expect(delta.version).toBeGreaterThan(base.version);
    expect(delta.peers.map((p) => p.publicKey)).toEqual([d.publicKey]);
    expect(delta.changedOwners).toEqual([delta.peers[0]!.owner]);

    const pending2 = desired(token, `?since=${delta.version}&at=${delta.evaluatedAt}&wait=20`);
    await c.post('/api/setup/wg/devices/revoke', { id: d.id });
    const removed = await pending2;
    expect(removed).toMatchObject({ full: false, changedOwners: delta.changedOwners, peers: [] });
  });

  it('drops peers of an account whose subscription expires, by the clock, without any write', async () => {
    const { c, id } = await user('paid');
    await t.app.db.query(
      `update users set subscription_expires_at = now() + interval '1500 milliseconds' where id = $1`,
      [id],
    );
    const d = (await addDevice(c)).json().data.device as WgDevice;
    const now = await desired(token);
    expect(now.peers.map((p) => p.publicKey)).toContain(d.publicKey);
    expect(now.nextCheckAt).not.toBeNull();
    // The wake time is never before the expiry (which carries microseconds): a poll woken at the
    // floored millisecond evaluated just before it and sent an empty delta (a flaky failure below).
    const [exp] = await t.app.db.query<{ ms: number }>(
      `select extract(epoch from subscription_expires_at)::float8 * 1000 as ms from users where id = $1`,
      [id],
    );
    expect(now.nextCheckAt!).toBeGreaterThanOrEqual(exp!.ms);
    const started = Date.now();
    const later = await desired(token, `?since=${now.version}&at=${now.evaluatedAt}&wait=20`);
    // Woken by the expiry clock (1.5 s), not by the 20 s poll timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(later.full).toBe(false);
    expect(later.changedOwners).toContain(id);
    expect(later.peers.map((p) => p.publicKey)).not.toContain(d.publicKey);
    expect((await desired(token)).peers.map((p) => p.publicKey)).not.toContain(d.publicKey);
  });

  it('drops every peer of a deleted or deactivated account', async () => {
    const { c, id } = await user('paid');
    const d = (await addDevice(c)).json().data.device as WgDevice;
    const base = await desired(token);
    expect(base.peers.map((p) => p.publicKey)).toContain(d.publicKey);
    await t.app.db.query(`update users set account_status = 'Suspended' where id = $1`, [id]);
    const delta = await desired(token, `?since=${base.version}&at=${base.evaluatedAt}&wait=5`);
    expect(delta.changedOwners).toContain(id);
    expect(delta.peers.map((p) => p.publicKey)).not.toContain(d.publicKey);
    expect((await desired(freeToken)).peers.map((p) => p.publicKey)).not.toContain(d.publicKey);
  });

  it('sends a full state when a location changes plan, and an empty one to a disabled node', async () => {
    const base = await desired(token);
    await setLocation(t.app.db, 'xx-test', { premium: false });
    const after = await desired(token, `?since=${base.version}&at=${base.evaluatedAt}&wait=5`);
    expect(after.full).toBe(true);
    await setLocation(t.app.db, 'xx-test', { premium: true });
  });

  it('stores reports: load per location, handshake and transfer per device, never more', async () => {
    const { c } = await user('paid');
    const d = (await addDevice(c)).json().data.device as WgDevice;
    const hs = Math.floor(Date.now() / 1000) - 5;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/nodes/report',
      headers: node(token),
      payload: {
        load: 42,
        activePeers: 1,
        peers: [
          { publicKey: d.publicKey, lastHandshake: hs, rxBytes: 1234, txBytes: 5678 },
          { publicKey: wgKey(), lastHandshake: 0, rxBytes: 0, txBytes: 0 },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.accepted).toBe(1);
    const dev = (await overview(c)).devices[0]!;
    expect(dev).toMatchObject({ rxBytes: 1234, txBytes: 5678, lastHandshakeAt: new Date(hs * 1000).toISOString() });
    const loc = (await servers(c)).find((s) => s.countryCode === 'XX')!;
    expect(loc).toMatchObject({ load: 42, online: true });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/nodes/report',
      headers: node(token),
      payload: { load: 420, activePeers: -1, peers: [] },
    });
    expect(bad.statusCode).toBe(422);
  });
});
