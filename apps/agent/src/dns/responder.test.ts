import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AD_BLOCK_CATEGORIES } from '@warren/contract';
import { ADS_AND_TRACKERS, Blocklists, CATEGORY_BIT, DEFAULT_LISTS_DIR, maskOf } from './blocklists.js';
import { DnsChoices, canonical, hostAddress } from './choices.js';
import { DnsResponder, MAX_QUERY, parseQuery } from './responder.js';

/** A stand-in for the node's dnsmasq: every A query gets 192.0.2.7; `silent` makes it never answer. */
let upstream: dgram.Socket;
let upstreamPort: number;
let upstreamSeen = 0;
let silent = false;
beforeAll(async () => {
  upstream = dgram.createSocket('udp4');
  upstream.on('message', (msg, r) => {
    upstreamSeen++;
    if (silent) return;
    const q = dnsPacket.decode(msg);
    upstream.send(
      dnsPacket.encode({
        type: 'response',
        id: q.id,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
        questions: q.questions,
        answers: [{ type: 'A', name: q.questions![0]!.name, ttl: 60, data: '192.0.2.7' }],
      }),
      r.port,
      r.address,
    );
  });
  await new Promise<void>((resolve) => upstream.bind(0, '127.0.0.1', resolve));
  upstreamPort = upstream.address().port;
});
afterAll(() => upstream.close());

/** dns-packet decodes the rcode; its types do not say so. */
type Answer = dnsPacket.DecodedPacket & { rcode: string };
const decode = (m: Buffer) => dnsPacket.decode(m) as Answer;

const query = (name: string, id = 4242, type: dnsPacket.RecordType = 'A') =>
  dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }] });

/** Sends from `from` (any 127/8 address is this host's) and waits for one answer, or undefined after `ms`. */
function ask(port: number, msg: Buffer, from = '127.0.0.1', ms = 1500): Promise<Answer | undefined> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const t = setTimeout(() => (s.close(), resolve(undefined)), ms);
    s.on('message', (m) => {
      clearTimeout(t);
      s.close();
      resolve(decode(m));
    });
    s.on('error', reject);
    s.bind(0, from, () => s.send(msg, port, '127.0.0.1'));
  });
}

