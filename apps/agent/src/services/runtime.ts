import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { type DesiredState, NODE_SERVICES_PATH, type NodeServices, envelope, nodeServices } from '@warren/contract';
import { ADS_AND_TRACKERS, ALL_CATEGORIES, Blocklists } from '../dns/blocklists.js';
import { DnsChoices } from '../dns/choices.js';
import { dnsmasqArgs } from '../dns/dnsmasq.js';
import { type Binding, DnsResponder } from '../dns/responder.js';
import { renderOpenVpnServer } from '../openvpn/render.js';
import { SocksServer, defaultDenied, resolverAt } from '../socks/server.js';
import type { ServicesConfig } from './config.js';
import { connectedClients, killSessions } from './openvpn-management.js';
import { Supervised } from './supervisor.js';
import { type ServiceUsers, VerifyCache, diffServiceUsers, nextServiceUsers } from './users.js';

type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
export interface ApiTarget {
  apiUrl: string;
  apiSocket?: string;
  token: string;
}

const HELPER = path.resolve(import.meta.dirname, '../openvpn/helper.mjs');
const servicesEnvelope = envelope(nodeServices);

/** GET /api/nodes/services with the node token (also through a unix socket). */
export function fetchNodeServices(api: ApiTarget, timeoutMs = 20_000): Promise<NodeServices> {
  const base = api.apiUrl.endsWith('/') ? api.apiUrl : `${api.apiUrl}/`;
  const url = new URL(NODE_SERVICES_PATH.slice(1), base);
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        socketPath: api.apiSocket,
        headers: { authorization: `Bearer ${api.token}`, accept: 'application/json' },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`GET ${NODE_SERVICES_PATH}: ${res.statusCode}`));
          try {
            const parsed = servicesEnvelope.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            if (parsed.success) resolve(parsed.data.data);
            else reject(new Error(`unexpected ${NODE_SERVICES_PATH} answer`));
          } catch (err) {
            reject(err as Error);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${NODE_SERVICES_PATH}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function writeAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(tmp, text, { mode });
  await fs.rename(tmp, file);
}

