import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState, ServerListItem, WgDevice, WgOverview } from '@warren/contract';
import { totpCode } from '../src/lib/totp.js';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import {
  PASSWORD,
  TestClient,
  createTestApp,
  customerOnPlan,
  registerUser,
  uniqueEmail,
  type TestApp,
} from './helpers.js';

/**
 * Draining a node (issue 22): an admin marks it draining in the console; from then on no new
 * configuration names it (WireGuard's endpoint, OpenVPN's remotes), its customers' devices say
 * their server is being retired, and it keeps every peer so whoever is still on it stays connected.
 * A location whose nodes are all draining or all switched off stays in the customer's lists with
 * why, instead of vanishing.
 */
let t: TestApp;
let admin: TestClient;
let support: TestClient;
const tokens: Record<string, string> = {};

function wgKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

/** A console session of a new member with that role (two-factor on, a recovery code at the sign-in). */
async function staffSession(role: 'admin' | 'support'): Promise<TestClient> {
  const customer = new TestClient(t.app);
  const email = uniqueEmail(`drain-${role}`);
  await registerUser(customer, email);
  const secret = (await customer.post('/api/profile/2fa/setup')).json().data.secret;
  const codes = (await customer.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) })).json()
    .data.recoveryCodes as string[];
  await t.app.services.staff.grantRole(email, role);
  const browser = new TestClient(t.app);
  const res = await browser.post('/api/staff/session', { email, password: PASSWORD, code: codes[0] });
  expect(res.statusCode, res.body).toBe(200);
  return browser;
}

async function report(node: string, load: number, peers: { publicKey: string; lastHandshake: number }[] = []) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/nodes/report',
    headers: { authorization: `Bearer ${tokens[node]}` },
    payload: { load, activePeers: peers.length, peers: peers.map((p) => ({ ...p, rxBytes: 1, txBytes: 1 })) },
  });
  expect(res.statusCode, res.body).toBe(200);
}
const desired = async (node: string) =>
  (
    await t.app.inject({
      method: 'GET',
      url: '/api/nodes/desired',
      headers: { authorization: `Bearer ${tokens[node]}` },
    })
  ).json().data as DesiredState;

const customer = async () => (await customerOnPlan(t.app, 'free', { tag: 'drain-customer' })).c;
const servicesLocation = async (c: TestClient) =>
  ((await c.get('/api/setup/services/get')).json().data.locations as { slug: string }[]).find(
    (l) => l.slug === 'dr-test',
  );
const wgLocation = async (c: TestClient) =>
  ((await c.get('/api/setup/wg/get')).json().data as WgOverview).locations.find((l) => l.slug === 'dr-test');
const devices = async (c: TestClient) => ((await c.get('/api/setup/wg/get')).json().data as WgOverview).devices;
const serverItem = async (c: TestClient) =>
  ((await c.get('/api/setup/servers/get?langCode=ru')).json().data.serverList as ServerListItem[]).find(
    (s) => s.countryCode === 'XD',
  );
const patch = (c: TestClient, url: string, body: unknown) =>
  c.request({ method: 'PATCH', url, payload: body as object });
const patchNode = (c: TestClient, name: string, body: unknown) => patch(c, `/api/staff/nodes/${name}`, body);

beforeAll(async () => {
  t = await createTestApp();
  await addLocation(t.app.db, {
    slug: 'dr-test',
    countryCode: 'XD',
    country: { en: 'Drainland', ru: 'Дренландия', zh: '排水国' },
    city: { en: 'Drainville', ru: 'Дренвиль', zh: '排水城' },
    latitude: 10,
    longitude: 10,
    premium: false,
  });
  for (const [name, host] of [
    ['dr-1', '198.51.100.11'],
    ['dr-2', '198.51.100.12'],
  ] as const) {
    tokens[name] = (
      await addNode(t.app.db, { location: 'dr-test', name, endpointHost: host, publicKey: wgKey() })
    ).token;
  }
  await report('dr-1', 10);
  await report('dr-2', 60);
  [admin, support] = await Promise.all([staffSession('admin'), staffSession('support')]);
});
afterAll(async () => {
  await t?.close();
});

