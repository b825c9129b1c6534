import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  type DesiredState,
  type NodeStealthStatus,
  type StealthOverview,
  stealthPassword,
  stealthUuid,
} from '@warren/contract';
import { redactUrl } from '../src/app.js';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { TestClient, createTestApp, customerOnPlan, type CustomerPlan, type TestApp } from './helpers.js';

/**
 * Stealth (issue 21) on the API side: who gets credentials and links, what nodes receive, the
 * subscription URL in its three formats, rotation, the access rule through the change log, the
 * rate limit, and the secret kept out of the logs.
 */
let t: TestApp;
const logLines: string[] = [];
let paidNode: string;
let paidNode2: string;
let freeNode: string;
let quietNode: string;

const STATUS: NodeStealthStatus = {
  host: 'de-1.stealth.example.net',
  port: 443,
  wsPath: '/ws-Ab12_x',
  up: true,
  version: '4.34.0',
  users: 3,
  certNotAfter: Date.UTC(2027, 0, 31),
};

beforeAll(async () => {
  // No job engine: its lapse pass would return lapsed plans to free at any moment.
  t = await createTestApp(
    { JOBS: 'false', LOG_LEVEL: 'info' },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
  const names = (en: string) => ({ en, ru: `${en}-ru`, zh: `${en}-zh` });
  await addLocation(t.app.db, {
    slug: 'zs-paid',
    countryCode: 'ZS',
    country: { en: 'Germany', ru: 'Германия', zh: '德国' },
    city: { en: 'Frankfurt', ru: 'Франкфурт', zh: '法兰克福' },
    latitude: 50,
    longitude: 8,
    premium: true,
  });
  await addLocation(t.app.db, {
    slug: 'zs-free',
    countryCode: 'ZS',
    country: names('Freeland'),
    city: names('Libre'),
    latitude: 0,
    longitude: 0,
    premium: false,
  });
  await addLocation(t.app.db, {
    slug: 'zs-quiet',
    countryCode: 'ZS',
    country: names('Quietland'),
    city: names('Hush'),
    latitude: 0,
    longitude: 0,
    premium: true,
  });
  paidNode = (await addNode(t.app.db, { location: 'zs-paid', name: 'zs-paid-1', endpointHost: 'de-1.example.net' }))
    .token;
  paidNode2 = (await addNode(t.app.db, { location: 'zs-paid', name: 'zs-paid-2', endpointHost: 'de-2.example.net' }))
    .token;
  freeNode = (await addNode(t.app.db, { location: 'zs-free', name: 'zs-free-1', endpointHost: 'free-1.example.net' }))
    .token;
  // Reports (WireGuard) but never stealth: no stealth link may point at it.
  quietNode = (
    await addNode(t.app.db, { location: 'zs-quiet', name: 'zs-quiet-1', endpointHost: 'quiet-1.example.net' })
  ).token;
  await report(paidNode, STATUS);
  // The second node of the location reports a core that is down: the links use the one that is up.
  await report(paidNode2, { ...STATUS, host: 'de-2.stealth.example.net', up: false });
  await report(freeNode, { ...STATUS, host: 'free-1.stealth.example.net', port: 8443, wsPath: '/free' });
  await report(quietNode);
  // The nodes' agents: long-poll as a real agent does, so each applies (acknowledges) every change and
  // new credentials are shown without waiting out SYNC_WAIT_MS for nodes that never ask.
  for (const token of [paidNode, paidNode2, freeNode, quietNode]) agents.push(agentLoop(token));
});
afterAll(async () => {
  stopped = true;
  await t?.close();
  await Promise.allSettled(agents);
});

let stopped = false;
const agents: Promise<void>[] = [];
async function agentLoop(token: string) {
  let q = '';
  while (!stopped) {
    const res = await t.app
      .inject({ method: 'GET', url: `/api/nodes/desired${q}`, headers: nodeAuth(token) })
      .catch(() => undefined);
    if (!res || res.statusCode !== 200) return;
    const d = res.json().data as DesiredState;
    q = `?since=${d.version}&at=${d.evaluatedAt}&wait=20`;
  }
}

const nodeAuth = (token: string) => ({ authorization: `Bearer ${token}` });
async function report(
  token: string,
  stealth?: NodeStealthStatus,
  stealthTraffic?: { owner: number; rxBytes: number; txBytes: number }[],
) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/nodes/report',
    headers: nodeAuth(token),
    payload: { load: 10, activePeers: 0, peers: [], stealth, stealthTraffic },
  });
  expect(res.statusCode, res.body).toBe(200);
}
const desired = async (token: string, q = '') => {
  const res = await t.app.inject({ method: 'GET', url: `/api/nodes/desired${q}`, headers: nodeAuth(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as DesiredState;
};
const since = (d: DesiredState) => `?since=${d.version}&at=${d.evaluatedAt}`;

const user = async (plan: Exclude<CustomerPlan, 'inactive'> = 'paid', language = 'en') => {
  const { c, id } = await customerOnPlan(t.app, plan, { tag: 'stealth', name: 'Stealth User', language });
  return { c, id };
};

const overview = async (c: TestClient) => {
  const res = await c.get('/api/setup/stealth/get');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as StealthOverview;
};
const secretOf = (o: StealthOverview) => new URL(o.subscriptionUrl).pathname.split('/').pop()!;
/** A subscription fetch as an app makes it: no session, its own address. */
const fetchSub = (path: string, from = '192.0.2.10') =>
  t.app.inject({ method: 'GET', url: path, remoteAddress: from, headers: { 'user-agent': 'v2rayNG/1.9.0' } });
let subIp = 0;
const freshIp = () => `198.18.${++subIp >> 8}.${subIp & 255}`;

describe('who gets stealth', () => {
  it('refuses free and lapsed plans the way other paid features do, and strangers with 401', async () => {
    for (const plan of ['free', 'lapsed'] as const) {
      const { c } = await user(plan);
      const res = await c.get('/api/setup/stealth/get');
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'This feature needs a premium plan.' });
      expect((await c.post('/api/setup/stealth/reset')).statusCode).toBe(403);
    }
    expect((await new TestClient(t.app).get('/api/setup/stealth/get')).statusCode).toBe(401);
    expect((await new TestClient(t.app).post('/api/setup/stealth/reset')).statusCode).toBe(401);
    // The feature answer for comparison: the same 403 body.
    const { c } = await user('free');
    expect((await c.post('/api/setup/features/state', { id: 1, state: true })).json()).toEqual({
      message: 'This feature needs a premium plan.',
    });
  });

  it("gives a paid plan one vless:// and one trojan:// link per location whose nodes reported stealth, in the apps' format", async () => {
    const { c } = await user('paid');
    const o = await overview(c);
    expect(new Set(o.links.map((l) => l.location))).toEqual(new Set(['zs-paid', 'zs-free']));
    expect(
      o.links
        .filter((l) => l.location === 'zs-paid')
        .map((l) => l.protocol)
        .sort(),
    ).toEqual(['trojan', 'vless']);
    expect(o.links.some((l) => l.url.includes('quiet'))).toBe(false);

    const vless = o.links.find((l) => l.location === 'zs-paid' && l.protocol === 'vless')!;
    expect(vless.name).toBe('Warren VPN · Germany, Frankfurt');
    const v = new URL(vless.url);
    expect(v.protocol).toBe('vless:');
    expect(stealthUuid.safeParse(v.username).success).toBe(true);
    // The node whose core is up, not its sibling that reported the core down.
    expect(v.hostname).toBe('de-1.stealth.example.net');
    expect(v.port).toBe('443');
    expect(Object.fromEntries(v.searchParams)).toEqual({
      encryption: 'none',
      security: 'tls',
      sni: 'de-1.stealth.example.net',
      type: 'ws',
      host: 'de-1.stealth.example.net',
      path: '/ws-Ab12_x',
    });
    expect(vless.url).toContain('path=%2Fws-Ab12_x');
    expect(decodeURIComponent(v.hash.slice(1))).toBe('Warren VPN · Germany, Frankfurt · VLESS');
    expect(vless.url).not.toMatch(/allowInsecure|insecure/i);

    const trojan = new URL(o.links.find((l) => l.location === 'zs-free' && l.protocol === 'trojan')!.url);
    expect(trojan.protocol).toBe('trojan:');
    expect(stealthPassword.safeParse(decodeURIComponent(trojan.username)).success).toBe(true);
    expect(trojan.username.length).toBeGreaterThanOrEqual(43); // 256 bits
    expect([trojan.hostname, trojan.port]).toEqual(['free-1.stealth.example.net', '8443']);
    expect(Object.fromEntries(trojan.searchParams)).toMatchObject({
      security: 'tls',
      sni: 'free-1.stealth.example.net',
      type: 'tcp',
    });
    expect(decodeURIComponent(trojan.hash.slice(1))).toBe('Warren VPN · Freeland, Libre · Trojan');

    // Stable: asked again, the same credentials and URL; the subscription URL is on the brand's origin.
    expect(await overview(c)).toEqual(o);
    expect(o.subscriptionUrl).toMatch(/^http:\/\/localhost(:\d+)?\/api\/sub\/[A-Za-z0-9_-]{43}$/);
    // Names follow the language asked for.
    expect(
      (await c.get('/api/setup/stealth/get?langCode=ru'))
        .json()
        .data.links.find((l: { location: string }) => l.location === 'zs-paid').name,
    ).toBe('Warren VPN · Германия, Франкфурт');
  });

  it("puts paid accounts with credentials on every node, with the link's credentials, and nobody else", async () => {
    const paid = await user('paid');
    const lifetime = await user('lifetime');
    const o = await overview(paid.c);
    await overview(lifetime.c);
    const free = await user('free');
    await free.c.get('/api/setup/stealth/get');
    const v = new URL(o.links.find((l) => l.protocol === 'vless')!.url);
    const tr = new URL(o.links.find((l) => l.protocol === 'trojan')!.url);
    for (const token of [paidNode, freeNode]) {
      const users = (await desired(token)).stealthUsers;
      expect(users.find((u) => u.owner === paid.id)).toEqual({
        owner: paid.id,
        id: v.username,
        password: decodeURIComponent(tr.username),
      });
      expect(users.some((u) => u.owner === lifetime.id)).toBe(true);
      expect(users.some((u) => u.owner === free.id)).toBe(false);
    }
    // Nothing else of the account travels: only owner, id and password.
    const all = (await desired(paidNode)).stealthUsers;
    expect(new Set(all.flatMap((u) => Object.keys(u)))).toEqual(new Set(['owner', 'id', 'password']));
    // Unique per account.
    expect(new Set(all.map((u) => u.id)).size).toBe(all.length);
    expect(new Set(all.map((u) => u.password)).size).toBe(all.length);
  });

  it('parallel first requests make one set of credentials, the one every answer shows', async () => {
    const { c, id } = await user('paid');
    const answers = await Promise.all(Array.from({ length: 6 }, () => c.get('/api/setup/stealth/get')));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((r) => r.json().data.subscriptionUrl)).size).toBe(1);
    const [row] = await t.app.db.query<{ n: number }>(
      'select count(*)::int as n from stealth_credentials where user_id = $1',
      [id],
    );
    expect(row!.n).toBe(1);
  });

  it('keeps the credentials out of the database: a read of the table alone yields no id, password or URL secret', async () => {
    const { c, id } = await user('paid');
    const o = await overview(c);
    const [row] = await t.app.db.query<Record<string, unknown>>(
      'select * from stealth_credentials where user_id = $1',
      [id],
    );
    const dump = JSON.stringify(row);
    const v = new URL(o.links[0]!.url);
    for (const secret of [v.username, secretOf(o), decodeURIComponent(new URL(o.links[1]!.url).username)])
      expect(dump).not.toContain(secret);
  });
});

