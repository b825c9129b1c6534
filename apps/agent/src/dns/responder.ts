import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { DNS_PER_SOURCE, SourceBuckets, type SourceBucketOptions } from './source-buckets.js';

/**
 * The node's per-customer resolver (issue 23): answers on the WireGuard gateways (the DNS address in
 * every WireGuard config) and on the OpenVPN/SOCKS5 category addresses. A name on one of the asker's
 * chosen lists gets NXDOMAIN (as the filtering dnsmasq answered before categories); every other
 * query goes, bytes unchanged but for its ID, to the node's plain resolver (dnsmasq, with its cache).
 *
 * Nothing about a query is kept: no log line, no name, no address; the only state is the queries in
 * flight (bounded, each forgotten on its answer or timeout) and four counters.
 *
 * Hostile input: a datagram that is not exactly one question of a standard query is dropped, as is
 * anything over MAX_QUERY bytes; a flood finds the in-flight table full and is dropped, not queued.
 * Each source address has its own budget (source-buckets.ts: 100 queries a second, bursts of 500),
 * so one peer's flood is dropped at its own door and never fills the in-flight table for the others.
 */
export const MAX_QUERY = 4096;
const RD = 0x100;
const RA = 0x80;
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3 } as const;

export interface ResponderOptions {
  /** Category bits of the asker at this source address (the WireGuard peer's owner); 0: none. */
  maskForSource(address: string): number;
  /** The lists: category bits that block this name (0: none). */
  match(name: string): number;
  /** The plain resolver to forward to (dnsmasq on the node). */
  upstream: { host: string; port: number };
  /** Queries in flight at most (memory bound under a flood). */
  maxPending?: number;
  timeoutMs?: number;
  /** TCP connections at most. */
  maxConnections?: number;
  /** Each source address's budget (DNS_PER_SOURCE by default). */
  perSource?: SourceBucketOptions;
}

/** Where to answer: by the asker's source address, or with fixed bits (an OpenVPN category address). */
export interface Binding {
  address: string;
  port: number;
  /** Fixed category bits for everyone asking here; undefined: by source address. */
  mask?: number;
}

export class DnsResponder {
  /** `limited`: dropped because its source was over its budget (counted in `dropped` too). */
  readonly stats = { queries: 0, blocked: 0, forwarded: 0, dropped: 0, limited: 0 };
  private readonly buckets: SourceBuckets;
  private readonly pending = new Map<number, { done: (b: Buffer | undefined) => void; timer: NodeJS.Timeout }>();
  private upstreamReady?: Promise<dgram.Socket>;
  private sockets: dgram.Socket[] = [];
  private servers: net.Server[] = [];
  private readonly maxPending: number;
  private readonly timeoutMs: number;
  /** Keys of TCP forwards in the in-flight table (negative: never a UDP ID). */
  private tcpSeq = 0;

  constructor(private readonly o: ResponderOptions) {
    this.maxPending = o.maxPending ?? 2048;
    this.timeoutMs = o.timeoutMs ?? 4000;
    this.buckets = new SourceBuckets(o.perSource ?? DNS_PER_SOURCE);
  }

