// The server locations and downloads through HTTP (modules/locations).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLocation } from '../src/modules/nodes/admin.js';
import { loadDownloads } from '../src/modules/locations/catalogue.js';
import { TestClient, createTestApp, type TestApp } from './helpers.js';
import { vpnFixtures } from './vpn-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
const { user, servers } = vpnFixtures(() => t);

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
