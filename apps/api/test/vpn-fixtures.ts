import { generateKeyPairSync } from 'node:crypto';
import type { ServerListItem, WgOverview } from '@warren/contract';
import { customerOnPlan, type TestApp, type TestClient } from './helpers.js';

/**
 * The VPN area's HTTP tests' customers and calls (locations.test.ts, wireguard.test.ts,
 * nodes.test.ts): a verified user on a plan, a WireGuard key, the server list and the WireGuard page.
 */
export function vpnFixtures(app: () => TestApp) {
  function wgKey(): string {
    const { publicKey } = generateKeyPairSync('x25519');
    return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
  }

  /** A verified user, optionally on a paid plan (set in the database: these tests are not about paying); 'inactive' is unverified. */
  async function user(plan: 'free' | 'paid' | 'inactive' = 'free') {
    const { c, id } = await customerOnPlan(app().app, plan, { tag: 'vpn' });
    return { c, id };
  }

  const servers = async (c: TestClient, lang = 'en') =>
    (await c.get(`/api/setup/servers/get?langCode=${lang}`)).json().data.serverList as ServerListItem[];
  const overview = async (c: TestClient) => (await c.get('/api/setup/wg/get')).json().data as WgOverview;
  const addDevice = (c: TestClient, name = 'Laptop', publicKey = wgKey()) =>
    c.post('/api/setup/wg/devices/add', { name, publicKey });

  return { wgKey, user, servers, overview, addDevice };
}