  /** Whether `source` may ask once more now; counts the query as dropped when not. */
  private admit(source: string): boolean {
    if (this.buckets.take(source)) return true;
    this.stats.queries++;
    this.stats.dropped++;
    this.stats.limited++;
    return false;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  async listen(bindings: Binding[]): Promise<void> {
    await this.upstreamSocket();
    for (const b of bindings) {
      const v6 = net.isIPv6(b.address);
      const sock = dgram.createSocket({ type: v6 ? 'udp6' : 'udp4', ipv6Only: v6 });
      sock.on('message', (msg, rinfo) => {
        if (!this.admit(rinfo.address)) return;
        const mask = b.mask ?? this.o.maskForSource(rinfo.address);
        void this.answer(msg, mask).then((reply) => {
          if (reply) sock.send(reply, rinfo.port, rinfo.address, () => {});
        });
      });
      sock.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        sock.once('error', reject);
        sock.bind({ address: b.address, port: b.port, exclusive: true }, () => {
          sock.off('error', reject);
          resolve();
        });
      });
      this.sockets.push(sock);

      const server = net.createServer((c) => this.serveTcp(c, b));
      server.maxConnections = this.o.maxConnections ?? 256;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: b.address, port: b.port, exclusive: true }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      this.servers.push(server);
    }
  }

  /** The port a binding got (tests bind port 0). */
  portOf(i: number): number {
    return (this.sockets[i]!.address() as { port: number }).port;
  }

  /** One query → its answer (undefined: drop it). Exposed for tests and the SOCKS5 path. */
  async answer(query: Buffer, mask: number, tcp = false): Promise<Buffer | undefined> {
    this.stats.queries++;
    const q = parseQuery(query);
    if (!q) {
      this.stats.dropped++;
      return undefined;
    }
    if (mask && this.o.match(q.name) & mask) {
      this.stats.blocked++;
      return reply(q, RCODE.NXDOMAIN);
    }
    const answer = tcp ? await this.forwardTcp(query) : await this.forwardUdp(query);
    if (answer === null) {
      this.stats.dropped++;
      return undefined;
    }
    this.stats.forwarded++;
    return answer ?? reply(q, RCODE.SERVFAIL);
  }

  /** The one socket queries go upstream from (made once, also when many queries arrive at once). */
  private upstreamSocket(): Promise<dgram.Socket> {
    this.upstreamReady ??= new Promise<dgram.Socket>((resolve) => {
      const s = dgram.createSocket(net.isIPv6(this.o.upstream.host) ? 'udp6' : 'udp4');
      s.on('message', (msg, rinfo) => {
        // Only the upstream's own answers, matched by the ID we gave the query.
        if (msg.length < 12 || rinfo.port !== this.o.upstream.port || rinfo.address !== this.o.upstream.host) return;
        this.pending.get(msg.readUInt16BE(0))?.done(msg);
      });
      s.on('error', () => {});
      s.bind(0, () => resolve(s));
    });
    return this.upstreamReady;
  }

  private forwardUdp(query: Buffer): Promise<Buffer | undefined | null> {
    // Checked and taken in one turn of the event loop, so a burst cannot overshoot the bound.
    if (this.pending.size >= this.maxPending) return Promise.resolve(null);
    let id: number;
    do id = randomInt(0, 65536);
    while (this.pending.has(id));
    const clientId = query.readUInt16BE(0);
    const out = Buffer.from(query);
    out.writeUInt16BE(id, 0);
    return new Promise((resolve) => {
      const done = (b: Buffer | undefined) => {
        clearTimeout(timer);
        this.pending.delete(id);
        if (b) b.writeUInt16BE(clientId, 0);
        resolve(b);
      };
      const timer = setTimeout(() => done(undefined), this.timeoutMs);
      this.pending.set(id, { done, timer });
      void this.upstreamSocket().then((sock) =>
        sock.send(out, this.o.upstream.port, this.o.upstream.host, (err) => err && done(undefined)),
      );
    });
  }

  private forwardTcp(query: Buffer): Promise<Buffer | undefined | null> {
    if (this.pending.size >= this.maxPending) return Promise.resolve(null);
    const key = -1 - (this.tcpSeq = (this.tcpSeq + 1) % 1_000_000);
    return new Promise((resolve) => {
      const c = net.connect(this.o.upstream.port, this.o.upstream.host);
      let buf = Buffer.alloc(0);
      const done = (b: Buffer | undefined) => {
        clearTimeout(timer);
        this.pending.delete(key);
        c.destroy();
        resolve(b);
      };
      const timer = setTimeout(() => done(undefined), this.timeoutMs);
      this.pending.set(key, { done, timer });
      c.on('error', () => done(undefined));
      c.on('connect', () => {
        const len = Buffer.alloc(2);
        len.writeUInt16BE(query.length);
        c.write(Buffer.concat([len, query]));
      });
      c.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) done(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      });
    });
  }

  /** DNS over TCP (RFC 7766): length-prefixed queries, one at a time, an idle connection closed after 10 s. */
  private serveTcp(c: net.Socket, b: Binding): void {
    const mask = b.mask ?? this.o.maskForSource(c.remoteAddress ?? '');
    let buf = Buffer.alloc(0);
    let busy = false;
    c.setTimeout(10_000, () => c.destroy());
    c.on('error', () => {});
    const next = async () => {
      if (busy) return;
      busy = true;
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        const q = buf.subarray(2, 2 + len);
        buf = buf.subarray(2 + len);
        // Over budget: the connection goes (a TCP client retries later, as after a timeout).
        if (!this.admit(c.remoteAddress ?? '')) return void c.destroy();
        const a = await this.answer(Buffer.from(q), mask, true);
        if (!a || c.destroyed) return void c.destroy();
        const head = Buffer.alloc(2);
        head.writeUInt16BE(a.length);
        c.write(Buffer.concat([head, a]));
      }
      busy = false;
    };
    c.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      // A length prefix over MAX_QUERY is not a query this resolver takes.
      if (buf.length >= 2 && buf.readUInt16BE(0) > MAX_QUERY) return void c.destroy();
      void next();
    });
  }

  async close(): Promise<void> {
    for (const p of [...this.pending.values()]) p.done(undefined);
    for (const s of this.sockets) s.close();
    if (this.upstreamReady) (await this.upstreamReady).close();
    await Promise.all(this.servers.map((s) => new Promise((r) => s.close(r))));
    this.sockets = [];
    this.servers = [];
    this.upstreamReady = undefined;
  }
}

interface Query {
  id: number;
  flags: number;
  name: string;
  question: dnsPacket.Question;
}

/** Exactly one question of a standard query (opcode 0, QR clear), or null. */
export function parseQuery(msg: Buffer): Query | null {
  if (msg.length < 12 || msg.length > MAX_QUERY) return null;
  // QR must be clear and the opcode QUERY; exactly one question; no answers or authority records.
  const flags = msg.readUInt16BE(2);
  if (flags & 0x8000 || (flags >> 11) & 0xf || msg.readUInt16BE(4) !== 1 || msg.readUInt16BE(6) || msg.readUInt16BE(8))
    return null;
  let p: dnsPacket.Packet;
  try {
    p = dnsPacket.decode(msg);
  } catch {
    return null;
  }
  const question = p.questions?.[0];
  if (!question || typeof question.name !== 'string' || question.name.length > 253) return null;
  return { id: msg.readUInt16BE(0), flags, name: question.name, question };
}

function reply(q: Query, rcode: number): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id: q.id,
    flags: (q.flags & RD) | RA | rcode,
    questions: [q.question],
  });
}