describe('draining a node', () => {
  it('gives it to no new configuration, tells its customers, keeps serving them; undrain gives it back', async () => {
    const c = await customer();
    expect(await wgLocation(c)).toMatchObject({ available: true, endpoint: '198.51.100.11:51820', unavailable: null });
    const device = (await c.post('/api/setup/wg/devices/add', { name: 'Phone', publicKey: wgKey() })).json().data
      .device as WgDevice;
    await report('dr-1', 10, [{ publicKey: device.publicKey, lastHandshake: Math.floor(Date.now() / 1000) - 5 }]);
    expect((await devices(c))[0]!.serverRetiring).toBeNull();

    // Support may not; malformed bodies change nothing.
    expect((await patchNode(support, 'dr-1', { draining: true })).statusCode).toBe(403);
    expect((await patchNode(admin, 'dr-1', {})).statusCode).toBe(422);
    expect((await patchNode(admin, 'dr-1', { draining: 'yes' })).statusCode).toBe(422);
    expect((await patchNode(admin, 'no-such-node', { draining: true })).statusCode).toBe(404);
    expect((await wgLocation(c))!.endpoint).toBe('198.51.100.11:51820');

    const drained = await patchNode(admin, 'dr-1', { draining: true });
    expect(drained.statusCode, drained.body).toBe(200);
    const since = drained.json().data.drainingSince as string;
    expect(Date.parse(since)).toBeGreaterThan(Date.now() - 60_000);
    // Asked again (a double click, a second admin): the drain keeps its start.
    expect((await patchNode(admin, 'dr-1', { draining: true })).json().data.drainingSince).toBe(since);
    const [audit] = await t.app.db.query<{ detail: Record<string, unknown> }>(
      `select detail from staff_audit where action = 'node-update' and target = 'dr-1' order by id desc limit 1`,
    );
    expect(audit!.detail).toEqual({ draining: true });

    // The next configuration names the other node of the location; this device is told to move.
    expect(await wgLocation(c)).toMatchObject({ available: true, endpoint: '198.51.100.12:51820', unavailable: null });
    expect((await devices(c))[0]!.serverRetiring).toEqual({
      country: 'Drainland',
      city: 'Drainville',
      why: 'retiring',
    });
    // OpenVPN's remotes leave it out too.
    const services = (await c.get('/api/setup/services/get')).json().data as {
      locations: { slug: string; nodes: { host: string }[] }[];
    };
    expect(services.locations.find((l) => l.slug === 'dr-test')?.nodes.map((n) => n.host)).toEqual(['198.51.100.12']);
    // The draining node still carries the peer: whoever is on it stays connected.
    expect((await desired('dr-1')).peers.map((p) => p.publicKey)).toContain(device.publicKey);

    // Every node draining: the location stays listed, unavailable, saying why.
    await patchNode(admin, 'dr-2', { draining: true });
    expect(await wgLocation(c)).toMatchObject({ available: false, endpoint: null, unavailable: 'retiring' });
    expect(await serverItem(c)).toMatchObject({ city: 'Дренвиль', unavailable: 'retiring' });
    // The OpenVPN page lists it too, with no servers and why (it vanished before); its file is refused.
    expect(await servicesLocation(c)).toMatchObject({ nodes: [], unavailable: 'retiring' });
    const file = await c.get('/api/setup/openvpn/config?location=dr-test&protocol=udp');
    expect(file.statusCode, file.body).toBe(404);

    // Undrained: back as before.
    await patchNode(admin, 'dr-2', { draining: false });
    const back = await patchNode(admin, 'dr-1', { draining: false });
    expect(back.json().data.drainingSince).toBeNull();
    expect(await wgLocation(c)).toMatchObject({ available: true, endpoint: '198.51.100.11:51820', unavailable: null });
    expect((await devices(c))[0]!.serverRetiring).toBeNull();
  });

  it('a switched-off location stays on the customer lists with why; its customers are told', async () => {
    const c = await customer();
    const device = (await c.post('/api/setup/wg/devices/add', { name: 'Laptop', publicKey: wgKey() })).json().data
      .device as WgDevice;
    await report('dr-2', 60, [{ publicKey: device.publicKey, lastHandshake: Math.floor(Date.now() / 1000) - 5 }]);
    const off = await patch(admin, '/api/staff/locations/dr-test', { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(await serverItem(c)).toMatchObject({ unavailable: 'off' });
    expect(await wgLocation(c)).toMatchObject({ available: false, endpoint: null, unavailable: 'off' });
    expect(await servicesLocation(c)).toMatchObject({ nodes: [], unavailable: 'off' });
    expect((await devices(c)).find((d) => d.id === device.id)!.serverRetiring).toMatchObject({
      city: 'Drainville',
      why: 'off',
    });
    await patch(admin, '/api/staff/locations/dr-test', { enabled: true });
    expect(await serverItem(c)).toMatchObject({ unavailable: null });
    expect(await servicesLocation(c)).toMatchObject({ unavailable: null });
  });
});
