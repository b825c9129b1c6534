import { generateKeyPairSync } from 'node:crypto';
import type { ServerListItem, WgOverview } from '@warren/contract';
import { PASSWORD, TestClient, uniqueEmail, type TestApp } from './helpers.js';

/**
 * The VPN area's HTTP tests' customers and calls (locations.test.ts, wireguard.test.ts,
 * nodes.test.ts): a verified user on a plan, a WireGuard key, the server list and the WireGuard page.
 */
export function vpnFixtures(app: () => TestApp) {
  let ip = 0;

  function wgKey(): string {
    const { publicKey } = generateKeyPairSync('x25519');
    return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
  }

  /** A verified user, optionally on a paid plan (set in the database: these tests are not about paying). */
  async function user(plan: 'free' | 'paid' | 'inactive' = 'free') {
    const t = app();
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

  return { wgKey, user, servers, overview, addDevice };
}
