import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerListItem, type StaffLocation, WG_MAX_PEERS, type WgOverview } from '@warren/contract';
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
 * A node's WireGuard capacity (issue 22): each agent reports its implementation, its cap (wireguard-go
 * holds 65,536 peers per interface), the peers it holds and those it refused. A node at the
 * high-water mark (95 % of its cap by default) or refusing peers is named in no new configuration;
 * a location whose every node is full takes no new device (409, `location` field error) while its
 * OpenVPN and SOCKS5 still serve. Caps of 100 here stand for 65,536: the rule is the same.
 */
let t: TestApp;
let admin: TestClient;
const tokens: Record<string, string> = {};

function wgKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

async function report(node: string, load: number, wireguard?: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/nodes/report',
    headers: { authorization: `Bearer ${tokens[node]}` },
    payload: { load, activePeers: 0, peers: [], ...(wireguard === undefined ? {} : { wireguard }) },
  });
}
const wg = (peers: number, refused = 0, maxPeers = 100) => ({ kind: 'userspace', maxPeers, peers, refused });

const customer = async () => (await customerOnPlan(t.app, 'free', { tag: 'cap-customer' })).c;
const overview = async (c: TestClient) => (await c.get('/api/setup/wg/get')).json().data as WgOverview;
const capLocation = async (c: TestClient) => (await overview(c)).locations.find((l) => l.slug === 'cap-test');
const addDevice = (c: TestClient, body: Record<string, unknown>) =>
  c.post('/api/setup/wg/devices/add', { name: 'Phone', publicKey: wgKey(), ...body });
const deviceCount = async () =>
  Number((await t.app.db.query<{ n: number }>('select count(*)::int as n from wg_devices'))[0]!.n);
const staffNodes = async () =>
  ((await admin.get('/api/staff/locations')).json().data.items as StaffLocation[]).find((l) => l.slug === 'cap-test')!
    .nodes;
const fullGauge = async () => {
  const text = await t.app.services.metrics.registry.metrics();
  return Number(/^warren_nodes_full (\d+)$/m.exec(text)?.[1]);
};