describe('the subscription URL', () => {
  it('answers the base64 link list with the headers the apps read', async () => {
    const { c, id } = await user('paid');
    const o = await overview(c);
    await report(paidNode, STATUS, [
      { owner: id, rxBytes: 1000, txBytes: 5000 },
      { owner: 2_000_000_000, rxBytes: 1, txBytes: 1 },
    ]);
    await report(freeNode, { ...STATUS, host: 'free-1.stealth.example.net', port: 8443, wsPath: '/free' }, [
      { owner: id, rxBytes: 24, txBytes: 36 },
    ]);
    const res = await fetchSub(new URL(o.subscriptionUrl).pathname, freshIp());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(Buffer.from(res.body, 'base64').toString('utf8').split('\n')).toEqual(o.links.map((l) => l.url));
    const [exp] = await t.app.db.query<{ s: number }>(
      'select floor(extract(epoch from subscription_expires_at))::float8 as s from users where id = $1',
      [id],
    );
    expect(res.headers['subscription-userinfo']).toBe(`upload=1024; download=5036; total=0; expire=${exp!.s}`);
    expect(res.headers['profile-update-interval']).toBe('12');
    expect(res.headers['profile-title']).toBe('Warren VPN');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="Warren-VPN\.txt"/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('answers a Clash Meta profile and a sing-box profile with the same servers', async () => {
    const { c } = await user('paid');
    const o = await overview(c);
    const path = new URL(o.subscriptionUrl).pathname;
    const v = new URL(o.links.find((l) => l.location === 'zs-paid' && l.protocol === 'vless')!.url);
    const tr = new URL(o.links.find((l) => l.location === 'zs-paid' && l.protocol === 'trojan')!.url);

    const clashRes = await fetchSub(`${path}?format=clash`, freshIp());
    expect(clashRes.statusCode).toBe(200);
    expect(clashRes.headers['content-type']).toBe('text/yaml; charset=utf-8');
    expect(clashRes.headers['content-disposition']).toMatch(/filename="Warren-VPN\.yaml"/);
    const clash = parseYaml(clashRes.body) as {
      proxies: Record<string, unknown>[];
      'proxy-groups': { name: string; type: string; proxies: string[] }[];
      rules: string[];
    };
    expect(clash.proxies).toHaveLength(o.links.length);
    expect(clash.proxies.find((p) => p.name === 'Warren VPN · Germany, Frankfurt · VLESS')).toEqual({
      name: 'Warren VPN · Germany, Frankfurt · VLESS',
      type: 'vless',
      server: 'de-1.stealth.example.net',
      port: 443,
      uuid: v.username,
      udp: true,
      tls: true,
      servername: 'de-1.stealth.example.net',
      'skip-cert-verify': false,
      network: 'ws',
      'ws-opts': { path: '/ws-Ab12_x', headers: { Host: 'de-1.stealth.example.net' } },
    });
    expect(clash.proxies.find((p) => p.name === 'Warren VPN · Germany, Frankfurt · Trojan')).toMatchObject({
      type: 'trojan',
      password: decodeURIComponent(tr.username),
      sni: 'de-1.stealth.example.net',
      'skip-cert-verify': false,
    });
    const group = clash['proxy-groups'].find((g) => g.name === 'Warren VPN')!;
    expect(group.type).toBe('select');
    expect(group.proxies).toEqual(expect.arrayContaining(clash.proxies.map((p) => p.name as string)));
    expect(clash.rules).toEqual(['MATCH,Warren VPN']);

    const sbRes = await fetchSub(`${path}?format=singbox`, freshIp());
    expect(sbRes.statusCode).toBe(200);
    expect(sbRes.headers['content-type']).toBe('application/json; charset=utf-8');
    const sb = JSON.parse(sbRes.body) as { outbounds: Record<string, unknown>[]; route: { final: string } };
    const sbVless = sb.outbounds.find((x) => x.tag === 'Warren VPN · Germany, Frankfurt · VLESS')!;
    expect(sbVless).toEqual({
      type: 'vless',
      tag: 'Warren VPN · Germany, Frankfurt · VLESS',
      server: 'de-1.stealth.example.net',
      server_port: 443,
      uuid: v.username,
      tls: { enabled: true, server_name: 'de-1.stealth.example.net' },
      transport: { type: 'ws', path: '/ws-Ab12_x', headers: { Host: 'de-1.stealth.example.net' } },
    });
    expect(sb.outbounds.find((x) => x.tag === 'Warren VPN · Germany, Frankfurt · Trojan')).toMatchObject({
      type: 'trojan',
      password: decodeURIComponent(tr.username),
      tls: { enabled: true, server_name: 'de-1.stealth.example.net' },
    });
    expect(sb.outbounds.find((x) => x.tag === sb.route.final)).toMatchObject({ type: 'selector' });
    expect(sbRes.body).not.toMatch(/insecure/i);

    expect((await fetchSub(`${path}?format=v2ray`, freshIp())).statusCode).toBe(422);
  });

  it('answers 404 for an unknown, malformed or nearly-right secret, the same way', async () => {
    const { c } = await user('paid');
    const secret = secretOf(await overview(c));
    const flipped = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    for (const s of [flipped, 'x'.repeat(43), 'short', `${secret}x`, encodeURIComponent('../../api/brand')]) {
      const res = await fetchSub(`/api/sub/${s}`, freshIp());
      expect(res.statusCode, s).toBe(404);
      expect(res.json()).toEqual({ message: 'Not found.' });
    }
  });

  it('tells a lapsed or refunded plan it expired (in the app) instead of serving servers, and is dead for a deleted account', async () => {
    const { c, id } = await user('paid');
    const path = new URL((await overview(c)).subscriptionUrl).pathname;
    await t.app.db.query(`update users set subscription_expires_at = now() - interval '1 hour' where id = $1`, [id]);
    const res = await fetchSub(path, freshIp());
    expect(res.statusCode).toBe(200);
    const [exp] = await t.app.db.query<{ s: number }>(
      'select floor(extract(epoch from subscription_expires_at))::float8 as s from users where id = $1',
      [id],
    );
    expect(res.headers['subscription-userinfo']).toMatch(new RegExp(`expire=${exp!.s}$`));
    expect(exp!.s * 1000).toBeLessThan(Date.now());
    const links = Buffer.from(res.body, 'base64').toString('utf8').split('\n');
    expect(links.every((l) => new URL(l).hostname === '127.0.0.1')).toBe(true);
    expect(decodeURIComponent(new URL(links[0]!).hash.slice(1))).toMatch(
      /^Warren VPN · Plan expired: renew at localhost/,
    );
    expect(res.body).not.toContain('stealth.example.net');
    // Returned to the free plan by billing: still "expired", never "unlimited".
    await t.app.db.query(
      `update users set tariff_key = 'free-plan', tariff_name = 'Free', subscription_expires_at = null where id = $1`,
      [id],
    );
    expect((await fetchSub(path, freshIp())).headers['subscription-userinfo']).toMatch(/expire=1$/);

    await t.app.db.query(`update users set deleted_at = now(), account_status = 'Suspended' where id = $1`, [id]);
    expect((await fetchSub(path, freshIp())).statusCode).toBe(404);
  });

  it('is rate-limited per address, also under parallel requests', async () => {
    const { c } = await user('paid');
    const path = new URL((await overview(c)).subscriptionUrl).pathname;
    const from = freshIp();
    const answers = await Promise.all(Array.from({ length: 70 }, () => fetchSub(path, from)));
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((s) => s === 200)).toHaveLength(60);
    expect(codes.filter((s) => s === 429)).toHaveLength(10);
    const limited = answers.find((r) => r.statusCode === 429)!;
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Guessing from that address is limited the same way (counted before the secret is looked at).
    expect((await fetchSub('/api/sub/' + 'y'.repeat(43), from)).statusCode).toBe(429);
    // Another address still gets its own budget.
    expect((await fetchSub(path, freshIp())).statusCode).toBe(200);
  });

  it('does not open to other spellings of the path: they are 404 or the same limited route', async () => {
    const { c } = await user('paid');
    const secret = secretOf(await overview(c));
    const spellings = [
      `/api/SUB/${secret}`,
      `/API/sub/${secret}`,
      `/%61pi/sub/${secret}`,
      `/api/s%75b/${secret}`,
      `//api/sub/${secret}`,
      `/api/sub//${secret}`,
      `/api/sub/${secret}/`,
      `/api%2Fsub%2F${secret}`,
      `/api/./sub/${secret}`,
    ];
    const from = freshIp();
    let served = 0;
    for (const s of spellings) {
      const res = await fetchSub(s, from);
      expect([200, 404], s).toContain(res.statusCode);
      if (res.statusCode !== 200) continue;
      // Outside /api/ (`/API/…`) the web app's page may answer (when built): a page, never the subscription.
      if (String(res.headers['content-type']).startsWith('text/html')) {
        expect(res.body, s).not.toMatch(/vless:\/\/|trojan:\/\//);
        expect(res.body, s).not.toContain(secret);
        continue;
      }
      expect(res.headers['content-type'], s).toBe('text/plain; charset=utf-8');
      served++;
    }
    // Whatever the router resolves counts against the same per-address budget as the plain path.
    const left = 60 - served;
    for (let i = 0; i < left; i++) await fetchSub(`/api/sub/${secret}`, from);
    expect((await fetchSub(`/api/sub/${secret}`, from)).statusCode).toBe(429);
  });
});

describe('rotation and access through the change log', () => {
  it('reset: new credentials and URL at once, the old URL 404, the nodes get a delta without the old credentials', async () => {
    const a = await user('paid');
    const before = await overview(a.c);
    const base = await desired(paidNode);
    const old = base.stealthUsers.find((u) => u.owner === a.id)!;
    expect(old).toBeDefined();
    // A node waiting on its long poll wakes for the reset.
    const started = Date.now();
    const pending = desired(paidNode, `${since(base)}&wait=20`);
    await new Promise((r) => setImmediate(r));
    const res = await a.c.post('/api/setup/stealth/reset');
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json().data as StealthOverview;
    const delta = await pending;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(delta.full).toBe(false);
    expect(delta.changedOwners).toEqual([a.id]);
    const now = delta.stealthUsers.find((u) => u.owner === a.id)!;
    expect(now.id).not.toBe(old.id);
    expect(now.password).not.toBe(old.password);
    expect(JSON.stringify(delta)).not.toContain(old.password);

    expect(after.subscriptionUrl).not.toBe(before.subscriptionUrl);
    expect(new URL(after.links[0]!.url).username).toBe(now.id);
    expect((await fetchSub(new URL(before.subscriptionUrl).pathname, freshIp())).statusCode).toBe(404);
    expect((await fetchSub(new URL(after.subscriptionUrl).pathname, freshIp())).statusCode).toBe(200);
    expect(await overview(a.c)).toEqual(after);
    // XSRF holds for the reset like for every other write.
    expect(
      (await a.c.post('/api/setup/stealth/reset', undefined, { headers: { 'x-xsrf-token': 'wrong' } })).statusCode,
    ).toBe(419);
  });

  it('another account cannot aim a reset or a fetch at someone else', async () => {
    const a = await user('paid');
    const b = await user('paid');
    const oa = await overview(a.c);
    const ob = await overview(b.c);
    expect(secretOf(oa)).not.toBe(secretOf(ob));
    const res = await b.c.post('/api/setup/stealth/reset', { userId: a.id, owner: a.id });
    expect(res.statusCode).toBe(200);
    expect(await overview(a.c)).toEqual(oa);
    expect((await fetchSub(new URL(oa.subscriptionUrl).pathname, freshIp())).statusCode).toBe(200);
    expect((await fetchSub(new URL(ob.subscriptionUrl).pathname, freshIp())).statusCode).toBe(404);
  });

  it('parallel resets leave one set of credentials in force, the one the nodes have', async () => {
    const a = await user('paid');
    await overview(a.c);
    const answers = await Promise.all([1, 2, 3].map(() => a.c.post('/api/setup/stealth/reset')));
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    const final = await overview(a.c);
    const onNode = (await desired(paidNode)).stealthUsers.find((u) => u.owner === a.id)!;
    expect(new URL(final.links[0]!.url).username).toBe(onNode.id);
    const live = await Promise.all(
      answers.map((r) => fetchSub(new URL((r.json().data as StealthOverview).subscriptionUrl).pathname, freshIp())),
    );
    expect(live.filter((r) => r.statusCode === 200)).toHaveLength(
      answers.filter((r) => r.json().data.subscriptionUrl === final.subscriptionUrl).length,
    );
  });

  it('a lapse (by the clock), a refund, a disable and a deletion each drop the owner from stealthUsers through a delta', async () => {
    // Lapse: no write at all, the long poll wakes at the expiry.
    const lapse = await user('paid');
    await overview(lapse.c);
    await t.app.db.query(
      `update users set subscription_expires_at = now() + interval '1500 milliseconds' where id = $1`,
      [lapse.id],
    );
    let base = await desired(paidNode);
    expect(base.stealthUsers.some((u) => u.owner === lapse.id)).toBe(true);
    let delta = await desired(paidNode, `${since(base)}&wait=20`);
    expect(delta.changedOwners).toContain(lapse.id);
    expect(delta.stealthUsers.some((u) => u.owner === lapse.id)).toBe(false);

    // Refund: a support grant on a free account, refunded: the period goes back and so does stealth.
    const refund = await user('free');
    const grant = await t.app.billing.operator.grantDays(refund.id, 30);
    await overview(refund.c);
    base = await desired(paidNode);
    expect(base.stealthUsers.some((u) => u.owner === refund.id)).toBe(true);
    await t.app.billing.operator.refund(grant.public_id, { force: true });
    delta = await desired(paidNode, since(base));
    expect(delta.changedOwners).toContain(refund.id);
    expect(delta.stealthUsers.some((u) => u.owner === refund.id)).toBe(false);

    for (const change of [`account_status = 'Suspended'`, `deleted_at = now()`]) {
      const u = await user('paid');
      await overview(u.c);
      base = await desired(freeNode);
      expect(base.stealthUsers.some((x) => x.owner === u.id)).toBe(true);
      await t.app.db.query(`update users set ${change} where id = $1`, [u.id]);
      delta = await desired(freeNode, `${since(base)}&wait=5`);
      expect(delta.changedOwners, change).toContain(u.id);
      expect(
        delta.stealthUsers.some((x) => x.owner === u.id),
        change,
      ).toBe(false);
      expect(
        (await desired(freeNode)).stealthUsers.some((x) => x.owner === u.id),
        change,
      ).toBe(false);
    }
  });
});

describe('node reports', () => {
  it("keep the core status for links, console and metrics; a report without stealth takes the node's links away", async () => {
    const { c } = await user('paid');
    await report(paidNode, { ...STATUS, wsPath: '/moved', users: 7 });
    expect((await overview(c)).links.find((l) => l.location === 'zs-paid' && l.protocol === 'vless')!.url).toContain(
      'path=%2Fmoved',
    );
    const scrape = await t.app.services.metrics.registry.metrics();
    expect(scrape).toContain('warren_node_stealth_up{node="zs-paid-1"} 1');
    expect(scrape).toContain('warren_node_stealth_up{node="zs-paid-2"} 0');
    expect(scrape).toContain('warren_node_stealth_users{node="zs-paid-1"} 7');
    expect(scrape).toContain(
      `warren_node_stealth_cert_expiry_seconds{node="zs-paid-1"} ${STATUS.certNotAfter! / 1000}`,
    );
    expect(scrape).toContain('warren_node_stealth_info{node="zs-paid-1",version="4.34.0"} 1');
    expect(scrape).not.toContain('node="zs-quiet-1"');

    await report(freeNode);
    expect((await overview(c)).links.some((l) => l.location === 'zs-free')).toBe(false);
    await report(freeNode, { ...STATUS, host: 'free-1.stealth.example.net', port: 8443, wsPath: '/free' });
    expect((await overview(c)).links.some((l) => l.location === 'zs-free')).toBe(true);
  });

  it('refuse malformed stealth parts with 422 and change nothing', async () => {
    for (const stealth of [
      { ...STATUS, wsPath: 'no-slash' },
      { ...STATUS, port: 0 },
      { ...STATUS, host: '' },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/nodes/report',
        headers: nodeAuth(paidNode),
        payload: { load: 1, activePeers: 0, peers: [], stealth },
      });
      expect(res.statusCode).toBe(422);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/nodes/report',
      headers: nodeAuth(paidNode),
      payload: { load: 1, activePeers: 0, peers: [], stealthTraffic: [{ owner: 1, rxBytes: -1, txBytes: 0 }] },
    });
    expect(res.statusCode).toBe(422);
  });
});

