import { generateKeyPairSync } from 'node:crypto';
import { createTestApp } from '/work/main/apps/api/test/helpers.js';
import { addLocation, addNode } from '/work/main/apps/api/src/modules/nodes/admin.js';
const t = await createTestApp({ LOG_LEVEL: 'warn' });
await addLocation(t.app.db, { slug: 'bench-lab', countryCode: 'ZZ', country: { en: 'B', ru: 'B', zh: 'B' }, city: { en: 'L', ru: 'L', zh: 'L' }, latitude: 0, longitude: 0, premium: true });
const { token } = await addNode(t.app.db, { location: 'bench-lab', name: 'bench-lab-1', endpointHost: '192.0.2.1' });
const keys = Array.from({ length: 10000 }, () => generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'));
await t.app.db.query(`insert into users (email, password_hash, brand, verified, account_status, tariff_key, tariff_name) select 'b-' || g || '@b.invalid', '', 'warren-vpn', true, 'Active', 'lifetime', 'L' from generate_series(1, 10000) g`);
await t.app.db.query(`insert into wg_devices (user_id, name, public_key, addr_index) select u.id, 'b', k.key, k.ord::int from unnest($1::text[]) with ordinality as k(key, ord) join users u on u.email = 'b-' || k.ord || '@b.invalid'`, [keys]);
for (let i = 0; i < 5; i++) {
  let t0 = performance.now();
  const rows = await t.app.db.query(`select d.user_id, d.public_key, d.addr_index, u.account_status, u.tariff_key, u.subscription_expires_at, u.deleted_at from wg_devices d join users u on u.id = d.user_id where u.deleted_at is null and u.account_status = 'Active'`);
  const q = performance.now() - t0;
  t0 = performance.now();
  const res = await t.app.inject({ method: 'GET', url: '/api/nodes/desired', headers: { authorization: `Bearer ${token}` } });
  console.log('query', q.toFixed(0), 'endpoint', (performance.now() - t0).toFixed(0), 'bytes', res.body.length, rows.length);
}
await t.close();
