// WireGuard devices and the location a new one starts on, through HTTP (modules/wireguard).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WgDevice, WgOverview } from '@warren/contract';
import { PASSWORD, TestClient, createTestApp, uniqueEmail, type TestApp } from './helpers.js';
import { vpnFixtures } from './vpn-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
const { wgKey, user, overview, addDevice } = vpnFixtures(() => t);

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
