// WireGuard keys with a lifetime, rotated by the browser, and their reminder (issue 23; modules/wireguard).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState, WgDevice } from '@warren/contract';
import { addNode } from '../src/modules/nodes/admin.js';
import { PASSWORD, type TestClient, createTestApp, type TestApp } from './helpers.js';
import { vpnFixtures } from './vpn-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await createTestApp();
  // A node of a free location: every device below is on it.
  token = (await addNode(t.app.db, { location: 'nl-ams', name: 'nl-ams-keys', endpointHost: '198.51.100.9' })).token;
});
afterAll(async () => {
  await t?.close();
});
const { wgKey, user, overview, addDevice } = vpnFixtures(() => t);

const DAY = 86_400_000;
const lifetime = (c: TestClient, id: number, days: unknown) => c.post('/api/setup/wg/devices/lifetime', { id, days });
const rotate = (c: TestClient, id: number, previousKey: string, publicKey = wgKey()) =>
  c.post('/api/setup/wg/devices/rotate', { id, previousKey, publicKey });
const deviceOf = (res: { json(): unknown }) => (res.json() as { data: { device: WgDevice } }).data.device;
const desired = async (q = '') => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/nodes/desired${q}`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as DesiredState;
};
const keysOn = (s: DesiredState) => s.peers.map((p) => p.publicKey);
async function withDevice(plan: 'free' | 'paid' = 'paid') {
  const u = await user(plan);
  const res = await addDevice(u.c, 'Phone');
  expect(res.statusCode, res.body).toBe(201);
  return { ...u, d: deviceOf(res) };
}

describe('key lifetime', () => {
  it('is never by default; 1-30 days start now and show on the list; null is never again', async () => {
    const { c, d } = await withDevice();
    expect(d).toMatchObject({ keyLifetimeDays: null, keyExpiresAt: null });
    const before = Date.now();
    const res = await lifetime(c, d.id, 3);
    expect(res.statusCode, res.body).toBe(200);
    const set = deviceOf(res);
    expect(set.keyLifetimeDays).toBe(3);
    const ends = Date.parse(set.keyExpiresAt!);
    expect(ends).toBeGreaterThanOrEqual(before + 3 * DAY - 5000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 3 * DAY + 5000);
    expect((await overview(c)).devices[0]).toMatchObject({ keyLifetimeDays: 3, keyExpiresAt: set.keyExpiresAt });
    const never = deviceOf(await lifetime(c, d.id, null));
    expect(never).toMatchObject({ keyLifetimeDays: null, keyExpiresAt: null, publicKey: d.publicKey });
  });

  it('refuses bad input with field messages (422), another user’s device (404)', async () => {
    const { c, d } = await withDevice();
    for (const days of [0, 31, 2.5, -1, '7', 'never', undefined, {}]) {
      const res = await lifetime(c, d.id, days);
      expect(res.statusCode, `${JSON.stringify(days)}: ${res.body}`).toBe(422);
      expect(res.json().errors.days[0]).toMatch(/key lifetime/);
    }
    for (const id of [0, -1, 'x', 2 ** 31]) expect((await lifetime(c, id as number, 7)).statusCode).toBe(422);
    const other = await user('paid');
    expect((await lifetime(other.c, d.id, 7)).statusCode).toBe(404);
    expect((await rotate(other.c, d.id, d.publicKey)).statusCode).toBe(404);
    // The path spelled other ways reaches the same route and the same refusal, or no route at all.
    for (const path of [
      '/%61pi/setup/wg/devices/rotate',
      '/api/setup/wg/devices/rot%61te',
      '/API/setup/wg/devices/rotate',
    ]) {
      const res = await other.c.post(path, { id: d.id, previousKey: d.publicKey, publicKey: wgKey() });
      expect([404, 405], `${path}: ${res.body}`).toContain(res.statusCode);
    }
    expect((await overview(c)).devices[0]).toMatchObject({ keyLifetimeDays: null, publicKey: d.publicKey });
  });
});

describe('rotation', () => {
  it('swaps the key, keeps name and addresses, starts a new lifetime; the nodes swap the peer', async () => {
    const { c, d } = await withDevice();
    await lifetime(c, d.id, 7);
    // Half the lifetime gone (the clock, as the database sees it).
    await t.app.db.query(`update wg_devices set key_expires_at = now() + interval '3 days' where id = $1`, [d.id]);
    const base = await desired();
    expect(keysOn(base)).toContain(d.publicKey);
    const fresh = wgKey();
    const res = await rotate(c, d.id, d.publicKey, fresh);
    expect(res.statusCode, res.body).toBe(200);
    const r = deviceOf(res);
    expect(r).toMatchObject({
      id: d.id,
      name: 'Phone',
      ipv4: d.ipv4,
      ipv6: d.ipv6,
      publicKey: fresh,
      keyLifetimeDays: 7,
    });
    expect(Date.parse(r.keyExpiresAt!)).toBeGreaterThan(Date.now() + 7 * DAY - 60_000);
    const delta = await desired(`?since=${base.version}&at=${base.evaluatedAt}&wait=5`);
    expect(delta.full).toBe(false);
    expect(keysOn(delta)).toContain(fresh);
    expect(keysOn(delta)).not.toContain(d.publicKey);
    const full = await desired();
    expect(keysOn(full)).toContain(fresh);
    expect(keysOn(full)).not.toContain(d.publicKey);
    expect(full.peers.find((p) => p.publicKey === fresh)!.allowedIps).toEqual(
      base.peers.find((p) => p.publicKey === d.publicKey)!.allowedIps,
    );
  });

  it('the same rotation again answers the device as it is; a stale one is 409; bad keys 422', async () => {
    const { c, d } = await withDevice();
    const fresh = wgKey();
    const first = await rotate(c, d.id, d.publicKey, fresh);
    expect(first.statusCode).toBe(200);
    const replay = await rotate(c, d.id, d.publicKey, fresh);
    expect(replay.statusCode, replay.body).toBe(200);
    expect(deviceOf(replay)).toMatchObject({ publicKey: fresh, keyExpiresAt: deviceOf(first).keyExpiresAt });
    const stale = await rotate(c, d.id, d.publicKey, wgKey());
    expect(stale.statusCode).toBe(409);
    expect(stale.json().errors.previousKey).toHaveLength(1);
    for (const bad of ['', 'abc', 'A'.repeat(44), `${wgKey()}\n[Peer]`]) {
      const res = await rotate(c, d.id, fresh, bad);
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().errors.publicKey).toHaveLength(1);
    }
    const same = await rotate(c, d.id, fresh, fresh);
    expect(same.statusCode).toBe(422);
    expect(same.json().errors.publicKey[0]).toMatch(/differ/);
    // Another device's key (anyone's) is refused like on add.
    const other = await withDevice();
    const taken = await rotate(c, d.id, fresh, other.d.publicKey);
    expect(taken.statusCode).toBe(422);
    expect(taken.json().errors.publicKey[0]).toMatch(/already registered/);
    expect((await overview(c)).devices[0]!.publicKey).toBe(fresh);
  });

  it('of parallel rotations of one device exactly one wins, and the device has the winner’s key', async () => {
    const { c, d } = await withDevice();
    const keys = Array.from({ length: 6 }, () => wgKey());
    const answers = await Promise.all(keys.map((k) => rotate(c, d.id, d.publicKey, k)));
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((s) => s === 200)).toHaveLength(1);
    expect(codes.filter((s) => s === 409)).toHaveLength(5);
    const winner = deviceOf(answers[codes.indexOf(200)]!).publicKey;
    expect((await overview(c)).devices.map((x) => x.publicKey)).toEqual([winner]);
    expect(keysOn(await desired())).toContain(winner);
  });

  it('two parallel rotations to one new key (a double click) both answer that key', async () => {
    const { c, d } = await withDevice();
    const k = wgKey();
    const answers = await Promise.all([rotate(c, d.id, d.publicKey, k), rotate(c, d.id, d.publicKey, k)]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(answers.map((a) => deviceOf(a).publicKey)).toEqual([k, k]);
  });
});

describe('expiry', () => {
  it('drops the peer from nodes by the clock; the device stays listed; rotating brings it back', async () => {
    const { c, id, d } = await withDevice('free');
    await lifetime(c, d.id, 1);
    await t.app.db.query(`update wg_devices set key_expires_at = now() + interval '1500 milliseconds' where id = $1`, [
      d.id,
    ]);
    const now = await desired();
    expect(keysOn(now)).toContain(d.publicKey);
    const [exp] = await t.app.db.query<{ ms: number }>(
      `select extract(epoch from key_expires_at)::float8 * 1000 as ms from wg_devices where id = $1`,
      [d.id],
    );
    expect(now.nextCheckAt).not.toBeNull();
    expect(now.nextCheckAt!).toBeGreaterThanOrEqual(exp!.ms);
    expect(now.nextCheckAt!).toBeLessThanOrEqual(exp!.ms + 1);
    const started = Date.now();
    const later = await desired(`?since=${now.version}&at=${now.evaluatedAt}&wait=20`);
    // Woken by the key's expiry (1.5 s), not by the 20 s poll timeout; a delta naming the owner without the key.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(later.full).toBe(false);
    expect(later.changedOwners).toContain(id);
    expect(keysOn(later)).not.toContain(d.publicKey);
    expect(keysOn(await desired())).not.toContain(d.publicKey);
    // Still listed, expired; a new lifetime does not revive the old key.
    const listed = (await overview(c)).devices[0]!;
    expect(listed.publicKey).toBe(d.publicKey);
    expect(Date.parse(listed.keyExpiresAt!)).toBeLessThanOrEqual(Date.now());
    const revive = await lifetime(c, d.id, 30);
    expect(revive.statusCode).toBe(409);
    expect(revive.json().errors.days).toHaveLength(1);
    expect((await lifetime(c, d.id, null)).statusCode).toBe(409);
    // A rotation does.
    const fresh = wgKey();
    const rotated = await rotate(c, d.id, d.publicKey, fresh);
    expect(rotated.statusCode).toBe(200);
    expect(Date.parse(deviceOf(rotated).keyExpiresAt!)).toBeGreaterThan(Date.now() + DAY - 60_000);
    const back = await desired(`?since=${later.version}&at=${later.evaluatedAt}&wait=5`);
    expect(keysOn(back)).toContain(fresh);
    expect(keysOn(back)).not.toContain(d.publicKey);
  });
});

describe('reminder', () => {
  const reminders = () => t.app.services.vpn.wgKeyReminders!;
  const emailOf = async (id: number) =>
    (await t.app.db.query<{ email: string }>('select email from users where id = $1', [id]))[0]!.email;
  const mailsTo = (email: string) => t.app.services.mailer.list!(email).filter((m) => /WireGuard/.test(m.subject));

  it('goes once per key about a day before it expires, in the member’s language, linking to /setup/wg', async () => {
    const { c, id, d } = await withDevice();
    await t.app.db.query(`update users set language = 'ru' where id = $1`, [id]);
    await lifetime(c, d.id, 7);
    const email = await emailOf(id);
    // Other tests' keys share this database: what counts is this member's mail.
    // Six days on: not yet (25 h left).
    await reminders().sendDue(new Date(Date.now() + 6 * DAY - 3_600_000));
    expect(mailsTo(email)).toHaveLength(0);
    const dayBefore = new Date(Date.now() + 6 * DAY + 3_600_000);
    expect(await reminders().sendDue(dayBefore)).toBeGreaterThanOrEqual(1);
    await reminders().sendDue(dayBefore);
    const mails = mailsTo(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Ключ WireGuard устройства «Phone» скоро истечёт');
    expect(mails[0]!.text).toMatch(/^https?:\/\/[^/\s]+\/setup\/wg$/m);
    // A new key (its lifetime starts again) is a new reminder.
    await rotate(c, d.id, d.publicKey);
    await reminders().sendDue(dayBefore);
    expect(mailsTo(email)).toHaveLength(2);
    // Passes at once (two instances) send one.
    await rotate(c, d.id, (await overview(c)).devices[0]!.publicKey);
    const soon = new Date(Date.now() + 6.5 * DAY);
    await Promise.all([reminders().sendDue(soon), reminders().sendDue(soon), reminders().sendDue(soon)]);
    expect(mailsTo(email)).toHaveLength(3);
  });

  it('never for a key that never expires, an expired one, a deleted or erased account', async () => {
    const never = await withDevice();
    const lapsed = await withDevice();
    await lifetime(lapsed.c, lapsed.d.id, 2);
    // Its key expired unreminded (the jobs were down): no mail after the fact.
    await reminders().sendDue(new Date(Date.now() + 2.5 * DAY));
    expect(mailsTo(await emailOf(lapsed.id))).toEqual([]);
    const gone = await withDevice();
    const erased = await withDevice();
    await lifetime(gone.c, gone.d.id, 2);
    await lifetime(erased.c, erased.d.id, 2);
    await t.app.db.query(`update users set deleted_at = now() where id = $1`, [gone.id]);
    const erasedEmail = await emailOf(erased.id);
    const del = await erased.c.post('/api/users/annihilation', { password: PASSWORD });
    expect(del.statusCode, del.body).toBe(200);
    await t.app.settle();
    for (const at of [1.5, 2.5, 29.5]) await reminders().sendDue(new Date(Date.now() + at * DAY));
    expect(mailsTo(await emailOf(never.id))).toEqual([]);
    expect(mailsTo(await emailOf(gone.id))).toEqual([]);
    expect(mailsTo(erasedEmail)).toEqual([]);
  });
});
