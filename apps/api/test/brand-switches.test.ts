import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClient, createTestApp, registerUser, userInfo, type TestApp } from './helpers.js';

// A brand that switches the WireGuard section off for everyone on it.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-brands-'));
const brandsFile = path.join(dir, 'brands.json');
const registry = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../config/brands.json'), 'utf8'));
registry.brands[1].wgSection = false;
fs.writeFileSync(brandsFile, JSON.stringify(registry));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false', BRANDS_FILE: brandsFile });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('the user flag the web app reads follows the brand switch, and the API enforces it', async () => {
  const vpn = new TestClient(t.app);
  expect((await registerUser(vpn)).user).toMatchObject({ isWgSectionAvailable: true });
  const proxy = new TestClient(t.app, { host: 'proxy.localhost' });
  await registerUser(proxy);
  expect((await userInfo(proxy)).isWgSectionAvailable).toBe(false);
  expect((await proxy.get('/api/setup/wg/get')).statusCode).toBe(403);
});
