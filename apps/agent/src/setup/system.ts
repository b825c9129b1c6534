import { execFile } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SetupOptions } from './options.js';
import type { Action, Observed, Tool } from './plan.js';
import { SYSCTL, pathsOf, sysctlProcPath, unitNames } from './render.js';
import { REPORTED_KEY_FILE, readReportedKey } from '../wg/reported-key.js';

/**
 * The side effects of setup, in one place: observing the machine and running a plan's actions.
 * Programs run with execFile and argument arrays, never through a shell.
 */
export function exec(argv: string[], timeoutMs = 30_000): Promise<string> {
  const [cmd, ...args] = argv;
  // No LOG_LEVEL for wireguard-go: with it, its daemon would keep our output pipes open.
  const { LOG_LEVEL: _drop, ...env } = process.env;
  return new Promise((resolve, reject) => {
    execFile(
      cmd!,
      args,
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: { ...env, WG_HIDE_KEYS: 'always' } },
      (err, stdout, stderr) => {
        if (err)
          reject(
            new Error(
              `${argv.join(' ')}: ${String(stderr || err.message)
                .trim()
                .slice(0, 500)}`,
            ),
          );
        else resolve(stdout);
      },
    );
  });
}
const tryExec = (argv: string[]) =>
  exec(argv).then(
    (out) => out,
    () => undefined,
  );

const SEARCH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** A tool's absolute path: PATH first, then the sbin directories a non-root PATH may lack. */
export function which(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of [...envPath.split(':').filter(Boolean), ...SEARCH]) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** Root, or CAP_NET_ADMIN in the effective set (bit 12 of CapEff). */
export function privileged(): boolean {
  if (process.getuid?.() === 0) return true;
  try {
    const capEff = /^CapEff:\s*([0-9a-f]+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    return capEff !== undefined && (BigInt(`0x${capEff}`) & (1n << 12n)) !== 0n;
  } catch {
    return false;
  }
}

/** The public key of a base64 X25519 private key (as `wg pubkey` would print it). */
export function publicKeyOf(privateKeyBase64: string): string {
  const raw = Buffer.from(privateKeyBase64.trim(), 'base64');
  if (raw.length !== 32) throw new Error('not a WireGuard private key');
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), raw]),
    format: 'der',
    type: 'pkcs8',
  });
  return createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