describe('the secret stays out of the logs', () => {
  it('redacts the subscription path in every spelling', () => {
    const s = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';
    for (const url of [
      `/api/sub/${s}`,
      `/api/sub/${s}?format=clash`,
      `/api/SUB/${s}`,
      `/%61pi/sub/${s}`,
      `/api/s%75b/${s}`,
      `//api//sub/${s}`,
      `/api%2Fsub%2F${s}`,
      `/api/%73%75%62/${s}`,
    ]) {
      expect(redactUrl(url), url).not.toContain(s);
    }
    expect(redactUrl('/api/setup/stealth/get?langCode=ru')).toBe('/api/setup/stealth/get?langCode=ru');
    expect(redactUrl('/api/billing/subscription?token=abc')).toBe('/api/billing/subscription?token=[redacted]');
  });

  it('no log line of the whole run holds a subscription secret or stealth credential', async () => {
    const { c } = await user('paid');
    const o = await overview(c);
    const secret = secretOf(o);
    for (const s of [
      `/api/sub/${secret}`,
      `/api/SUB/${secret}`,
      `/%61pi/sub/${secret}`,
      `/api/sub/${secret}?format=clash`,
    ])
      await fetchSub(s, freshIp());
    await c.post('/api/setup/stealth/reset');
    const o2 = await overview(c);
    await fetchSub(new URL(o2.subscriptionUrl).pathname, freshIp());
    await t.app.settle();
    const log = logLines.join('');
    expect(log).toContain('/api/sub/[redacted]');
    expect(logLines.length).toBeGreaterThan(10);
    for (const s of [secret, secretOf(o2), new URL(o.links[0]!.url).username, new URL(o2.links[0]!.url).username])
      expect(log).not.toContain(s);
  });
});
