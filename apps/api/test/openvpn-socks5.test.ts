import { keyring } from '../src/lib/keyring.js';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState, NodeServices, ServicesOverview } from '@warren/contract';
import { hashToken } from '../src/lib/secrets.js';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { checkVerifier } from '../src/modules/openvpn-socks5/credentials.js';
import { PkiSecretError, pkiStore } from '../src/modules/openvpn-socks5/pki.js';
import { renderOvpn } from '../src/modules/openvpn-socks5/render.js';
import { PASSWORD, TestClient, createTestApp, customerOnPlan, type TestApp } from './helpers.js';

/** OpenVPN and SOCKS5 on the API side: credentials, the PKI, .ovpn files, what nodes receive. */
let t: TestApp;
let freeNodeToken: string;
let paidNodeToken: string;

beforeAll(async () => {
  // No job engine: its lapse pass returns a lapsed plan to free at any moment, and the access rule
  // below is checked as of the lapse itself (the pass is tested in billing-renewals.test.ts).
  t = await createTestApp({ JOBS: 'false' });
  await addLocation(t.app.db, {
    slug: 'zz-free',
    countryCode: 'ZZ',
    country: { en: 'Freeland', ru: 'Фриленд', zh: '自由国' },
    city: { en: 'Libre', ru: 'Либре', zh: '自由城' },
    latitude: 0,
    longitude: 0,
    premium: false,
  });
  await addLocation(t.app.db, {
    slug: 'zz-paid',
    countryCode: 'ZZ',
    country: { en: 'Paidland', ru: 'Пэйдленд', zh: '付费国' },
    city: { en: 'Crown', ru: 'Краун', zh: '皇冠城' },
    latitude: 0,
    longitude: 0,
    premium: true,
  });
  freeNodeToken = (await addNode(t.app.db, { location: 'zz-free', name: 'zz-free-1', endpointHost: '198.51.100.10' }))
    .token;
  paidNodeToken = (
    await addNode(t.app.db, { location: 'zz-paid', name: 'zz-paid-1', endpointHost: 'paid-1.example.net' })
  ).token;
  await addNode(t.app.db, { location: 'zz-paid', name: 'zz-paid-2', endpointHost: 'paid-2.example.net' });
});
afterAll(async () => {
  await t?.close();
});

const user = async (plan: 'free' | 'paid' | 'lapsed' = 'free') => {
  const { c, id } = await customerOnPlan(t.app, plan, { tag: 'svc' });
  return { c, id };
};

const overview = async (c: TestClient) => {
  const res = await c.get('/api/setup/services/get');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as ServicesOverview;
};
const desired = async (token: string) =>
  (
    await t.app.inject({ method: 'GET', url: '/api/nodes/desired', headers: { authorization: `Bearer ${token}` } })
  ).json().data as DesiredState;
const config = (c: TestClient, q: string) => c.get(`/api/setup/openvpn/config?${q}`);