const read = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};
const modeOf = (file: string) => {
  try {
    return fs.statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
};

export const TOOLS: Tool[] = ['ip', 'wg', 'nft', 'wireguard-go', 'openvpn', 'dnsmasq', 'v2ray'];

export function observeTools(): Pick<Observed, 'tools' | 'kernelWireguard' | 'systemd'> {
  const tools: Observed['tools'] = {};
  for (const t of TOOLS) {
    const found = which(t);
    if (found) tools[t] = found;
  }
  // Loaded, or built in; a module that is only installed is loaded by `ip link add … type wireguard`.
  const release = read('/proc/sys/kernel/osrelease')?.trim();
  const kernelWireguard =
    fs.existsSync('/sys/module/wireguard') ||
    (!!release &&
      [
        'kernel/drivers/net/wireguard/wireguard.ko',
        'kernel/drivers/net/wireguard/wireguard.ko.xz',
        'kernel/drivers/net/wireguard/wireguard.ko.zst',
      ].some((f) => fs.existsSync(path.join('/lib/modules', release, f))));
  return { tools, kernelWireguard, systemd: fs.existsSync('/run/systemd/system') };
}

export async function observe(
  o: SetupOptions,
  base: Pick<Observed, 'tools' | 'kernelWireguard' | 'systemd'>,
): Promise<Observed> {
  const p = pathsOf(o);
  const ip = base.tools.ip!;
  let link: Observed['link'];
  const linkJson = await tryExec([ip, '-j', '-d', 'link', 'show', 'dev', o.iface]);
  if (linkJson) {
    const [l] = JSON.parse(linkJson) as { flags?: string[]; linkinfo?: { info_kind?: string } }[];
    const addrs = JSON.parse((await tryExec([ip, '-j', 'address', 'show', 'dev', o.iface])) ?? '[]') as {
      addr_info?: { local: string; prefixlen: number }[];
    }[];
    link = {
      kind: l?.linkinfo?.info_kind ?? 'unknown',
      up: !!l?.flags?.includes('UP'),
      addresses: (addrs[0]?.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`),
    };
  }
  let wg: Observed['wg'];
  if (link) {
    const port = await tryExec([base.tools.wg!, 'show', o.iface, 'listen-port']);
    const pub = await tryExec([base.tools.wg!, 'show', o.iface, 'public-key']);
    if (port !== undefined)
      wg = {
        listenPort: Number(port.trim()),
        publicKey: pub?.trim() && pub.trim() !== '(none)' ? pub.trim() : undefined,
      };
  }
  let key: Observed['key'];
  const keyText = read(p.keyFile);
  if (keyText !== undefined) {
    try {
      key = { publicKey: publicKeyOf(keyText), mode: modeOf(p.keyFile)! };
    } catch {
      throw new Error(`${p.keyFile} is not a WireGuard private key; move it away and run setup again`);
    }
  }
  // Other interfaces' keys in the configuration directory, and the key the API last accepted (setup never replaces a node's key unasked).
  const otherKeys: NonNullable<Observed['otherKeys']> = [];
  for (const name of (fs.existsSync(o.etcDir) ? fs.readdirSync(o.etcDir) : []).sort()) {
    const m = /^([A-Za-z0-9_.-]{1,15})\.key$/.exec(name);
    if (!m || m[1] === o.iface) continue;
    const text = read(path.join(o.etcDir, name));
    try {
      if (text !== undefined)
        otherKeys.push({ iface: m[1]!, path: path.join(o.etcDir, name), publicKey: publicKeyOf(text) });
    } catch {
      /* not a WireGuard key */
    }
  }
  const reported = readReportedKey(o.stateDir);
  const reportedKey = reported ? { publicKey: reported, path: path.join(o.stateDir, REPORTED_KEY_FILE) } : undefined;
  const tokenMode = modeOf(o.tokenFile);
  const files: Observed['files'] = {};
  for (const f of [
    p.envFile,
    p.nftFile,
    p.sysctlFile,
    p.nftListing,
    p.ifaceUnit,
    p.nftUnit,
    p.agentUnit,
    ...(o.stealth ? [p.stealthConfig, p.stealthUnit, p.stealthRestartPath, p.stealthRestartUnit] : []),
  ])
    files[f] = read(f);
  let stealth: Observed['stealth'];
  if (o.stealth) {
    const kept = read(p.stealthWsPath)?.trim();
    stealth = {
      certPem: read(o.stealth.cert),
      keyPem: read(o.stealth.key),
      wsPath: kept && /^\/[A-Za-z0-9_-]{1,64}$/.test(kept) ? kept : undefined,
      // 16 random bytes: a probe that does not know the path meets the website.
      newWsPath: `/${randomBytes(16).toString('base64url')}`,
      now: Date.now(),
    };
  }
  const sysctl: Observed['sysctl'] = {};
  for (const k of Object.keys(SYSCTL)) sysctl[k] = read(sysctlProcPath(k))?.trim();
  const nftTable = base.tools.nft ? await tryExec([base.tools.nft, 'list', 'table', 'inet', 'warren']) : undefined;
  const units: Observed['units'] = {};
  if (base.systemd) {
    for (const n of Object.values(unitNames(o))) {
      units[n] = {
        enabled: (await tryExec(['systemctl', 'is-enabled', n]))?.trim() === 'enabled',
        active: (await tryExec(['systemctl', 'is-active', n]))?.trim() === 'active',
      };
    }
  }
  return {
    ...base,
    link,
    wg,
    key,
    otherKeys,
    reportedKey,
    token: tokenMode === undefined ? undefined : { mode: tokenMode },
    files,
    sysctl,
    nftTable,
    units,
    blocklistExists: fs.existsSync(o.blocklist),
    blocklistDirExists: fs.existsSync(o.blocklistDir),
    stealth,
  };
}

function writeAtomic(file: string, content: string, mode: number): void {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, content, { mode });
  fs.chmodSync(tmp, mode); // the umask must not loosen or tighten it
  fs.renameSync(tmp, file);
}

export async function runAction(a: Action): Promise<void> {
  switch (a.kind) {
    case 'mkdir':
      fs.mkdirSync(a.path, { recursive: true, mode: a.mode });
      return;
    case 'write':
      writeAtomic(a.path, a.content, a.mode);
      return;
    case 'genkey': {
      // --new-key: the old key stays beside it (a node can go back to it while customers still have old configs).
      if (a.replace && fs.existsSync(a.path))
        fs.renameSync(a.path, `${a.path}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      // Exclusive create: a key that appeared meanwhile is never overwritten.
      const { privateKey } = generateKeyPairSync('x25519');
      const raw = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64');
      fs.writeFileSync(a.path, `${raw}\n`, { mode: 0o600, flag: 'wx' });
      return;
    }
    case 'chmod':
      fs.chmodSync(a.path, a.mode);
      return;
    case 'exec':
      await exec(a.argv);
      return;
    case 'sysctl':
      fs.writeFileSync(sysctlProcPath(a.key), a.value);
      return;
    case 'snapshotNft': {
      const nft = which('nft')!;
      fs.mkdirSync(path.dirname(a.path), { recursive: true, mode: 0o700 });
      writeAtomic(a.path, await exec([nft, 'list', 'table', 'inet', 'warren']), 0o600);
      return;
    }
  }
}
