import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState, ServerListItem, WgDevice, WgOverview } from '@warren/contract';
import { addLocation, addNode, issueNodeToken, setLocation } from '../src/modules/nodes/admin.js';
import { loadDownloads } from '../src/modules/locations/catalogue.js';
import { PASSWORD, TestClient, createTestApp, uniqueEmail, type TestApp } from './helpers.js';

let ip = 0;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

function wgKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

/** A verified user, optionally on a paid plan. TODO(billing): pay through the sandbox flow once it is on main. */
async function user(plan: 'free' | 'paid' | 'inactive' = 'free') {
  const c = new TestClient(t.app);
  // Each sign-up from its own address: the per-IP sign-up limit is not what these tests are about.
  const res = await c.post(
    '/api/users/register',
    { name: 'Test User', email: uniqueEmail('vpn'), password: PASSWORD, password_confirmation: PASSWORD },
    { remoteAddress: `10.9.${++ip >> 8}.${ip & 255}` },
  );
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const u = res.json().data.user as { id: number };
  c.token = res.json().data.token;
  if (plan !== 'inactive')
    await t.app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [u.id]);
  if (plan === 'paid') {
    await t.app.db.query(
      `update users set tariff_key = '1-year', tariff_name = '1 Year', subscription_expires_at = now() + interval '1 year' where id = $1`,
      [u.id],
    );
  }
  return { c, id: u.id };
}

const servers = async (c: TestClient, lang = 'en') =>
  (await c.get(`/api/setup/servers/get?langCode=${lang}`)).json().data.serverList as ServerListItem[];
const overview = async (c: TestClient) => (await c.get('/api/setup/wg/get')).json().data as WgOverview;
const addDevice = (c: TestClient, name = 'Laptop', publicKey = wgKey()) =>
  c.post('/api/setup/wg/devices/add', { name, publicKey });

describe('server locations', () => {
  it('lists at least 30 seeded locations, premium ones blurred and first for a free user', async () => {
    const { c } = await user('free');
    const list = await servers(c);
    expect(list.length).toBeGreaterThanOrEqual(30);
    const firstFree = list.findIndex((s) => !s.premium);
    expect(firstFree).toBeGreaterThan(0);
    expect(list.slice(0, firstFree).every((s) => s.premium && s.isBlur)).toBe(true);
    expect(list.slice(firstFree).every((s) => !s.premium && !s.isBlur)).toBe(true);
    expect(list.every((s) => s.dashVisible)).toBe(true);
    expect(list[0]).toMatchObject({
      countryCode: expect.stringMatching(/^[A-Z]{2}$/),
      latitude: expect.any(Number),
      longitude: expect.any(Number),
    });
  });

  it('shows nothing blurred to a paid user, and names in the requested language', async () => {
    const { c } = await user('paid');
    const en = await servers(c);
    expect(en.some((s) => s.isBlur)).toBe(false);
    const ru = await servers(c, 'ru');
    expect(ru.find((s) => s.countryCode === 'DE' && s.premium === false)).toMatchObject({
      country: 'Германия',
      city: 'Франкфурт',
    });
    const zh = await servers(c, 'zh-CN');
    expect(zh.find((s) => s.countryCode === 'JP')).toMatchObject({ country: '日本', city: '东京' });
    const unknown = await servers(c, 'xx');
    expect(unknown.find((s) => s.countryCode === 'JP')?.country).toBe('Japan');
  });

  it('hides locations that are not dashVisible and needs a signed-in user', async () => {
    const { c } = await user('paid');
    await setLocation(t.app.db, 'za-jnb', { dashVisible: false });
    expect((await servers(c)).some((s) => s.city === 'Johannesburg')).toBe(false);
    await setLocation(t.app.db, 'za-jnb', { dashVisible: true });
    const anon = await new TestClient(t.app).get('/api/setup/servers/get');
    expect(anon.statusCode).toBe(401);
  });
});