beforeAll(async () => {
  t = await createTestApp({ WG_DEVICE_LIMIT_FREE: '20' });
  await addLocation(t.app.db, {
    slug: 'cap-test',
    countryCode: 'XC',
    country: { en: 'Capland', ru: 'Капландия', zh: '容量国' },
    city: { en: 'Captown', ru: 'Капград', zh: '容量城' },
    latitude: 20,
    longitude: 20,
    premium: false,
  });
  for (const [name, host] of [
    ['cap-1', '198.51.100.21'],
    ['cap-2', '198.51.100.22'],
  ] as const) {
    tokens[name] = (
      await addNode(t.app.db, { location: 'cap-test', name, endpointHost: host, publicKey: wgKey() })
    ).token;
  }
  // A console session (admin, two-factor on, a recovery code at the sign-in).
  const owner = new TestClient(t.app);
  const email = uniqueEmail('cap-admin');
  await registerUser(owner, email);
  const secret = (await owner.post('/api/profile/2fa/setup')).json().data.secret;
  const codes = (await owner.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) })).json()
    .data.recoveryCodes as string[];
  await t.app.services.staff.grantRole(email, 'admin');
  admin = new TestClient(t.app);
  expect((await admin.post('/api/staff/session', { email, password: PASSWORD, code: codes[0] })).statusCode).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('node capacity', () => {
  it('refuses a malformed capacity report with field messages and keeps what it had', async () => {
    expect((await report('cap-1', 10, wg(10))).statusCode).toBe(200);
    for (const bad of [
      { ...wg(1), maxPeers: 0 },
      { ...wg(1), kind: 'bogus' },
      { ...wg(1), peers: -1 },
      { ...wg(1), refused: 1.5 },
      { ...wg(1), maxPeers: 2 ** 21 },
      'full',
      { kind: 'kernel' },
    ]) {
      const res = await report('cap-1', 10, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(422);
      expect(res.json().errors).toBeDefined();
    }
    expect((await staffNodes()).find((n) => n.name === 'cap-1')!.wireguard).toEqual({
      kind: 'userspace',
      maxPeers: 100,
      peers: 10,
      refused: 0,
      limit: 95,
      full: false,
    });
    // A node saying the largest numbers the schema takes breaks no customer's page (their sum overflowed a 32-bit integer in SQL).
    expect((await report('cap-2', 10, wg(WG_MAX_PEERS.kernel, 2 ** 31 - 1, WG_MAX_PEERS.kernel))).statusCode).toBe(200);
    expect((await report('cap-2', 10, wg(2 ** 31 - 1))).statusCode).toBe(422);
    const c = await customer();
    expect((await c.get('/api/setup/wg/get')).statusCode).toBe(200);
    expect((await staffNodes()).find((n) => n.name === 'cap-2')!.wireguard).toMatchObject({ full: true });
    expect((await admin.get('/api/staff/locations')).statusCode).toBe(200);
    // An older agent (no capacity in its report) keeps the stored figures.
    expect((await report('cap-1', 10)).statusCode).toBe(200);
    expect((await staffNodes()).find((n) => n.name === 'cap-1')!.wireguard).toMatchObject({ peers: 10 });
  });

  it('gives no new device to a full node, picks the other node of the location, then says the location is full', async () => {
    await report('cap-1', 10, wg(10));
    await report('cap-2', 60, wg(10));
    const c = await customer();
    expect(await capLocation(c)).toMatchObject({ available: true, endpoint: '198.51.100.21:51820', unavailable: null });
    expect(await fullGauge()).toBe(0);

    // cap-1 (the less loaded, so the one configs named) reaches 95 of 100: configs name cap-2 now.
    await report('cap-1', 10, wg(95));
    expect(await capLocation(c)).toMatchObject({ available: true, endpoint: '198.51.100.22:51820', unavailable: null });
    const ok = await addDevice(c, { location: 'cap-test' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await staffNodes()).map((n) => [n.name, n.wireguard?.full])).toEqual([
      ['cap-1', true],
      ['cap-2', false],
    ]);
    expect(await fullGauge()).toBe(1);

    // cap-2 refuses peers: the location is full for WireGuard, and says so; nothing is written.
    await report('cap-2', 60, wg(100, 3));
    expect(await capLocation(c)).toMatchObject({
      available: false,
      endpoint: null,
      publicKey: null,
      unavailable: 'full',
    });
    expect((await overview(c)).recommended).not.toBe('cap-test');
    const before = await deviceCount();
    const full = await addDevice(c, { location: 'cap-test' });
    expect(full.statusCode, full.body).toBe(409);
    expect(full.json()).toEqual({
      message: 'Every Captown, Capland server is full right now. Please pick another location.',
      errors: { location: ['Every Captown, Capland server is full right now. Please pick another location.'] },
    });
    expect(await deviceCount()).toBe(before);
    expect(await fullGauge()).toBe(2);
    // The server list is not WireGuard's: OpenVPN and SOCKS5 still serve there.
    const item = ((await c.get('/api/setup/servers/get')).json().data.serverList as ServerListItem[]).find(
      (s) => s.countryCode === 'XC',
    );
    expect(item).toMatchObject({ unavailable: null });
    // Another location with room (the seeded demo ones) still takes the device, named or not.
    const other = (await overview(c)).locations.find((l) => l.available && l.slug !== 'cap-test')!;
    expect((await addDevice(c, { location: other.slug })).statusCode).toBe(201);
    // Malformed or unknown locations: 422 with the field, never a 5xx.
    for (const location of ['no-such-place', 'CAP-TEST', '../cap-test', '', 'x'.repeat(41), 42]) {
      const res = await addDevice(c, { location });
      expect(res.statusCode, String(location)).toBe(422);
      expect(res.json().errors.location).toBeDefined();
    }

    // Customers leave cap-2: below the mark again, it takes new devices.
    await report('cap-2', 60, wg(90));
    expect(await capLocation(c)).toMatchObject({ available: true, endpoint: '198.51.100.22:51820', unavailable: null });
    expect((await addDevice(c, { location: 'cap-test' })).statusCode).toBe(201);
  });

  it('with every location the plan reaches full, a device without a location is refused too (409), cleanly', async () => {
    const c = await customer();
    await t.app.db.query(
      `update vpn_nodes set wg_kind = 'userspace', wg_max_peers = 100, wg_peers = 100, wg_refused = 5`,
    );
    const before = await deviceCount();
    const res = await addDevice(c, {});
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toEqual({
      message: 'Every server your plan reaches is full right now. Please try again later.',
      errors: { location: ['Every server your plan reaches is full right now. Please try again later.'] },
    });
    // Parallel adds: every one refused, none written, none a 5xx.
    const all = await Promise.all(Array.from({ length: 8 }, () => addDevice(c, {})));
    expect(all.map((r) => r.statusCode)).toEqual(Array(8).fill(409));
    expect(await deviceCount()).toBe(before);
    await t.app.db.query(
      `update vpn_nodes set wg_kind = null, wg_max_peers = null, wg_peers = null, wg_refused = null`,
    );
    expect((await addDevice(c, {})).statusCode).toBe(201);
  });
});