function lists(dir: string, files: Record<string, string>): Blocklists {
  fs.mkdirSync(dir, { recursive: true });
  for (const [c, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${c}.txt`), text);
  return new Blocklists({ dir });
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-dns-'));
let r: DnsResponder | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
  silent = false;
});

describe('the per-peer resolver', () => {
  it("answers each WireGuard peer by its owner's categories, forwards the rest unchanged but for the ID", async () => {
    const l = lists(path.join(tmp, 'a'), {
      ads: 'ads.example\n',
      trackers: '0.0.0.0 track.example\n',
      adult: 'adult.example\n',
      malware: '',
      gambling: '',
    });
    await l.load();
    const choices = new DnsChoices();
    // Owner 1 blocks ads + trackers, owner 2 adult only, owner 3 nothing (never switched on).
    choices.apply({
      full: true,
      changedOwners: [],
      peers: [
        { publicKey: 'k1', owner: 1, allowedIps: ['127.0.0.2/32', 'fd77::2/128'] },
        { publicKey: 'k2', owner: 2, allowedIps: ['127.0.0.3/32'] },
        { publicKey: 'k3', owner: 3, allowedIps: ['127.0.0.4/32'] },
      ],
      dnsBlocking: [
        { owner: 1, categories: ['ads', 'trackers'] },
        { owner: 2, categories: ['adult'] },
      ],
    });
    r = new DnsResponder({
      maskForSource: (a) => choices.maskOfSource(a),
      match: (n) => l.match(n),
      upstream: { host: '127.0.0.1', port: upstreamPort },
    });
    await r.listen([{ address: '127.0.0.1', port: 0 }]);
    const port = r.portOf(0);

    const seen = upstreamSeen;
    const a1 = await ask(port, query('www.ads.example', 77), '127.0.0.2');
    expect(a1).toMatchObject({ id: 77, rcode: 'NXDOMAIN', answers: [] });
    expect(a1!.flag_rd && a1!.flag_ra).toBe(true);
    expect((await ask(port, query('TRACK.example.'), '127.0.0.2'))?.rcode).toBe('NXDOMAIN');
    // Blocked answers never reach the upstream.
    expect(upstreamSeen).toBe(seen);
    const a2 = await ask(port, query('www.ads.example', 78), '127.0.0.3');
    expect(a2).toMatchObject({ id: 78, rcode: 'NOERROR' });
    expect(a2!.answers![0]).toMatchObject({ type: 'A', data: '192.0.2.7' });
    expect((await ask(port, query('adult.example'), '127.0.0.3'))?.rcode).toBe('NXDOMAIN');
    expect((await ask(port, query('adult.example'), '127.0.0.2'))?.rcode).toBe('NOERROR');
    expect((await ask(port, query('ads.example'), '127.0.0.4'))?.rcode).toBe('NOERROR');
    // An address that is no peer's: nothing blocked, as the plain resolver.
    expect((await ask(port, query('ads.example'), '127.0.0.9'))?.rcode).toBe('NOERROR');
    // AAAA and any other type of a listed name: blocked too.
    expect((await ask(port, query('ads.example', 1, 'AAAA'), '127.0.0.2'))?.rcode).toBe('NXDOMAIN');
    expect(upstreamSeen).toBe(seen + 4);
    expect(r.stats).toMatchObject({ blocked: 4, forwarded: 4, dropped: 0 });

    // A switch is a delta for the owner: live for the very next query, nothing restarted.
    choices.apply({
      full: false,
      changedOwners: [2],
      peers: [{ publicKey: 'k2', owner: 2, allowedIps: ['127.0.0.3/32'] }],
      dnsBlocking: [{ owner: 2, categories: ['ads'] }],
    });
    expect((await ask(port, query('ads.example'), '127.0.0.3'))?.rcode).toBe('NXDOMAIN');
    expect((await ask(port, query('adult.example'), '127.0.0.3'))?.rcode).toBe('NOERROR');
    // Switched off: an owner changed with no blocking entry blocks nothing.
    choices.apply({
      full: false,
      changedOwners: [2],
      peers: [{ publicKey: 'k2', owner: 2, allowedIps: ['127.0.0.3/32'] }],
      dnsBlocking: [],
    });
    expect((await ask(port, query('ads.example'), '127.0.0.3'))?.rcode).toBe('NOERROR');
  });

  it('answers over TCP too (clients retry there after a truncated answer)', async () => {
    const l = lists(path.join(tmp, 'tcp'), { ads: 'ads.example\n' });
    await l.load();
    const up = net.createServer((c) =>
      c.on('data', (d) => {
        const q = dnsPacket.decode(d.subarray(2));
        c.write(
          dnsPacket.streamEncode({
            type: 'response',
            id: q.id,
            flags: dnsPacket.RECURSION_AVAILABLE,
            questions: q.questions,
            answers: [{ type: 'A', name: q.questions![0]!.name, ttl: 5, data: '192.0.2.9' }],
          }),
        );
      }),
    );
    await new Promise<void>((resolve) => up.listen(upstreamPort, '127.0.0.1', resolve));
    try {
      r = new DnsResponder({
        maskForSource: () => CATEGORY_BIT.ads,
        match: (n) => l.match(n),
        upstream: { host: '127.0.0.1', port: upstreamPort },
      });
      await r.listen([{ address: '127.0.0.1', port: 0 }]);
      const tcpPort = (r as unknown as { servers: net.Server[] }).servers[0]!.address() as net.AddressInfo;
      const c = net.connect(tcpPort.port, '127.0.0.1');
      const answers: Answer[] = [];
      let buf = Buffer.alloc(0);
      const two = new Promise<void>((resolve) =>
        c.on('data', (d) => {
          buf = Buffer.concat([buf, d]);
          while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
            answers.push(decode(buf.subarray(2, 2 + buf.readUInt16BE(0))));
            buf = buf.subarray(2 + buf.readUInt16BE(0));
          }
          if (answers.length === 2) resolve();
        }),
      );
      c.write(
        Buffer.concat([
          dnsPacket.streamEncode(dnsPacket.decode(query('x.ads.example', 1))),
          dnsPacket.streamEncode(dnsPacket.decode(query('ok.example', 2))),
        ]),
      );
      await two;
      c.destroy();
      expect(answers.map((a) => [a.id, a.rcode])).toEqual([
        [1, 'NXDOMAIN'],
        [2, 'NOERROR'],
      ]);
      expect(answers[1]!.answers![0]).toMatchObject({ data: '192.0.2.9' });
    } finally {
      up.close();
    }
  });

  it('over TCP, closes a connection that announces more than a query, and holds at most maxConnections', async () => {
    r = new DnsResponder({
      maskForSource: () => 0,
      match: () => 0,
      upstream: { host: '127.0.0.1', port: upstreamPort },
      maxConnections: 2,
    });
    await r.listen([{ address: '127.0.0.1', port: 0 }]);
    const port = ((r as unknown as { servers: net.Server[] }).servers[0]!.address() as net.AddressInfo).port;
    const closed = (c: net.Socket) => new Promise<void>((resolve) => c.on('close', () => resolve()));
    // A 65,535-byte length prefix: closed at once, nothing buffered for it.
    const big = net.connect(port, '127.0.0.1');
    big.on('error', () => {});
    big.write(Buffer.from([0xff, 0xff, 1, 2, 3]));
    await closed(big);
    // Two idle connections fill the server; a third is refused (closed by the server).
    const idle = [net.connect(port, '127.0.0.1'), net.connect(port, '127.0.0.1')];
    await Promise.all(idle.map((c) => new Promise((resolve) => c.on('connect', resolve))));
    const third = net.connect(port, '127.0.0.1');
    third.on('error', () => {});
    await closed(third);
    for (const c of idle) c.destroy();
  });

  it('drops malformed, oversized and non-query packets, and keeps answering', async () => {
    r = new DnsResponder({
      maskForSource: () => 0,
      match: () => 0,
      upstream: { host: '127.0.0.1', port: upstreamPort },
    });
    await r.listen([{ address: '127.0.0.1', port: 0 }]);
    const port = r.portOf(0);
    const good = query('fine.example', 9);
    const twoQuestions = dnsPacket.encode({
      type: 'query',
      id: 1,
      questions: [
        { type: 'A', name: 'a.example' },
        { type: 'A', name: 'b.example' },
      ],
    });
    const response = dnsPacket.encode({ type: 'response', id: 1, questions: [{ type: 'A', name: 'a.example' }] });
    const notify = Buffer.from(good);
    notify.writeUInt16BE(4 << 11, 2); // opcode NOTIFY
    const loop = Buffer.from(good.subarray(0, 12));
    const pointerLoop = Buffer.concat([loop, Buffer.from([0xc0, 12, 0, 1, 0, 1])]); // a name pointing at itself
    const bad = [
      Buffer.alloc(0),
      Buffer.from('hello'),
      Buffer.alloc(MAX_QUERY + 1, 1),
      Buffer.concat([good, Buffer.alloc(60_000)]),
      good.subarray(0, good.length - 3),
      twoQuestions,
      response,
      notify,
      pointerLoop,
      ...Array.from({ length: 50 }, (_, i) =>
        Buffer.from(Array.from({ length: 12 + i * 7 }, (_, j) => (j * 37 + i) & 255)),
      ),
    ];
    for (const b of bad) expect(parseQuery(b), b.subarray(0, 16).toString('hex')).toBeNull();
    const seen = upstreamSeen;
    const s = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
    const replies: Buffer[] = [];
    s.on('message', (m) => replies.push(m));
    for (const b of bad) if (b.length <= 65_507) s.send(b, port, '127.0.0.1');
    // A good query after them is answered (the garbage got no answer and reached no upstream).
    s.send(good, port, '127.0.0.1');
    const until = Date.now() + 2000;
    while (!replies.length && Date.now() < until) await new Promise((res) => setTimeout(res, 10));
    s.close();
    expect(replies.map((m) => dnsPacket.decode(m).id)).toEqual([9]);
    expect(upstreamSeen).toBe(seen + 1);
    expect(r.stats.forwarded).toBe(1);
  });

  it('under a flood keeps at most maxPending in flight and drops the rest; answers need no state', async () => {
    silent = true;
    r = new DnsResponder({
      maskForSource: () => ADS_AND_TRACKERS,
      match: (n) => (n.startsWith('ads') ? CATEGORY_BIT.ads : 0),
      upstream: { host: '127.0.0.1', port: upstreamPort },
      maxPending: 64,
      timeoutMs: 300,
    });
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => r!.answer(query(`q${i}.example`, i), 0)));
    // 64 waited for the silent upstream and got SERVFAIL; the other 936 were dropped on arrival.
    expect(answers.filter((a) => a && decode(a).rcode === 'SERVFAIL')).toHaveLength(64);
    expect(answers.filter((a) => a === undefined)).toHaveLength(936);
    expect(r.inFlight).toBe(0);
    // Blocked names are answered without any state: 200,000 of them leave the heap where it was.
    const q = query('ads.example');
    for (let i = 0; i < 20_000; i++) await r.answer(q, CATEGORY_BIT.ads);
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200_000; i++) await r.answer(q, CATEGORY_BIT.ads);
    global.gc?.();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8 * 1024 * 1024);
    expect(r.inFlight).toBe(0);
    // 220,000 answers: 4-6 s on a machine shared by several runs, over the default 5 s.
  }, 30_000);
});

describe('a budget per source', () => {
  it("one peer's flood is dropped at its own budget; another peer is still answered", async () => {
    r = new DnsResponder({
      maskForSource: () => 0,
      match: () => 0,
      upstream: { host: '127.0.0.1', port: upstreamPort },
      perSource: { perSecond: 1, burst: 10 },
    });
    await r.listen([{ address: '127.0.0.1', port: 0 }]);
    const port = r.portOf(0);
    // 60 queries from one address at once (few enough for the socket's receive buffer: none lost).
    const flooder = dgram.createSocket('udp4');
    let answered = 0;
    flooder.on('message', () => answered++);
    await new Promise<void>((resolve) => flooder.bind(0, '127.0.0.2', resolve));
    for (let i = 0; i < 60; i++) flooder.send(query(`f${i}.example`, i), port, '127.0.0.1');
    await vi.waitFor(() => expect(r!.stats.queries).toBe(60), { timeout: 5000 });
    await vi.waitFor(() => expect(answered).toBe(r!.stats.forwarded), { timeout: 5000 });
    flooder.close();
    // Its burst (and at most a refill or two meanwhile) got through; the rest was dropped unread.
    expect(answered).toBeGreaterThanOrEqual(10);
    expect(answered).toBeLessThanOrEqual(15);
    expect(r.stats.limited).toBe(60 - answered);
    // Another peer asking at the same moment is answered.
    const other = await ask(port, query('other.example', 77), '127.0.0.3');
    expect(other?.answers?.[0]).toMatchObject({ name: 'other.example', data: '192.0.2.7' });
    // The flooder is still over its budget.
    expect(await ask(port, query('again.example', 78), '127.0.0.2', 300)).toBeUndefined();
  });
});

describe('the lists', () => {
  it('match a name and its subdomains by category bits, and reload when a file changes', async () => {
    const dir = path.join(tmp, 'reload');
    const l = lists(dir, { ads: '# ads\nads.example\n', malware: 'evil.example\n' });
    await l.load();
    expect(l.match('ads.example')).toBe(CATEGORY_BIT.ads);
    expect(l.match('a.b.ADS.example.')).toBe(CATEGORY_BIT.ads);
    expect(l.match('notads.example')).toBe(0);
    expect(l.match('example')).toBe(0);
    expect(l.match('evil.example')).toBe(CATEGORY_BIT.malware);
    // A missing operator file: the shipped default for that category.
    expect(l.match('doubleclick.net')).toBe(0); // ads.txt exists in the dir, so not the default
    expect(l.match('gambling.check.warren.test')).toBe(CATEGORY_BIT.gambling);
    // The operator replaces a list in place: picked up by the watcher, whole.
    let reloaded = 0;
    l.watch(() => reloaded++, 50);
    try {
      fs.writeFileSync(path.join(dir, 'ads.txt'), 'new-ads.example\n0.0.0.0 evil.example\n');
      const until = Date.now() + 5000;
      while (!reloaded && Date.now() < until) await new Promise((res) => setTimeout(res, 25));
      expect(reloaded).toBe(1);
      expect(l.match('ads.example')).toBe(0);
      expect(l.match('x.new-ads.example')).toBe(CATEGORY_BIT.ads);
      expect(l.match('evil.example')).toBe(CATEGORY_BIT.ads | CATEGORY_BIT.malware);
      // A reload that changes nothing is not a change.
      expect(await l.load()).toBe(false);
    } finally {
      l.unwatch();
    }
  });

  it('ships a small default list for every category', async () => {
    const l = new Blocklists();
    await l.load();
    for (const c of AD_BLOCK_CATEGORIES) {
      expect(fs.existsSync(path.join(DEFAULT_LISTS_DIR, `${c}.txt`)), c).toBe(true);
      expect(l.match(`${c}.check.warren.test`), c).toBe(CATEGORY_BIT[c]);
    }
    expect(l.match('doubleclick.net')).toBe(CATEGORY_BIT.ads);
  });

  it("maps categories to bits, skipping a newer API's unknown names", () => {
    expect(maskOf(['ads', 'trackers'])).toBe(ADS_AND_TRACKERS);
    expect(maskOf(['crypto', 'gambling'])).toBe(CATEGORY_BIT.gambling);
  });
});

describe('who asks', () => {
  it('maps host addresses to owners, one spelling per address, and forgets a changed owner', () => {
    expect(hostAddress('10.64.0.2/32')).toBe('10.64.0.2');
    expect(hostAddress('FD77:6172:7265:0:0:0:0:2/128')).toBe('fd77:6172:7265::2');
    expect(hostAddress('10.64.0.0/24')).toBeUndefined();
    expect(canonical('::ffff:10.64.0.2')).toBe('10.64.0.2');
    const c = new DnsChoices();
    c.apply({
      full: true,
      changedOwners: [],
      peers: [{ publicKey: 'k', owner: 5, allowedIps: ['10.64.0.2/32', 'fd77:6172:7265::2/128'] }],
      dnsBlocking: [{ owner: 5, categories: ['malware'] }],
    });
    expect(c.maskOfSource('fd77:6172:7265:0::2')).toBe(CATEGORY_BIT.malware);
    expect(c.maskOfSource('10.64.0.2')).toBe(CATEGORY_BIT.malware);
    // The device moved to another account's address space: the old owner's address maps to nobody.
    c.apply({ full: false, changedOwners: [5], peers: [], dnsBlocking: [{ owner: 5, categories: ['ads'] }] });
    expect(c.maskOfSource('10.64.0.2')).toBe(0);
    expect(c.maskOfOwner(5)).toBe(CATEGORY_BIT.ads);
    expect(c.sizes).toEqual({ addresses: 0, owners: 1 });
  });
});
