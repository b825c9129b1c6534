import { randomBytes, scryptSync } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState, NodeServiceUser } from '@warren/contract';
import { parseBlocklist } from '../dns/dnsmasq.js';
import { cidrToNetmask, renderOpenVpnServer } from '../openvpn/render.js';
import { REPLY, SocksServer, defaultDenied } from '../socks/server.js';
import { VerifyCache, checkPassword, diffServiceUsers, nextServiceUsers } from './users.js';

/** The verifier format the API writes (apps/api/src/modules/openvpn-socks5/credentials.ts), with a small N for speed. */
function verifier(password: string, N = 1024): string {
  const salt = randomBytes(16);
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${scryptSync(password, salt, 32, { N, r: 8, p: 1 }).toString('base64')}`;
}
const u = (owner: number, username: string, extra: Partial<NodeServiceUser> = {}): NodeServiceUser => ({
  owner,
  username,
  verifier: verifier('pw'),
  openvpn: true,
  socks: true,
  adblock: false,
  ...extra,
});
const answer = (a: Partial<DesiredState>): DesiredState => ({
  node: { id: 1, name: 'n' },
  version: 1,
  evaluatedAt: 0,
  nextCheckAt: null,
  full: true,
  changedOwners: [],
  peers: [],
  serviceUsers: [],
  stealthUsers: [],
  dnsBlocking: [],
  ...a,
});

describe('service users state', () => {
  it('replaces everything on a full answer and only the changed owners on a delta', () => {
    const a = u(1, 'waaaaaaa1');
    const b = u(2, 'wbbbbbbb2');
    const s1 = nextServiceUsers(null, answer({ serviceUsers: [a, b] }));
    expect([...s1.keys()]).toEqual([1, 2]);
    const b2 = { ...b, adblock: true };
    const s2 = nextServiceUsers(s1, answer({ full: false, changedOwners: [2, 3], serviceUsers: [b2] }));
    expect(s2.get(2)).toEqual(b2);
    expect(s2.get(1)).toEqual(a);
    const s3 = nextServiceUsers(s2, answer({ full: false, changedOwners: [1], serviceUsers: [] }));
    expect(s3.has(1)).toBe(false);
    const d = diffServiceUsers(s1, s3);
    expect(d.write.map((x) => x.username)).toEqual(['wbbbbbbb2']);
    expect(d.remove).toEqual(['waaaaaaa1']);
    expect(d.endOpenvpn).toEqual(['waaaaaaa1']);
    // A new password ends live sessions; losing SOCKS5 ends only those.
    const d2 = diffServiceUsers(s3, new Map([[2, { ...b2, verifier: verifier('new'), socks: false }]]));
    expect(d2.endOpenvpn).toEqual(['wbbbbbbb2']);
    expect(d2.endSocks).toEqual(['wbbbbbbb2']);
  });

  it('rejects a malformed answer whole', () => {
    expect(() => nextServiceUsers(null, answer({ serviceUsers: [u(1, '../etc/passwd')] }))).toThrow();
    expect(() =>
      nextServiceUsers(null, answer({ serviceUsers: [u(1, 'wokokok1', { verifier: 'scrypt$99999999$8$1$a$b' })] })),
    ).toThrow();
  });

  it('checks passwords against scrypt verifiers, and caches only successes', async () => {
    const v = verifier('s3cret');
    expect(await checkPassword(v, 's3cret')).toBe(true);
    expect(await checkPassword(v, 's3cret ')).toBe(false);
    expect(await checkPassword('plain', 's3cret')).toBe(false);
    const cache = new VerifyCache();
    expect(await cache.check(v, 'nope')).toBe(false);
    expect(await cache.check(v, 's3cret')).toBe(true);
    expect(await cache.check(verifier('other'), 's3cret')).toBe(false);
  });
});

describe('blocklist and configs', () => {
  it('reads plain and hosts-file blocklists', () => {
    const names = parseBlocklist(
      '# comment\nAds.Example.com\n0.0.0.0 tracker.example\n127.0.0.1 localhost\n*.wild.example\nnot a name!\nbad..name\nads.example.com # again\n',
    );
    expect(names).toEqual(['ads.example.com', 'tracker.example', 'wild.example']);
  });

  it('renders the OpenVPN server config without anything a path could inject', () => {
    const base = {
      protocol: 'udp' as const,
      port: 1194,
      dev: 'wovpn-udp',
      network: '10.130.0.0/16',
      dir: '/var/lib/w/openvpn',
      usersDir: '/var/lib/w/users',
      node: '/usr/bin/node',
      helper: '/opt/w/helper.mjs',
      dns: { plain: '10.255.53.1', filter: '10.255.53.2' },
      managementSocket: '/var/lib/w/udp.mgmt',
    };
    const conf = renderOpenVpnServer(base);
    expect(conf).toContain('server 10.130.0.0 255.255.0.0');
    expect(conf).toContain('auth-user-pass-verify "/usr/bin/node /opt/w/helper.mjs verify /var/lib/w/users" via-file');
    expect(conf).toContain('tls-crypt /var/lib/w/openvpn/tls-crypt.key');
    expect(renderOpenVpnServer({ ...base, protocol: 'tcp' })).toMatch(/^proto tcp-server$/m);
    expect(() => renderOpenVpnServer({ ...base, dir: '/tmp/a b' })).toThrow();
    expect(() => renderOpenVpnServer({ ...base, helper: '/x"\nscript-security 3' })).toThrow();
    expect(cidrToNetmask('10.131.0.0/20')).toEqual({ address: '10.131.0.0', netmask: '255.255.240.0' });
  });
});

describe('SOCKS5 server', () => {
  let target: net.Server;
  let targetPort: number;
  let socks: SocksServer;
  let port: number;
  const users = new Map([
    ['wpaid00001', { verifier: verifier('good'), socks: true, blocks: 0 }],
    ['wblock0001', { verifier: verifier('good'), socks: true, blocks: 3 }],
    ['wfree00001', { verifier: verifier('good'), socks: false, blocks: 0 }],
  ]);

  beforeAll(async () => {
    target = net.createServer((s) => s.end('hello'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetPort = (target.address() as net.AddressInfo).port;
    socks = new SocksServer({
      lookupUser: (n) => users.get(n),
      checkPassword: (v, p) => checkPassword(v, p),
      // The "filtering resolver": ads.test is blocked for ad-blocker users.
      resolve: async (host, blocks) =>
        host === 'ads.test' && blocks ? undefined : host.endsWith('.test') ? '127.0.0.1' : undefined,
      denied: (ip) => ip === '127.0.0.2',
    });
    await socks.listen(0, '127.0.0.1');
    port = (socks.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await socks.close();
    target.close();
  });

  /** A raw client: greeting, auth, CONNECT to a domain; returns the auth status and the reply code (and data after). */
  function dial(
    user: string,
    pass: string,
    host: string,
    methods = [2],
  ): Promise<{ method: number; auth?: number; reply?: number; body: string }> {
    return new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      let buf = Buffer.alloc(0);
      const out: { method: number; auth?: number; reply?: number; body: string } = { method: -1, body: '' };
      c.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        if (out.method === -1 && buf.length >= 2) {
          out.method = buf[1]!;
          buf = buf.subarray(2);
          if (out.method !== 2) return;
          c.write(
            Buffer.concat([
              Buffer.from([1, user.length]),
              Buffer.from(user),
              Buffer.from([pass.length]),
              Buffer.from(pass),
            ]),
          );
        }
        if (out.method === 2 && out.auth === undefined && buf.length >= 2) {
          out.auth = buf[1]!;
          buf = buf.subarray(2);
          if (out.auth !== 0) return;
          c.write(
            Buffer.concat([
              Buffer.from([5, 1, 0, 3, host.length]),
              Buffer.from(host),
              Buffer.from([targetPort >> 8, targetPort & 255]),
            ]),
          );
        }
        if (out.auth === 0 && out.reply === undefined && buf.length >= 10) {
          out.reply = buf[1]!;
          buf = buf.subarray(10);
        }
        if (out.reply === 0) out.body = buf.toString();
      });
      c.on('close', () => resolve(out));
      c.on('error', () => undefined);
      c.write(Buffer.from([5, methods.length, ...methods]));
    });
  }

  it('proxies for a paying user with the right password', async () => {
    expect(await dial('wpaid00001', 'good', 'page.test')).toMatchObject({
      method: 2,
      auth: 0,
      reply: REPLY.ok,
      body: 'hello',
    });
  });

  it('refuses no-auth clients, wrong passwords, unknown users and users without SOCKS5', async () => {
    expect((await dial('wpaid00001', 'good', 'page.test', [0])).method).toBe(0xff);
    expect((await dial('wpaid00001', 'bad', 'page.test')).auth).toBe(1);
    expect((await dial('wnobody0001', 'good', 'page.test')).auth).toBe(1);
    expect((await dial('wfree00001', 'good', 'page.test')).auth).toBe(1);
  });

  it('resolves names per user: blocked for the ad-blocker user only', async () => {
    expect((await dial('wblock0001', 'good', 'ads.test')).reply).toBe(REPLY.hostUnreachable);
    expect((await dial('wpaid00001', 'good', 'ads.test')).reply).toBe(REPLY.ok);
    expect((await dial('wpaid00001', 'good', 'nowhere.invalid')).reply).toBe(REPLY.hostUnreachable);
  });

  it('ends live sessions of a revoked user', async () => {
    const slow = net.createServer(() => undefined);
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const c = net.connect(port, '127.0.0.1');
    const closed = new Promise<void>((r) => c.on('close', () => r()));
    c.on('error', () => undefined);
    // The session is live once the server has answered the method choice (2 bytes), the
    // password (2) and the CONNECT (10): wait for those 14 bytes, not for a while.
    let received = 0;
    const connected = new Promise<void>((r) => c.on('data', (d: Buffer) => (received += d.length) >= 14 && r()));
    c.write(Buffer.from([5, 1, 2]));
    c.write(Buffer.concat([Buffer.from([1, 10]), Buffer.from('wpaid00001'), Buffer.from([4]), Buffer.from('good')]));
    const p = (slow.address() as net.AddressInfo).port;
    c.write(Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, p >> 8, p & 255]));
    await connected;
    expect(socks.endSessions(['wpaid00001'])).toBe(1);
    await closed;
    slow.close();
  });

  it('never proxies to the node itself', () => {
    for (const ip of ['127.0.0.1', '0.0.0.0', '::1', '::ffff:127.0.0.1', '169.254.169.254', 'fe80::1'])
      expect(defaultDenied(ip)).toBe(true);
    for (const ip of ['93.184.216.34', '2001:db8::1', '10.250.0.80']) expect(defaultDenied(ip)).toBe(false);
  });
});
