import { promises as dnsp } from 'node:dns';
import net from 'node:net';

/**
 * A SOCKS5 server (RFC 1928, username/password auth of RFC 1929, CONNECT only) inside the agent.
 *
 * Why not dante-server: sockd can check credentials (PAM or system users), but it resolves every
 * client's host names with the one system resolver, so it cannot give ad-blocker users the filtering
 * resolver and everyone else the plain one on the same port with the same credentials. This server
 * knows who is asking when it resolves a name (socks5-hostname), so each user gets their own
 * resolver; everything else is deliberately small: no BIND, no UDP ASSOCIATE, no anonymous access.
 */
export interface SocksUser {
  verifier: string;
  socks: boolean;
  /** The ad blocker's category bits (dns/blocklists.ts), read when the user connects; 0: blocks nothing. */
  blocks: number;
}

export interface SocksOptions {
  lookupUser(username: string): SocksUser | undefined;
  checkPassword(verifier: string, password: string): Promise<boolean>;
  /** Resolves a name for a user with these category bits; undefined = no such name (NXDOMAIN or blocked). */
  resolve(host: string, blocks: number): Promise<string | undefined>;
  /** Destinations nobody may reach through the proxy (the node's own loopback and the like). */
  denied(ip: string): boolean;
  handshakeTimeoutMs?: number;
  connectTimeoutMs?: number;
  maxConnections?: number;
  log?: (level: 'debug' | 'info' | 'warn', msg: string, fields?: Record<string, unknown>) => void;
}

export const REPLY = {
  ok: 0,
  failure: 1,
  notAllowed: 2,
  netUnreachable: 3,
  hostUnreachable: 4,
  refused: 5,
  ttlExpired: 6,
  commandNotSupported: 7,
  addressNotSupported: 8,
} as const;

/** Reads exactly n bytes from a paused socket's buffered stream, or rejects on end/timeout. */
class Reader {
  private buf = Buffer.alloc(0);
  private waiting?: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void };
  private ended = false;
  constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      if (this.buf.length > 1024) socket.destroy(); // no handshake message is this long
      this.flush();
    });
    socket.on('end', () => this.fail());
    socket.on('close', () => this.fail());
  }

  read(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
      this.flush();
      if (this.waiting && this.ended) this.fail();
    });
  }

  /** What arrived after the handshake (a client may send its first bytes early). */
  rest(): Buffer {
    const r = this.buf;
    this.buf = Buffer.alloc(0);
    this.socket.removeAllListeners('data');
    return r;
  }

  private flush() {
    if (this.waiting && this.buf.length >= this.waiting.n) {
      const w = this.waiting;
      this.waiting = undefined;
      const out = this.buf.subarray(0, w.n);
      this.buf = this.buf.subarray(w.n);
      w.resolve(out);
    }
  }

  private fail() {
    this.ended = true;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w.reject(new Error('client went away'));
    }
  }
}