describe('downloads', () => {
  it('ships no apps of its own (no placeholder host, id or checksum) and lists every operating system the guide covers', async () => {
    const c = new TestClient(t.app);
    const res = await c.get('/api/setup/downloads/get');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.items).toEqual([]);
    const systems = await c.get('/api/dashboard/operationSystems');
    expect(systems.statusCode).toBe(200);
    const items = systems.json().data.items as { id: number; platform: string; className: string }[];
    expect(items.map((i) => i.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 7, 8]);
    expect(items.find((i) => i.id === 8)).toEqual({
      id: 8,
      platform: 'android-tv',
      name: 'Android TV',
      className: 'download-app--android-tv',
    });
  });

  it("a brand's own apps load from the file; placeholder hosts and half-described files are refused", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-downloads-'));
    const file = path.join(dir, 'downloads.json');
    const app = {
      id: 1,
      platform: 'windows',
      name: 'Windows',
      version: '1.0.0',
      size: 1024,
      sha256: 'ab'.repeat(32),
      url: 'https://apps.brand.net/setup.exe',
      kind: 'installer',
    };
    const write = (items: unknown[]) => fs.writeFileSync(file, JSON.stringify({ items }));
    write([
      app,
      {
        id: 3,
        platform: 'ios',
        name: 'iOS',
        version: '1.0',
        size: 0,
        sha256: '',
        url: 'https://apps.apple.com/app/id123',
        kind: 'store',
      },
    ]);
    expect(loadDownloads(file).map((a) => a.className)).toEqual(['download-app--windows', 'download-app--ios']);
    write([{ ...app, url: 'https://downloads.warren.example/setup.exe' }]);
    expect(() => loadDownloads(file)).toThrow(/placeholder/);
    write([{ ...app, url: 'http://apps.brand.net/setup.exe' }]);
    expect(() => loadDownloads(file)).toThrow(/placeholder/);
    write([{ ...app, sha256: '' }]);
    expect(() => loadDownloads(file)).toThrow(/size and sha256/);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('WireGuard devices', () => {
  it('registers a public key, allocates IPv4 and IPv6, renames and revokes', async () => {
    const { c } = await user('free');
    const res = await addDevice(c, '  Phone  ');
    expect(res.statusCode).toBe(201);
    const d = res.json().data.device as WgDevice;
    expect(d).toMatchObject({
      name: 'Phone',
      ipv4: expect.stringMatching(/^10\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./),
      ipv6: expect.stringMatching(/^fd77:6172:7265:/),
      lastHandshakeAt: null,
      rxBytes: 0,
    });
    expect((await c.post('/api/setup/wg/devices/rename', { id: d.id, name: 'My phone' })).statusCode).toBe(200);
    const o = await overview(c);
    expect(o.devices).toEqual([expect.objectContaining({ id: d.id, name: 'My phone' })]);
    expect(o).toMatchObject({
      access: 'free',
      limit: 1,
      dns: ['10.64.0.1', 'fd77:6172:7265::1'],
      allowedIps: ['0.0.0.0/0', '::/0'],
    });
    const free = o.locations.find((l) => !l.premium)!;
    const premium = o.locations.find((l) => l.premium)!;
    expect(free).toMatchObject({
      available: true,
      endpoint: expect.stringMatching(/:51820$/),
      publicKey: expect.any(String),
    });
    expect(premium).toMatchObject({ available: false, endpoint: null, publicKey: null });
    expect((await c.post('/api/setup/wg/devices/revoke', { id: d.id })).statusCode).toBe(200);
    expect((await overview(c)).devices).toEqual([]);
  });

  it('refuses keys that are not 32 bytes of base64, and a key registered twice', async () => {
    const { c } = await user('paid');
    for (const bad of [
      '',
      'abc',
      'A'.repeat(44),
      `${wgKey().slice(0, 42)}==`,
      'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      `${wgKey()}\n[Peer]`,
    ]) {
      const res = await addDevice(c, 'x', bad);
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().errors.publicKey).toHaveLength(1);
    }
    const key = wgKey();
    expect((await addDevice(c, 'a', key)).statusCode).toBe(201);
    const again = await addDevice(c, 'b', key);
    expect(again.statusCode).toBe(422);
    expect((await addDevice(c, '', wgKey())).statusCode).toBe(422);
    expect((await addDevice(c, 'x'.repeat(51), wgKey())).statusCode).toBe(422);
  });

  it('limits devices by plan: free 1, paid 10', async () => {
    const { c } = await user('free');
    expect((await addDevice(c)).statusCode).toBe(201);
    const over = await addDevice(c);
    expect(over.statusCode).toBe(409);
    const { c: p } = await user('paid');
    for (let i = 0; i < 10; i++) expect((await addDevice(p, `d${i}`)).statusCode).toBe(201);
    expect((await addDevice(p)).statusCode).toBe(409);
  });

  it('keeps the limit under parallel requests of one user', async () => {
    const { c } = await user('paid');
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => addDevice(c, `p${i}`)));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(10);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(5);
  });

  it('never gives two devices the same address, also when many users add at once', async () => {
    const users = await Promise.all(Array.from({ length: 12 }, () => user('paid')));
    const results = await Promise.all(users.flatMap(({ c }) => [addDevice(c), addDevice(c), addDevice(c)]));
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 201));
    const rows = await t.app.db.query<{ n: number; d: number }>(
      `select count(*)::int as n, count(distinct addr_index)::int as d from wg_devices`,
    );
    expect(rows[0]!.n).toBe(rows[0]!.d);
    const v4 = results.map((r) => (r.json().data.device as WgDevice).ipv4);
    expect(new Set(v4).size).toBe(v4.length);
  });

  it('reuses a revoked device address', async () => {
    const { c } = await user('paid');
    const a = (await addDevice(c)).json().data.device as WgDevice;
    await c.post('/api/setup/wg/devices/revoke', { id: a.id });
    const b = (await addDevice(c)).json().data.device as WgDevice;
    expect(b.ipv4).toBe(a.ipv4);
  });

  it('keeps addresses unique when devices are written outside the API, and reuses those freed by a deleted account', async () => {
    // Migration 0018: the free list and the high-water mark are kept by triggers, whatever writes wg_devices.
    const { c, id } = await user('paid');
    const [pool] = await t.app.db.query<{ top: number; gaps: number }>(
      `select coalesce(max(addr_index), 0)::int as top, (select count(*)::int from wg_free_addresses) as gaps from wg_devices`,
    );
    const { top, gaps } = pool!;
    expect(gaps).toBe(0);
    await t.app.db.query(
      `insert into wg_devices (user_id, name, public_key, addr_index) values ($1, 'seeded', $2, $3)`,
      [id, wgKey(), top + 2],
    );
    const a = (await addDevice(c)).json().data.device as WgDevice;
    const b = (await addDevice(c)).json().data.device as WgDevice;
    const rows = await t.app.db.query<{ addr_index: number }>(
      `select addr_index from wg_devices where user_id = $1 order by addr_index`,
      [id],
    );
    expect(rows.map((r) => r.addr_index)).toEqual([top + 1, top + 2, top + 3]);
    expect(a.ipv4).not.toBe(b.ipv4);
    const { c: other, id: otherId } = await user('paid');
    const d = (await addDevice(other)).json().data.device as WgDevice;
    await t.app.db.query(`delete from users where id = $1`, [otherId]);
    const e = (await addDevice(c)).json().data.device as WgDevice;
    expect(e.ipv4).toBe(d.ipv4);
  });

  it('another user can never see, rename or revoke your devices', async () => {
    const { c: alice } = await user('paid');
    const { c: mallory } = await user('paid');
    const d = (await addDevice(alice)).json().data.device as WgDevice;
    expect((await overview(mallory)).devices).toEqual([]);
    expect((await mallory.post('/api/setup/wg/devices/rename', { id: d.id, name: 'pwned' })).statusCode).toBe(404);
    expect((await mallory.post('/api/setup/wg/devices/revoke', { id: d.id })).statusCode).toBe(404);
    expect((await overview(alice)).devices).toEqual([expect.objectContaining({ id: d.id, name: 'Laptop' })]);
  });

  it('is closed to inactive accounts, to accounts with the section off, and to anonymous calls', async () => {
    const { c } = await user('inactive');
    expect((await addDevice(c)).statusCode).toBe(403);
    const { c: off, id } = await user('paid');
    await t.app.db.query(`update users set is_wg_section_available = false where id = $1`, [id]);
    expect((await off.get('/api/setup/wg/get')).statusCode).toBe(403);
    expect((await addDevice(off)).statusCode).toBe(403);
    expect((await new TestClient(t.app).get('/api/setup/wg/get')).statusCode).toBe(401);
  });

  it('follows the brand switch: a brand without the section refuses it to every account', async () => {
    const brands = JSON.parse(fs.readFileSync(t.config.brandsFile, 'utf8')) as { brands: Record<string, unknown>[] };
    brands.brands[0]!.wgSection = false;
    const file = path.join(t.dataDir, 'brands-no-wg.json');
    fs.writeFileSync(file, JSON.stringify(brands));
    const other = await createTestApp({ BRANDS_FILE: file });
    try {
      const c = new TestClient(other.app);
      const res = await c.post('/api/users/register', {
        email: uniqueEmail('nowg'),
        password: PASSWORD,
        password_confirmation: PASSWORD,
      });
      c.token = res.json().data.token;
      await other.app.db.query(`update users set account_status = 'Active' where id = $1`, [res.json().data.user.id]);
      expect((await c.get('/api/setup/wg/get')).statusCode).toBe(403);
      expect((await c.get('/api/setup/servers/get')).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('recommended location for a new device', () => {
  const from = async (c: TestClient, remoteAddress: string) =>
    (await c.get('/api/setup/wg/get', { remoteAddress })).json().data as WgOverview;
  const DE = '193.99.144.80';
  const JP = '202.12.27.33';
  const BR = '200.160.2.3';

  it('is the nearest location the plan reaches, from the country of the address, not the first in the list', async () => {
    const paid = await user('paid');
    const list = (await from(paid.c, JP)).locations;
    expect(list[0]?.slug).not.toBe('jp-tyo');
    expect((await from(paid.c, JP)).recommended).toBe('jp-tyo');
    expect((await from(paid.c, BR)).recommended).toBe('br-sao');
    expect((await from(paid.c, DE)).recommended).toBe('de-fra');
    // A free user gets the nearest free location: São Paulo is premium, New York is not.
    const free = await user('free');
    const fromBrazil = await from(free.c, BR);
    expect(fromBrazil.recommended).toBe('us-nyc');
    expect(fromBrazil.locations.find((l) => l.slug === fromBrazil.recommended)?.available).toBe(true);
    // Loopback and private addresses count as DEFAULT_COUNTRY (US).
    expect((await from(free.c, '127.0.0.1')).recommended).toBe('us-nyc');
  });

  it('follows the address the server sees: a client cannot pick it with X-Forwarded-For unless TRUST_PROXY says so', async () => {
    const { c } = await user('paid');
    expect((await from(c, JP)).recommended).toBe('jp-tyo');
    const spoofed = (
      await c.get('/api/setup/wg/get', { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': JP } })
    ).json().data as WgOverview;
    expect(spoofed.recommended).not.toBe('jp-tyo');
    expect(spoofed.recommended).toMatch(/^us-/);
  });

  it('leaves a nearly full location for a quiet one nearby', async () => {
    const { c } = await user('paid');
    const setLoad = (slug: string, load: number | null) =>
      t.app.db.query(
        `update vpn_nodes set load = $2, last_seen_at = case when $2::int is null then null else now() end where location_id = (select id from vpn_locations where slug = $1)`,
        [slug, load],
      );
    try {
      await setLoad('de-fra', 95);
      await setLoad('de-ber', 10);
      expect((await from(c, DE)).recommended).toBe('de-ber');
      await setLoad('de-fra', 40);
      expect((await from(c, DE)).recommended).toBe('de-fra');
    } finally {
      await setLoad('de-fra', null);
      await setLoad('de-ber', null);
    }
  });
});

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