const run = (cmd: string, args: string[]) =>
  new Promise<void>((resolve, reject) =>
    execFile(cmd, args, { timeout: 10_000 }, (err, _o, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(),
    ),
  );

/**
 * The node's OpenVPN servers (UDP and TCP), SOCKS5 proxy and resolvers, kept equal to the API's
 * desired state. Hooked into the agent's loop as an applier: each answer updates the service users
 * (one small file per user for OpenVPN's helper, a map for SOCKS5), ends the sessions of users who
 * lost access or got a new password, and a full answer re-reads the node's certificate and ports.
 */
export class NodeServicesRuntime {
  private users: ServiceUsers = new Map();
  private byName = new Map<string, { owner: number; verifier: string; socks: boolean; adblock: boolean }>();
  /** Who asks and what they chose: WireGuard tunnel addresses → owners → category bits (issue 23). */
  readonly choices = new DnsChoices();
  readonly lists: Blocklists;
  private responder?: DnsResponder;
  /** The resolver each OpenVPN user file names now, by username (rewritten when the choice changes). */
  private dnsOf = new Map<string, string>();
  private material?: string;
  private openvpn: { proc: Supervised; mgmt: string }[] = [];
  private dnsPlain?: Supervised;
  private socks?: SocksServer;
  /** Open SOCKS5 connections now; undefined when this node serves no SOCKS5. */
  socksSessions(): number | undefined {
    return this.c.socks ? (this.socks?.liveConnections() ?? 0) : undefined;
  }
  /**
   * Connected OpenVPN clients now, UDP and TCP together (their management sockets' client lists);
   * undefined when this node serves no OpenVPN or no server answered.
   */
  async openvpnSessions(): Promise<number | undefined> {
    if (!this.c.openvpn || !this.openvpn.length) return undefined;
    const counts = await Promise.all(this.openvpn.map((o) => connectedClients(o.mgmt)));
    const known = counts.filter((n): n is number => n !== undefined);
    return known.length ? known.reduce((a, b) => a + b, 0) : undefined;
  }
  private socksPort?: number;
  private readonly usersDir: string;
  private readonly cache = new VerifyCache();

  constructor(
    private readonly c: ServicesConfig,
    private readonly api: ApiTarget,
    private readonly log: Log,
    private readonly fetchServices: () => Promise<NodeServices> = () => fetchNodeServices(api),
  ) {
    this.usersDir = path.join(c.dir, 'users');
    this.lists = new Blocklists({ dir: c.blocklistDir, legacy: c.blocklist, log });
  }

  /** A service user's category bits: the owner's choice; an API from before categories sends only `adblock` (ads + trackers). */
  private blocksOf(u: { owner: number; adblock: boolean }): number {
    return this.choices.maskOfOwner(u.owner) || (u.adblock ? ADS_AND_TRACKERS : 0);
  }

  /** OpenVPN's resolver for these category bits: the plain one, the filter (ads + trackers), or the category address .bits. */
  resolverFor(bits: number): string {
    if (!bits) return this.c.dnsPlain;
    // The switch's classic meaning keeps the address it always had.
    if (bits === ADS_AND_TRACKERS) return this.c.dnsFilter;
    return this.categoryAddress(bits);
  }

  /** The address .bits of the categories' /27. */
  private categoryAddress(bits: number): string {
    const [a, b, cc, d] = this.c.dnsCategories.split('.').map(Number);
    return `${a}.${b}.${cc}.${d! + bits}`;
  }

  /** The addresses the responder answers on: the WireGuard gateways by source, the filter and category addresses by their bits. */
  private bindings(): Binding[] {
    return [
      ...this.c.wgDns.map((address) => ({ address, port: 53 })),
      { address: this.c.dnsFilter, port: 53, mask: ADS_AND_TRACKERS },
      ...Array.from({ length: ALL_CATEGORIES }, (_, i) => ({
        address: this.categoryAddress(i + 1),
        port: 53,
        mask: i + 1,
      })),
    ];
  }

  /**
   * Resolvers first (they need no API), so users have DNS from their first connection: dnsmasq as
   * the node's plain resolver (cache, upstreams), and the agent's responder in front of it on the
   * WireGuard gateways and the filter and category addresses (dns/responder.ts).
   */
  async start(): Promise<void> {
    await fs.mkdir(this.usersDir, { recursive: true, mode: 0o700 });
    await fs.mkdir(path.join(this.c.dir, 'openvpn', 'tmp'), { recursive: true, mode: 0o700 });
    if (this.c.dns) {
      const onLo = this.bindings()
        .filter((b) => !this.c.wgDns.includes(b.address))
        .map((b) => b.address);
      for (const a of [this.c.dnsPlain, ...onLo])
        await run(this.c.ipBin, ['address', 'replace', `${a}/32`, 'dev', 'lo']);
      await this.lists.load();
      this.dnsPlain = new Supervised(
        'dns-plain',
        this.c.dnsmasqBin,
        dnsmasqArgs({ listen: [this.c.dnsPlain], upstream: this.c.upstream }),
        this.log,
        /started, version/,
      );
      await this.dnsPlain.start();
      this.responder = new DnsResponder({
        maskForSource: (a) => this.choices.maskOfSource(a),
        match: (name) => this.lists.match(name),
        upstream: { host: this.c.dnsPlain, port: 53 },
      });
      await listenRetrying(this.responder, this.bindings());
      // The operator updates the lists in place: re-read, swapped in whole, no restart.
      this.lists.watch();
      this.log('info', 'resolvers started', {
        plain: this.c.dnsPlain,
        perPeer: this.c.wgDns,
        filter: this.c.dnsFilter,
        categories: `${this.categoryAddress(1)}-${this.categoryAddress(ALL_CATEGORIES)}`,
      });
    }
  }

  /** The responder's counters (no names, no addresses). */
  dnsStats() {
    return this.responder?.stats;
  }

  /** The agent's applier: called with every desired-state answer after WireGuard was applied. */
  apply = async (answer: DesiredState): Promise<void> => {
    // The WireGuard peers' choices first: a switch is live for their next query.
    this.choices.apply(answer);
    if (answer.full || this.material === undefined) await this.refreshMaterial();
    const next = nextServiceUsers(answer.full ? null : this.users, answer);
    const d = diffServiceUsers(this.users, next);
    const written = new Set(d.write.map((u) => u.username));
    const dnsOf = new Map<string, string>();
    for (const u of next.values()) {
      const dns = this.resolverFor(this.blocksOf(u));
      dnsOf.set(u.username, dns);
      if (this.dnsOf.get(u.username) !== dns) written.add(u.username);
    }
    for (const u of next.values()) {
      if (!written.has(u.username)) continue;
      // OpenVPN's helper pushes `dns` at connect (a choice changes from the next connection).
      await writeAtomic(
        path.join(this.usersDir, `${u.username}.json`),
        JSON.stringify({
          verifier: u.verifier,
          openvpn: u.openvpn,
          socks: u.socks,
          adblock: u.adblock,
          dns: dnsOf.get(u.username),
        }),
      );
    }
    this.dnsOf = dnsOf;
    for (const name of d.remove) await fs.rm(path.join(this.usersDir, `${name}.json`), { force: true });
    if (answer.full) {
      // Drop files of users the state no longer has (e.g. left over from before a restart).
      const keep = new Set([...next.values()].map((u) => `${u.username}.json`));
      for (const f of await fs.readdir(this.usersDir))
        if (f.endsWith('.json') && !keep.has(f)) await fs.rm(path.join(this.usersDir, f), { force: true });
    }
    this.users = next;
    this.byName = new Map([...next.values()].filter((u) => u.socks).map((u) => [u.username, u]));
    const ended = this.socks?.endSessions(d.endSocks) ?? 0;
    await Promise.all(this.openvpn.map((o) => killSessions(o.mgmt, d.endOpenvpn)));
    if (written.size || d.remove.length)
      this.log('info', 'service users applied', {
        users: next.size,
        written: written.size,
        removed: d.remove.length,
        endedOpenvpn: d.endOpenvpn.length,
        endedSocks: ended,
      });
  };

  private async refreshMaterial(): Promise<void> {
    const m = await this.fetchServices();
    const sig = JSON.stringify(m);
    if (sig === this.material) return;
    if (this.c.openvpn) await this.startOpenVpn(m);
    if (this.c.socks && this.socksPort !== m.socksPort) await this.startSocks(m.socksPort);
    this.material = sig;
  }

  private async startOpenVpn(m: NodeServices): Promise<void> {
    const dir = path.join(this.c.dir, 'openvpn');
    await writeAtomic(path.join(dir, 'ca.crt'), m.openvpn.ca, 0o644);
    await writeAtomic(path.join(dir, 'server.crt'), m.openvpn.cert, 0o644);
    await writeAtomic(path.join(dir, 'server.key'), m.openvpn.key);
    await writeAtomic(path.join(dir, 'tls-crypt.key'), m.openvpn.tlsCrypt);
    await Promise.all(this.openvpn.map((o) => o.proc.stop()));
    this.openvpn = [];
    for (const [protocol, port, network] of [
      ['udp', m.openvpn.udpPort, this.c.udpNet],
      ['tcp', m.openvpn.tcpPort, this.c.tcpNet],
    ] as const) {
      const mgmt = path.join(dir, `${protocol}.mgmt`);
      const conf = path.join(dir, `${protocol}.conf`);
      await writeAtomic(
        conf,
        renderOpenVpnServer({
          protocol,
          port,
          network,
          dir,
          dev: `wovpn-${protocol}`,
          usersDir: this.usersDir,
          node: process.execPath,
          helper: HELPER,
          dns: { plain: this.c.dnsPlain, filter: this.c.dnsFilter },
          managementSocket: mgmt,
        }),
      );
      const proc = new Supervised(
        `openvpn-${protocol}`,
        this.c.openvpnBin,
        ['--config', conf],
        this.log,
        /Initialization Sequence Completed/,
      );
      await proc.start();
      this.openvpn.push({ proc, mgmt });
    }
    this.log('info', 'openvpn servers started', { udp: m.openvpn.udpPort, tcp: m.openvpn.tcpPort });
  }

  private async startSocks(port: number): Promise<void> {
    await this.socks?.close();
    const plain = resolverAt(this.c.dns ? this.c.dnsPlain : undefined);
    this.socks = new SocksServer({
      // The choice is read when the user connects: a switch holds from the next connection.
      lookupUser: (name) => {
        const u = this.byName.get(name);
        return u && { verifier: u.verifier, socks: u.socks, blocks: this.blocksOf(u) };
      },
      checkPassword: (v, p) => this.cache.check(v, p),
      // A name on one of the user's lists is no such name, as the resolver answers it; the rest resolve plainly.
      resolve: (host, blocks) => (blocks && this.lists.match(host) & blocks ? Promise.resolve(undefined) : plain(host)),
      denied: defaultDenied,
      log: this.log,
    });
    await this.socks.listen(port, this.c.socksListen);
    this.socksPort = port;
    this.log('info', 'socks5 listening', { port });
  }

  async stop(): Promise<void> {
    this.lists.unwatch();
    await Promise.all([
      ...this.openvpn.map((o) => o.proc.stop()),
      this.dnsPlain?.stop(),
      this.responder?.close(),
      this.socks?.close(),
    ]);
  }
}

/**
 * Binds the responder, retrying for a few seconds: a WireGuard gateway's IPv6 address may still be
 * tentative (duplicate address detection) right after the interface came up.
 */
async function listenRetrying(r: DnsResponder, bindings: Binding[], tries = 20): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await r.listen(bindings);
    } catch (err) {
      await r.close();
      if (i >= tries || (err as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
