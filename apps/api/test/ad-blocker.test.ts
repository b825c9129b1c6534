// The per-user feature switches (modules/ad-blocker): the ad blocker.
import { AD_BLOCK_PATHS, type DesiredState } from '@warren/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, payWithSandbox, signedUpClient, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false', REWARD_DAYS: '14' });
});
afterAll(async () => {
  await t?.close();
});

describe('features', () => {
  it('lists the ad blocker off; free users get 403 on switching it, paid users can', async () => {
    const { c, user } = await signedUpClient(t.app);
    const list = (await c.get('/api/setup/features/get')).json().data.items;
    expect(list).toEqual([{ id: 1, name: 'Ad Blocker', isEnabled: false, premium: true }]);
    const denied = await c.post('/api/setup/features/state', { id: 1, state: true });
    expect(denied.statusCode).toBe(403);
    await payWithSandbox(t.app, c);
    const on = await c.post('/api/setup/features/state', { id: 1, state: true });
    expect(on.json()).toEqual({ result: true, data: { id: 1, isEnabled: true } });
    expect((await c.get('/api/setup/features/get')).json().data.items[0].isEnabled).toBe(true);
    // The state is stored per user for the nodes.
    const [row] = await t.app.db.query<{ enabled: boolean }>('select enabled from user_features where user_id = $1', [
      user.id,
    ]);
    expect(row?.enabled).toBe(true);
    expect((await c.post('/api/setup/features/state', { id: 99, state: true })).statusCode).toBe(404);
    expect((await c.post('/api/setup/features/state', { id: 1, state: 'yes' })).statusCode).toBe(422);
  });
});

describe("the ad blocker's categories (issue 23)", () => {
  const desired = async (token: string, q: Record<string, number> = {}) => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/nodes/desired',
      query: Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])),
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as DesiredState;
  };
  let token: string;
  beforeAll(async () => {
    await t.app.services.vpn.admin.addLocation({
      slug: 'zz-adblock',
      countryCode: 'NO',
      country: { en: 'Norway', ru: 'Norway', zh: 'Norway' },
      city: { en: 'Oslo', ru: 'Oslo', zh: 'Oslo' },
      latitude: 59.9,
      longitude: 10.7,
      premium: false,
      dashVisible: true,
    });
    ({ token } = await t.app.services.vpn.admin.addNode({
      location: 'zz-adblock',
      name: 'zz-adblock-1',
      endpointHost: '198.51.100.62',
      listenPort: 51820,
    }));
  });

  it('defaults to ads and trackers; a change is a delta for that owner only, with the new set', async () => {
    const { c, user } = await signedUpClient(t.app);
    const other = await signedUpClient(t.app);
    // Free: reading works (the default), choosing is premium like the switch and changes nothing.
    expect((await c.get(AD_BLOCK_PATHS.categories)).json().data).toEqual({
      enabled: false,
      categories: ['ads', 'trackers'],
    });
    expect((await c.post(AD_BLOCK_PATHS.categories, { categories: ['malware'] })).statusCode).toBe(403);
    expect((await c.get(AD_BLOCK_PATHS.categories)).json().data.categories).toEqual(['ads', 'trackers']);
    await payWithSandbox(t.app, c);
    await payWithSandbox(t.app, other.c);

    // Off: the owner is in no node's blocking list.
    const before = await desired(token);
    expect(before.dnsBlocking.find((b) => b.owner === user.id)).toBeUndefined();

    // The switch on with no choice made: ads and trackers, as a delta naming this owner.
    expect((await c.post('/api/setup/features/state', { id: 1, state: true })).statusCode).toBe(200);
    const on = await desired(token, { since: before.version, at: before.evaluatedAt });
    expect(on.full).toBe(false);
    expect(on.changedOwners).toEqual([user.id]);
    expect(on.dnsBlocking).toEqual([{ owner: user.id, categories: ['ads', 'trackers'] }]);

    // More categories (any order, repeats): stored sorted, and the next delta carries them.
    const set = await c.post(AD_BLOCK_PATHS.categories, { categories: ['gambling', 'ads', 'malware', 'ads'] });
    expect(set.json(), set.body).toEqual({
      data: { enabled: true, categories: ['ads', 'malware', 'gambling'] },
    });
    const more = await desired(token, { since: on.version, at: on.evaluatedAt });
    expect(more.changedOwners).toEqual([user.id]);
    expect(more.dnsBlocking).toEqual([{ owner: user.id, categories: ['ads', 'malware', 'gambling'] }]);

    // A full state has it too; the other customer (switch never on) is not there.
    const full = await desired(token);
    expect(full.dnsBlocking).toContainEqual({ owner: user.id, categories: ['ads', 'malware', 'gambling'] });
    expect(full.dnsBlocking.find((b) => b.owner === other.user.id)).toBeUndefined();

    // Switched off: the owner's delta has no blocking (the node blocks nothing for it); the choice is kept.
    await c.post('/api/setup/features/state', { id: 1, state: false });
    const off = await desired(token, { since: more.version, at: more.evaluatedAt });
    expect(off.changedOwners).toEqual([user.id]);
    expect(off.dnsBlocking).toEqual([]);
    expect((await c.get(AD_BLOCK_PATHS.categories)).json().data).toEqual({
      enabled: false,
      categories: ['ads', 'malware', 'gambling'],
    });
    // Choosing while off keeps it off.
    await c.post(AD_BLOCK_PATHS.categories, { categories: ['adult'] });
    expect((await c.get('/api/setup/features/get')).json().data.items[0].isEnabled).toBe(false);
  });

  it('refuses bad input with a field message and changes nothing', async () => {
    const { c } = await signedUpClient(t.app);
    await payWithSandbox(t.app, c);
    await c.post(AD_BLOCK_PATHS.categories, { categories: ['trackers'] });
    for (const body of [
      { categories: [] },
      { categories: ['ads', 'crypto'] },
      { categories: 'ads' },
      { categories: Array.from({ length: 50 }, () => 'ads') },
      {},
      { categories: [null] },
    ]) {
      const res = await c.post(AD_BLOCK_PATHS.categories, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatch(/categor/i);
    }
    expect((await c.get(AD_BLOCK_PATHS.categories)).json().data.categories).toEqual(['trackers']);
    // Twenty different choices at once: every one answers 200, and what is kept is one of them, whole.
    const sets = Array.from({ length: 20 }, (_, i) =>
      (['ads', 'trackers', 'malware', 'adult', 'gambling'] as const).filter((_, b) => ((i + 1) >> b) & 1),
    );
    const answers = await Promise.all(sets.map((categories) => c.post(AD_BLOCK_PATHS.categories, { categories })));
    expect(answers.map((a) => a.statusCode)).toEqual(sets.map(() => 200));
    const kept = (await c.get(AD_BLOCK_PATHS.categories)).json().data.categories;
    expect(sets.map((x) => JSON.stringify(x))).toContain(JSON.stringify(kept));
    // Signed out: 401, nothing read.
    expect((await t.app.inject({ method: 'GET', url: AD_BLOCK_PATHS.categories })).statusCode).toBe(401);
  });
});
