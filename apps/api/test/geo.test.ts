// Where a visitor is (modules/geo): GET /api/ip/info.
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

const apps: TestApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

describe('ip info', () => {
  it('answers the caller country and its currency', async () => {
    const t = await createTestApp({ JOBS: 'false' });
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/api/ip/info' });
    expect(res.json()).toEqual({ data: { code: 'US', currency: 'USD' } });
  });

  it("prices a loopback caller in DEFAULT_COUNTRY's currency (the catalogue's country → currency)", async () => {
    const t = await createTestApp({ JOBS: 'false', DEFAULT_COUNTRY: 'DE' });
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/api/ip/info' });
    expect(res.json()).toEqual({ data: { code: 'DE', currency: 'EUR' } });
  });
});
