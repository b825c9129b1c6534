// The per-user feature switches (modules/ad-blocker): the ad blocker.
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