function reply(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

function addressReply(sock: net.Socket): Buffer {
  const addr = sock.localAddress ?? '0.0.0.0';
  const port = sock.localPort ?? 0;
  if (net.isIPv6(addr) && !addr.startsWith('::ffff:')) {
    const b = Buffer.alloc(22);
    b.set([5, 0, 0, 4]);
    const groups = expandV6(addr);
    groups.forEach((g, i) => b.writeUInt16BE(g, 4 + i * 2));
    b.writeUInt16BE(port, 20);
    return b;
  }
  const v4 = addr.replace(/^::ffff:/, '');
  return Buffer.from([5, 0, 0, 1, ...v4.split('.').map(Number), port >> 8, port & 255]);
}

function expandV6(a: string): number[] {
  const [head, tail] = a.split('::') as [string, string | undefined];
  const h = head ? head.split(':').map((x) => parseInt(x, 16)) : [];
  const t = tail ? tail.split(':').map((x) => parseInt(x, 16)) : [];
  return [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

export class SocksServer {
  readonly server: net.Server;
  /** Live proxied connections by username, so revoking a user ends them. */
  private sessions = new Map<string, Set<net.Socket>>();
  private count = 0;

  constructor(private readonly o: SocksOptions) {
    this.server = net.createServer((socket) => void this.handle(socket));
  }

  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  close(): Promise<void> {
    for (const set of this.sessions.values()) for (const s of set) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Open proxied connections, all users together (metrics: warren_agent_sessions{protocol="socks5"}). */
  liveConnections(): number {
    let n = 0;
    for (const set of this.sessions.values()) n += set.size;
    return n;
  }

  /** Ends the live connections of these users (revoked, lapsed, or a new password). */
  endSessions(usernames: Iterable<string>): number {
    let n = 0;
    for (const u of usernames) {
      for (const s of this.sessions.get(u) ?? []) {
        s.destroy();
        n++;
      }
      this.sessions.delete(u);
    }
    return n;
  }

  private async handle(client: net.Socket): Promise<void> {
    if (this.count >= (this.o.maxConnections ?? 10_000)) {
      client.destroy();
      return;
    }
    this.count++;
    client.once('close', () => this.count--);
    client.on('error', () => undefined);
    client.setNoDelay(true);
    const timer = setTimeout(() => client.destroy(), this.o.handshakeTimeoutMs ?? 10_000);
    const r = new Reader(client);
    try {
      // Greeting: VER NMETHODS METHODS…; only username/password (0x02) is offered back.
      const [ver, nmethods] = await r.read(2);
      if (ver !== 5) return void client.destroy();
      const methods = await r.read(nmethods!);
      if (!methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
      client.write(Buffer.from([5, 2]));
      // RFC 1929: VER ULEN UNAME PLEN PASSWD.
      const [aver, ulen] = await r.read(2);
      const uname = (await r.read(ulen!)).toString('utf8');
      const [plen] = await r.read(1);
      const passwd = (await r.read(plen!)).toString('utf8');
      const user = aver === 1 ? this.o.lookupUser(uname) : undefined;
      const good = user?.socks ? await this.o.checkPassword(user.verifier, passwd) : false;
      if (!good || !user) {
        this.o.log?.('debug', 'socks auth refused');
        return void client.end(Buffer.from([1, 1]));
      }
      client.write(Buffer.from([1, 0]));
      // Request: VER CMD RSV ATYP DST.ADDR DST.PORT.
      const [rver, cmd, , atyp] = await r.read(4);
      let host: string;
      if (atyp === 1) host = [...(await r.read(4))].join('.');
      else if (atyp === 3) host = (await r.read((await r.read(1))[0]!)).toString('latin1');
      else if (atyp === 4) {
        const b = await r.read(16);
        host = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2).toString(16)).join(':');
      } else return void client.end(reply(REPLY.addressNotSupported));
      const port = (await r.read(2)).readUInt16BE(0);
      if (rver !== 5) return void client.destroy();
      if (cmd !== 1) return void client.end(reply(REPLY.commandNotSupported));
      let ip: string | undefined = net.isIP(host) ? host : undefined;
      if (!ip) {
        if (!/^[A-Za-z0-9_.-]{1,253}$/.test(host)) return void client.end(reply(REPLY.hostUnreachable));
        ip = await this.o.resolve(host, user.blocks).catch(() => undefined);
        if (!ip) return void client.end(reply(REPLY.hostUnreachable));
      }
      if (this.o.denied(ip) || port === 0) return void client.end(reply(REPLY.notAllowed));
      const upstream = net.connect({ host: ip, port });
      upstream.setNoDelay(true);
      const connected = await new Promise<number>((resolve) => {
        const t = setTimeout(() => resolve(REPLY.ttlExpired), this.o.connectTimeoutMs ?? 10_000);
        upstream.once('connect', () => (clearTimeout(t), resolve(REPLY.ok)));
        upstream.once('error', (err: NodeJS.ErrnoException) => {
          clearTimeout(t);
          resolve(
            err.code === 'ECONNREFUSED'
              ? REPLY.refused
              : err.code === 'ENETUNREACH'
                ? REPLY.netUnreachable
                : REPLY.hostUnreachable,
          );
        });
      });
      if (connected !== REPLY.ok || client.destroyed) {
        upstream.destroy();
        return void client.end(reply(connected));
      }
      clearTimeout(timer);
      client.write(addressReply(upstream));
      const early = r.rest();
      if (early.length) upstream.write(early);
      const set = this.sessions.get(uname) ?? new Set();
      set.add(client);
      this.sessions.set(uname, set);
      client.once('close', () => {
        set.delete(client);
        if (!set.size && this.sessions.get(uname) === set) this.sessions.delete(uname);
        upstream.destroy();
      });
      upstream.on('error', () => client.destroy());
      upstream.once('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    } catch {
      client.destroy();
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Loopback, unspecified, link-local and multicast: never a proxy destination. */
export function defaultDenied(ip: string): boolean {
  const v4 = ip.replace(/^::ffff:/i, '');
  if (net.isIPv4(v4)) {
    const [a, b] = v4.split('.').map(Number) as [number, number];
    return a === 127 || a === 0 || (a === 169 && b === 254) || a >= 224;
  }
  const l = ip.toLowerCase();
  return l === '::1' || l === '::' || /^fe[89ab]/.test(l) || l.startsWith('ff');
}

/** Resolves with a resolver at `server` (the node's plain or filtering dnsmasq); IPv4 first. */
export function resolverAt(server: string | undefined): (host: string) => Promise<string | undefined> {
  const r = new dnsp.Resolver({ timeout: 3000, tries: 2 });
  if (server) r.setServers([server]);
  return async (host) => {
    const v4 = await r
      .resolve4(host)
      .catch((e: NodeJS.ErrnoException) => (e.code === 'ENOTFOUND' || e.code === 'ENODATA' ? [] : Promise.reject(e)));
    if (v4[0]) return v4[0];
    const v6 = await r.resolve6(host).catch(() => []);
    return v6[0];
  };
}
