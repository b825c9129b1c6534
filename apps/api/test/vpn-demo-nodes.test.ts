import crypto from 'node:crypto';
import type { ServerListItem, ServicesOverview, WgOverview } from '@warren/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, customerOnPlan, type TestApp, type TestClient } from './helpers.js';

/**
 * Seeded locations and their nodes (issue 15). In production the seed brings locations without
 * placeholder nodes, and a location is offered to customers (server list, WireGuard, OpenVPN and
 * SOCKS5) only when it has an enabled node that has reported. Outside production every seeded
 * location has a demo node, marked as such for the operator, and is offered before any report.
 */
const wgKey = () =>
  crypto
    .generateKeyPairSync('x25519')
    .publicKey.export({ format: 'der', type: 'spki' })
    .subarray(-32)
    .toString('base64');

const paidCustomer = async (t: TestApp) => (await customerOnPlan(t.app, 'paid')).c;
const servers = async (c: TestClient) =>
  (await c.get('/api/setup/servers/get')).json().data.serverList as ServerListItem[];
const wg = async (c: TestClient) => (await c.get('/api/setup/wg/get')).json().data as WgOverview;
const services = async (c: TestClient) => (await c.get('/api/setup/services/get')).json().data as ServicesOverview;
const report = (t: TestApp, token: string, publicKey?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/nodes/report',
    headers: { authorization: `Bearer ${token}` },
    payload: { load: 10, activePeers: 0, peers: [], ...(publicKey ? { publicKey } : {}) },
  });

describe('in production', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      NODE_ENV: 'production',
      APP_SECRET: 'p'.repeat(40),
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
      JOBS: 'false',
    });
  });
  afterAll(async () => t?.close());

  it('seeds the locations with no placeholder nodes, and offers none of them', async () => {
    const list = await t.app.services.vpn.admin.list();
    expect(list.length).toBeGreaterThan(30);
    expect(list.every((r) => r.node === null)).toBe(true);
    const placeholders = await t.app.db.query<{ n: number }>(
      `select count(*)::int as n from vpn_nodes where endpoint_host like '%.nodes.warren.example'`,
    );
    expect(placeholders[0]!.n).toBe(0);
    const c = await paidCustomer(t);
    expect(await servers(c)).toEqual([]);
    expect((await wg(c)).locations).toEqual([]);
    expect((await wg(c)).recommended).toBeNull();
    expect((await services(c)).locations).toEqual([]);
    expect((await c.get('/api/setup/openvpn/config?location=de-fra&protocol=udp')).statusCode).toBe(404);
  });

  it('offers a location once its enabled node has reported, with that node in the configs; not while it is disabled', async () => {
    const c = await paidCustomer(t);
    const { token } = await t.app.services.vpn.admin.addNode({
      location: 'de-fra',
      name: 'de-fra-real',
      endpointHost: '203.0.113.44',
      listenPort: 51820,
    });
    // Added, with a token, but not reported: still not offered anywhere.
    expect(await servers(c)).toEqual([]);
    expect((await wg(c)).locations).toEqual([]);
    expect((await services(c)).locations).toEqual([]);

    const key = wgKey();
    expect((await report(t, token, key)).statusCode).toBe(200);
    expect((await servers(c)).map((s) => s.id)).toHaveLength(1);
    const [loc] = (await wg(c)).locations;
    expect(loc).toMatchObject({ slug: 'de-fra', available: true, endpoint: '203.0.113.44:51820', publicKey: key });
    expect((await services(c)).locations.map((l) => [l.slug, l.nodes.map((n) => n.host)])).toEqual([
      ['de-fra', ['203.0.113.44']],
    ]);
    const ovpn = await c.get('/api/setup/openvpn/config?location=de-fra&protocol=udp');
    expect(ovpn.statusCode).toBe(200);
    expect(ovpn.body).toContain('remote 203.0.113.44 ');
    expect(ovpn.body).not.toContain('nodes.warren.example');

    // A second node that has not reported is not named in the configs.
    await t.app.services.vpn.admin.addNode({
      location: 'de-fra',
      name: 'de-fra-new',
      endpointHost: '203.0.113.45',
      listenPort: 51820,
    });
    expect((await c.get('/api/setup/openvpn/config?location=de-fra&protocol=udp')).body).not.toContain('203.0.113.45');

    await t.app.services.vpn.admin.setNode('de-fra-real', { enabled: false });
    // Switched off: still on the customer's list with why (issue 22), and named in no configuration.
    expect((await servers(c)).map((s) => s.unavailable)).toEqual(['off']);
    expect((await wg(c)).locations[0]).toMatchObject({
      slug: 'de-fra',
      available: false,
      endpoint: null,
      unavailable: 'off',
    });
    // The OpenVPN page lists it the same way, with no server to connect to; its file is refused.
    expect((await services(c)).locations).toMatchObject([{ slug: 'de-fra', nodes: [], unavailable: 'off' }]);
    expect((await c.get('/api/setup/openvpn/config?location=de-fra&protocol=udp')).statusCode).toBe(404);
  });
});

describe('outside production (the embedded development default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ JOBS: 'false' });
  });
  afterAll(async () => t?.close());

  it('gives every seeded location a demo node, marked for the operator, and offers them before any report', async () => {
    const list = await t.app.services.vpn.admin.list();
    expect(list.length).toBeGreaterThan(30);
    expect(
      list.every((r) => r.node === `${r.slug}-1` && r.demo === true && r.endpoint!.includes('.nodes.warren.example')),
    ).toBe(true);
    const c = await paidCustomer(t);
    expect((await servers(c)).length).toBe(list.length);
    expect((await wg(c)).locations.every((l) => l.available)).toBe(true);
  });

  it('a demo node that reports (the operator gave it a token) is a real node from then on', async () => {
    const token = await t.app.services.vpn.admin.issueNodeToken('nl-ams-1');
    expect((await report(t, token)).statusCode).toBe(200);
    const row = (await t.app.services.vpn.admin.list()).find((r) => r.node === 'nl-ams-1')!;
    expect(row.demo).toBe(false);
  });
});
