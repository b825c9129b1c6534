import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WgOverview } from '@warren/contract';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { TestClient, createTestApp, registerUser, uniqueEmail, type TestApp } from './helpers.js';

/**
 * The WireGuard port a customer picks (issue 23): each agent reports the extra UDP ports whose
 * redirect to its WireGuard port is in place (wgExtraPorts); a location offers its endpoint's own
 * port and the extra ports every usable node of it reports (the intersection), and `?port=N` names
 * that port in the endpoints of the locations that take it. A bad port is a 422 with a field message.
 */
let t: TestApp;
const tokens: Record<string, string> = {};

function wgKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

async function report(node: string, load: number, extra?: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/nodes/report',
    headers: { authorization: `Bearer ${tokens[node]}` },
    payload: { load, activePeers: 0, peers: [], ...(extra === undefined ? {} : { wgExtraPorts: extra }) },
  });
}

let customer: TestClient;
const get = (query = '') => customer.get(`/api/setup/wg/get${query}`);
const portLocation = async (query = '') =>
  ((await get(query)).json().data as WgOverview).locations.find((l) => l.slug === 'port-test')!;
const stored = async (name: string) =>
  (
    await t.app.db.query<{ wg_extra_ports: number[] | null }>('select wg_extra_ports from vpn_nodes where name = $1', [
      name,
    ])
  )[0]!.wg_extra_ports;

beforeAll(async () => {
  t = await createTestApp();
  await addLocation(t.app.db, {
    slug: 'port-test',
    countryCode: 'XP',
    country: { en: 'Portland', ru: 'Портландия', zh: '端口国' },
    city: { en: 'Porttown', ru: 'Портград', zh: '端口城' },
    latitude: 30,
    longitude: 30,
    premium: false,
  });
  for (const [name, host] of [
    ['port-1', '198.51.100.31'],
    ['port-2', '198.51.100.32'],
  ] as const)
    tokens[name] = (
      await addNode(t.app.db, { location: 'port-test', name, endpointHost: host, publicKey: wgKey() })
    ).token;
  customer = new TestClient(t.app);
  const { user } = await registerUser(customer, uniqueEmail('port-customer'));
  await t.app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [user.id]);
});
afterAll(async () => {
  await t?.close();
});

describe('WireGuard ports (issue 23)', () => {
  it('stores what each node reports; a malformed list is refused with field messages and changes nothing', async () => {
    expect((await report('port-1', 10, [443, 53, 443])).statusCode).toBe(200);
    expect(await stored('port-1')).toEqual([53, 443]);
    for (const bad of [[0], [65536], [53.5], ['53'], 443, [1, 2, 3, 4, 5, 6, 7, 8, 9], null]) {
      const res = await report('port-1', 10, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(422);
      expect(JSON.stringify(res.json().errors)).toContain('wgExtraPorts');
    }
    expect(await stored('port-1')).toEqual([53, 443]);
    // A report without the list (an older agent, or one that did not check) offers none: nothing stale is kept.
    expect((await report('port-1', 10)).statusCode).toBe(200);
    expect(await stored('port-1')).toBeNull();
  });

  it('offers per location the ports every usable node takes (the intersection), the endpoint’s own first', async () => {
    expect((await report('port-1', 10, [53, 443])).statusCode).toBe(200);
    expect((await report('port-2', 50, [443])).statusCode).toBe(200);
    let loc = await portLocation();
    // Without a choice the endpoint is the node's own port, as before.
    expect(loc.endpoint).toBe('198.51.100.31:51820');
    expect(loc.ports).toEqual([51820, 443]);
    // A node that reports none (an older agent) leaves only the default.
    expect((await report('port-2', 50)).statusCode).toBe(200);
    expect((await portLocation()).ports).toEqual([51820]);
    // A node being drained takes no new configuration: it no longer limits the offer.
    await t.app.db.query(`update vpn_nodes set draining_since = now() where name = 'port-2'`);
    loc = await portLocation();
    expect(loc.ports).toEqual([51820, 53, 443]);
    await t.app.db.query(`update vpn_nodes set draining_since = null where name = 'port-2'`);
    expect((await report('port-2', 50, [53, 443])).statusCode).toBe(200);
    expect((await portLocation()).ports).toEqual([51820, 53, 443]);
  });

  it('?port=N names the port in the endpoints of the locations that take it; the others are not available', async () => {
    expect((await report('port-1', 10, [443])).statusCode).toBe(200);
    expect((await report('port-2', 50, [443])).statusCode).toBe(200);
    const res = await get('?port=443');
    expect(res.statusCode).toBe(200);
    const data = res.json().data as WgOverview;
    const loc = data.locations.find((l) => l.slug === 'port-test')!;
    expect(loc).toMatchObject({ available: true, endpoint: '198.51.100.31:443', ports: [51820, 443] });
    for (const other of data.locations.filter((l) => !(l.ports ?? []).includes(443)))
      expect(other, other.slug).toMatchObject({ available: false, endpoint: null, publicKey: null });
    // The default port spelled out is the same as no choice.
    expect((await portLocation('?port=51820')).endpoint).toBe('198.51.100.31:51820');
  });

  it('a bad port is a 422 with a field message, never a 5xx', async () => {
    for (const q of ['?port=0', '?port=65536', '?port=abc', '?port=', '?port=44.3', '?port=-1', '?port=443&port=53']) {
      const res = await get(q);
      expect(res.statusCode, q).toBe(422);
      expect(res.json().errors.port, q).toEqual(['The port must be a whole number from 1 to 65535.']);
    }
    // The path spelled another way, a number too long for any port, digits of another script: never a 5xx, never a port.
    const odd = await customer.get('/%61pi/setup/wg/get?port=0');
    expect(odd.statusCode).toBeLessThan(500);
    expect(odd.statusCode).not.toBe(200);
    for (const q of ['?port=99999999999999999999', '?port=%D9%A4%D9%A4%D9%A3', '?port=0x1bb', '?port=443%00'])
      expect((await get(q)).statusCode, q).toBe(422);
    // A port no location offers: 422, naming the ports there are.
    const res = await get('?port=8443');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.port[0]).toMatch(/^No location takes port 8443\. Choose one of .*\b443\b.*\.$/);
    expect(res.json().errors.port[0]).toContain('51820');
  });

  it('answers two nodes reporting at once, and the offer follows the last reports', async () => {
    const results = await Promise.all([report('port-1', 10, [53, 443]), report('port-2', 50, [53])]);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200]);
    expect((await portLocation()).ports).toEqual([51820, 53]);
    expect((await portLocation('?port=53')).endpoint).toBe('198.51.100.31:53');
    expect((await get('?port=443')).statusCode).toBe(422);
  });
});