describe('service credentials', () => {
  it('are made once per account, differ from the account password, and only their owner sees or resets them', async () => {
    const a = await user('paid');
    const b = await user('paid');
    const first = await overview(a.c);
    expect(first.credentials.username).toMatch(/^w[a-z2-9]{11}$/);
    expect(first.credentials.password).toHaveLength(20);
    expect(first.credentials.password).not.toBe(PASSWORD);
    expect((await overview(a.c)).credentials).toEqual(first.credentials);

    const other = await overview(b.c);
    expect(other.credentials.username).not.toBe(first.credentials.username);
    // B's reset changes B's password only: the call has no account parameter to aim at A with.
    const reset = await b.c.post('/api/setup/services/credentials/reset', {
      userId: a.id,
      username: first.credentials.username,
    });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().data.username).toBe(other.credentials.username);
    expect((await overview(a.c)).credentials).toEqual(first.credentials);
    expect(JSON.stringify(await overview(b.c))).not.toContain(first.credentials.password);

    expect((await new TestClient(t.app).get('/api/setup/services/get')).statusCode).toBe(401);
    expect((await new TestClient(t.app).post('/api/setup/services/credentials/reset')).statusCode).toBe(401);
    // The XSRF rule holds for the reset like for every other write.
    expect(
      (await a.c.post('/api/setup/services/credentials/reset', undefined, { headers: { 'x-xsrf-token': 'wrong' } }))
        .statusCode,
    ).toBe(419);
  });

  it('reach nodes only as a verifier; a reset makes the old password fail there', async () => {
    const a = await user('paid');
    const before = (await overview(a.c)).credentials;
    const entry = (await desired(paidNodeToken)).serviceUsers.find((u) => u.owner === a.id)!;
    expect(entry).toMatchObject({ username: before.username, openvpn: true, socks: true, adblock: false });
    expect(entry.verifier).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(JSON.stringify(await desired(paidNodeToken))).not.toContain(before.password);
    expect(await checkVerifier(entry.verifier, before.password)).toBe(true);
    expect(await checkVerifier(entry.verifier, PASSWORD)).toBe(false);

    const { since, at } = await desired(paidNodeToken).then((d) => ({ since: d.version, at: d.evaluatedAt }));
    const after = (await a.c.post('/api/setup/services/credentials/reset')).json().data;
    expect(after.username).toBe(before.username);
    expect(after.password).not.toBe(before.password);
    // A delta for exactly this account, with the new verifier.
    const delta = (
      await t.app.inject({
        method: 'GET',
        url: `/api/nodes/desired?since=${since}&at=${at}`,
        headers: { authorization: `Bearer ${paidNodeToken}` },
      })
    ).json().data as DesiredState;
    expect(delta.full).toBe(false);
    expect(delta.changedOwners).toContain(a.id);
    const updated = delta.serviceUsers.find((u) => u.owner === a.id)!;
    expect(await checkVerifier(updated.verifier, after.password)).toBe(true);
    expect(await checkVerifier(updated.verifier, before.password)).toBe(false);
  });

  it('follow the access rule and the ad blocker on each node', async () => {
    const free = await user('free');
    const lapsed = await user('lapsed');
    const paid = await user('paid');
    for (const u of [free, lapsed, paid]) await overview(u.c);
    expect((await paid.c.post('/api/setup/features/state', { id: 1, state: true })).statusCode).toBe(200);

    const onFree = (await desired(freeNodeToken)).serviceUsers;
    const onPaid = (await desired(paidNodeToken)).serviceUsers;
    // Free plan: OpenVPN on free locations only, no SOCKS5, no ad blocker.
    expect(onFree.find((u) => u.owner === free.id)).toMatchObject({ openvpn: true, socks: false, adblock: false });
    expect(onPaid.find((u) => u.owner === free.id)).toBeUndefined();
    // A lapsed paid plan: nowhere.
    expect([...onFree, ...onPaid].some((u) => u.owner === lapsed.id)).toBe(false);
    expect(onPaid.find((u) => u.owner === paid.id)).toMatchObject({ openvpn: true, socks: true, adblock: true });
    expect((await overview(paid.c)).adblock).toBe(true);
  });
});

describe('OpenVPN configuration files', () => {
  it('gives free users the free locations only, with hosts and ports', async () => {
    const free = await user('free');
    const o = await overview(free.c);
    expect(o).toMatchObject({ access: 'free', socksAvailable: false });
    const freeLoc = o.locations.find((l) => l.slug === 'zz-free')!;
    const paidLoc = o.locations.find((l) => l.slug === 'zz-paid')!;
    expect(freeLoc).toMatchObject({
      available: true,
      nodes: [{ host: '198.51.100.10', udpPort: 1194, tcpPort: 443, socksPort: 1080 }],
    });
    expect(paidLoc).toMatchObject({ available: false, nodes: [] });

    expect((await config(free.c, 'location=zz-free&protocol=udp')).statusCode).toBe(200);
    expect((await config(free.c, 'location=zz-paid&protocol=udp')).statusCode).toBe(403);
    expect((await config(free.c, 'location=nowhere-at-all')).statusCode).toBe(404);
    expect((await config(free.c, 'location=zz-free&protocol=icmp')).statusCode).toBe(422);

    const lapsed = await user('lapsed');
    expect((await overview(lapsed.c)).access).toBe('none');
    expect((await config(lapsed.c, 'location=zz-free')).statusCode).toBe(403);
  });

  it('renders .ovpn files with the CA and tls-crypt inline, every node of the location, UDP and TCP', async () => {
    const paid = await user('paid');
    const udp = await config(paid.c, 'location=zz-paid&protocol=udp');
    expect(udp.statusCode).toBe(200);
    expect(udp.headers['content-disposition']).toBe('attachment; filename="warren-zz-paid-udp.ovpn"');
    expect(udp.body).toMatch(/^client$/m);
    expect(udp.body).toMatch(/^proto udp$/m);
    expect(udp.body).toContain('remote paid-1.example.net 1194\nremote paid-2.example.net 1194\nremote-random');
    expect(udp.body).toMatch(/^auth-user-pass$/m);
    // A refused sign-in (lapsed plan) keeps the client trying, so a renewal reconnects it (issue 22).
    expect(udp.body).toMatch(/^auth-retry nointeract$/m);
    // Refused tries back off to at most 30 s (OpenVPN: 300 s), so a renewed plan reconnects within about half a minute.
    expect(udp.body).toMatch(/^connect-retry 2 30$/m);
    expect(udp.body).toMatch(/^remote-cert-tls server$/m);
    expect(udp.body).toMatch(/<ca>\n-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\n<\/ca>/);
    expect(udp.body).toMatch(
      /<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\n([0-9a-f]{32}\n){16}-----END OpenVPN Static key V1-----\n<\/tls-crypt>/,
    );
    expect(udp.body).not.toContain('PRIVATE KEY');

    const tcp = await config(paid.c, 'location=zz-paid&protocol=tcp');
    expect(tcp.body).toMatch(/^proto tcp$/m);
    expect(tcp.body).toContain('remote paid-1.example.net 443');
    expect(tcp.body).not.toContain('explicit-exit-notify');

    const creds = (await overview(paid.c)).credentials;
    const keenetic = await config(paid.c, 'location=zz-paid&protocol=udp&variant=keenetic');
    expect(keenetic.headers['content-disposition']).toContain('warren-zz-paid-udp-keenetic.ovpn');
    expect(keenetic.body).toContain(`<auth-user-pass>\n${creds.username}\n${creds.password}\n</auth-user-pass>`);
    const openwrt = await config(paid.c, 'location=zz-paid&protocol=udp&variant=openwrt');
    expect(openwrt.body).toMatch(/^auth-user-pass \/etc\/openvpn\/warren\.auth$/m);
    expect(openwrt.body).not.toContain(creds.password);
    expect((await config(paid.c, 'location=zz-paid&variant=tp-link')).statusCode).toBe(422);
  });

  it('renderOvpn refuses hosts that could inject directives', () => {
    const base = { title: 'X', protocol: 'udp' as const, ca: 'CA', tlsCrypt: 'K', variant: 'default' as const };
    expect(() => renderOvpn({ ...base, remotes: [{ host: 'a.example\nscript-security 3', port: 1194 }] })).toThrow();
    expect(() => renderOvpn({ ...base, remotes: [] })).toThrow();
    expect(renderOvpn({ ...base, title: 'A\nup /bin/sh', remotes: [{ host: 'a.example', port: 1 }] })).not.toMatch(
      /^up /m,
    );
  });
});

describe('PKI and the node side', () => {
  it('gives each node its own certificate, signed by the CA, for TLS servers; only with its token', async () => {
    const get = (token?: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/nodes/services',
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    expect((await get()).statusCode).toBe(401);
    expect((await get('wn_not-a-node')).statusCode).toBe(401);
    const a = (await get(freeNodeToken)).json().data as NodeServices;
    const b = (await get(paidNodeToken)).json().data as NodeServices;
    expect(a.openvpn.ca).toBe(b.openvpn.ca);
    expect(a.openvpn.key).not.toBe(b.openvpn.key);
    expect(a).toMatchObject({ openvpn: { udpPort: 1194, tcpPort: 443 }, socksPort: 1080 });
    const ca = new X509Certificate(a.openvpn.ca);
    const cert = new X509Certificate(a.openvpn.cert);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.subject).toBe('CN=zz-free-1');
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth: what `remote-cert-tls server` checks
    // The same certificate again (issued once), and the key matches it.
    expect(((await get(freeNodeToken)).json().data as NodeServices).openvpn.cert).toBe(a.openvpn.cert);
    expect(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(a.openvpn.key))).toBe(true);
    // The user side never carries a private key.
    const paid = await user('paid');
    expect(JSON.stringify(await overview(paid.c))).not.toContain('PRIVATE KEY');
  });

  it('checks a node token as the node API does (one check): a token the desired state takes, the services take too', async () => {
    // 200 characters: the node API's longest; the services route once had its own check that stopped at 199.
    const long = `wn_${'a'.repeat(197)}`;
    await addNode(t.app.db, { location: 'zz-free', name: 'zz-free-long', endpointHost: '198.51.100.12' });
    await t.app.db.query(`update vpn_nodes set token_hash = $1 where name = 'zz-free-long'`, [hashToken(long)]);
    const call = (url: string, token: string) =>
      t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect((await call('/api/nodes/desired', long)).statusCode).toBe(200);
    expect((await call('/api/nodes/services', long)).statusCode).toBe(200);
    for (const url of ['/api/nodes/desired', '/api/nodes/services']) {
      expect((await call(url, `${long}a`)).statusCode).toBe(401);
      expect((await call(url, `xx_${'a'.repeat(197)}`)).statusCode).toBe(401);
    }
    await t.app.db.query(`delete from vpn_nodes where name = 'zz-free-long'`);
  });

  it('keeps private keys encrypted at rest, and refuses to start with another secret', async () => {
    const [row] = await t.app.db.query<{ ca_key_enc: string; tls_crypt_enc: string }>(
      'select ca_key_enc, tls_crypt_enc from openvpn_pki',
    );
    expect(row!.ca_key_enc).not.toContain('PRIVATE KEY');
    expect(row!.tls_crypt_enc).not.toContain('Static key');
    const [node] = await t.app.db.query<{ key_enc: string }>('select key_enc from openvpn_node_certs limit 1');
    expect(node!.key_enc).not.toContain('PRIVATE KEY');
    const another = 'another-secret-that-is-long-enough-to-pass';
    await expect(pkiStore(t.app.db, keyring({ app: another, ca: another, previous: [] })).ensureCa()).rejects.toThrow(
      PkiSecretError,
    );
  });
});
