import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { SetupOptions } from './options.js';
import { canonicalIp } from './net.js';
import {
  SYSCTL,
  type Tools,
  pathsOf,
  renderAgentEnv,
  renderAgentUnit,
  renderInterfaceUnit,
  renderNft,
  renderNftUnit,
  renderStealthRestartPath,
  renderStealthRestartUnit,
  renderStealthUnit,
  renderSysctl,
  stealthCoreCommand,
  unitNames,
} from './render.js';
import { renderCoreConfigFile } from '../stealth/render.js';

/**
 * The plan is a pure function of the options and of what was observed on the machine: a list of
 * steps, each already so or with the actions that make it so. system.ts observes and runs actions;
 * nothing here touches the machine, so every decision is unit-tested.
 */
export interface Observed {
  /** Absolute path of each tool found (ip, wg, nft, wireguard-go, openvpn, dnsmasq). */
  tools: Partial<Record<Tool, string>>;
  kernelWireguard: boolean;
  /** systemd is the init system (/run/systemd/system exists). */
  systemd: boolean;
  link?: { kind: string; up: boolean; addresses: string[] };
  /** From `wg show`: the interface's port and public key (never the private key). */
  wg?: { listenPort: number; publicKey?: string };
  /** The public key derived from the key file, and the file's mode; undefined: no key file. */
  key?: { publicKey: string; mode: number };
  /** WireGuard key files of other interfaces in the configuration directory (an earlier setup with another --interface). */
  otherKeys?: { iface: string; path: string; publicKey: string }[];
  /** The public key the API last accepted from this node's agent (wg/reported-key.ts), and where it is kept. */
  reportedKey?: { publicKey: string; path: string };
  token?: { mode: number };
  /** Contents of the files setup writes (undefined: missing). */
  files: Record<string, string | undefined>;
  /** Live sysctl values by key. */
  sysctl: Record<string, string | undefined>;
  /** `nft list table inet warren` now (undefined: no such table). */
  nftTable?: string;
  /** systemd units: enabled and active (only observed when systemd runs). */
  units: Record<string, { enabled: boolean; active: boolean }>;
  blocklistExists: boolean;
  /** The category lists' directory (--blocklist-dir) is there; undefined: not looked at (missing). */
  blocklistDirExists?: boolean;
  /** With --stealth-host: the certificate and key files' text (undefined: unreadable), the WebSocket path kept from an earlier run, and a fresh one for a first run. */
  stealth?: { certPem?: string; keyPem?: string; wsPath?: string; newWsPath: string; now: number };
}

export type Tool = 'ip' | 'wg' | 'nft' | 'wireguard-go' | 'openvpn' | 'dnsmasq' | 'v2ray';
export const APT_PACKAGE: Record<Tool, string> = {
  ip: 'iproute2',
  wg: 'wireguard-tools',
  nft: 'nftables',
  'wireguard-go': 'wireguard-go',
  openvpn: 'openvpn',
  dnsmasq: 'dnsmasq-base',
  v2ray: 'v2ray',
};

export type Action =
  | { kind: 'mkdir'; path: string; mode: number }
  | { kind: 'write'; path: string; content: string; mode: number }
  /** replace: the existing key file is kept as <path>.replaced-<time> first (--new-key). */
  | { kind: 'genkey'; path: string; replace?: boolean }
  | { kind: 'chmod'; path: string; mode: number }
  | { kind: 'exec'; argv: string[] }
  | { kind: 'sysctl'; key: string; value: string }
  /** Saves `nft list table inet warren` to the state file (after a load). */
  | { kind: 'snapshotNft'; path: string };

export interface Step {
  name: string;
  /** ok: already so; change: the actions make it so; todo: the operator's to do (said in detail). */
  status: 'ok' | 'change' | 'todo';
  detail: string;
  actions: Action[];
}

/** The kind of WireGuard interface to make: the kernel module when it exists, unless told. */
export function wireguardKind(o: SetupOptions, obs: Pick<Observed, 'kernelWireguard'>): 'kernel' | 'wireguard-go' {
  if (o.wireguard !== 'auto') return o.wireguard;
  return obs.kernelWireguard ? 'kernel' : 'wireguard-go';
}

/** Tools this run needs that are missing (empty: all there). */
export function missingTools(o: SetupOptions, obs: Pick<Observed, 'tools' | 'kernelWireguard'>): Tool[] {
  const need: Tool[] = ['ip', 'wg', 'nft'];
  if (wireguardKind(o, obs) === 'wireguard-go') need.push('wireguard-go');
  if (o.services.openvpn) need.push('openvpn');
  if (o.services.dns) need.push('dnsmasq');
  if (o.stealth) need.push('v2ray');
  return need.filter((t) => !obs.tools[t]);
}

export const aptLine = (missing: Tool[]) =>
  `apt-get install -y ${[...new Set(missing.map((t) => APT_PACKAGE[t]))].join(' ')}`;

const step = (name: string, changes: Action[], doneDetail: string, changeDetail: string): Step =>
  changes.length
    ? { name, status: 'change', detail: changeDetail, actions: changes }
    : { name, status: 'ok', detail: doneDetail, actions: [] };

const fileStep = (name: string, obs: Observed, file: string, content: string, mode: number): Step =>
  step(
    name,
    obs.files[file] === content ? [] : [{ kind: 'write', path: file, content, mode }],
    file,
    obs.files[file] === undefined ? `write ${file}` : `rewrite ${file}`,
  );

/** A state setup will not change on its own (it would need to destroy something that is not its). */
export class PlanError extends Error {}

/**
 * The certificate and key for --stealth-host, checked before anything is written: a pair the
 * customers' apps would refuse (another name, expired, a key of another certificate) stops setup
 * with the reason, since links never ask an app to skip verification.
 */
export function checkStealthCertificate(o: SetupOptions, obs: Observed): { notAfter: string } {
  const s = o.stealth!;
  const st = obs.stealth;
  if (!st?.certPem) throw new PlanError(`--stealth-cert ${s.cert} cannot be read`);
  if (!st.keyPem) throw new PlanError(`--stealth-key ${s.key} cannot be read`);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(st.certPem);
  } catch {
    throw new PlanError(`--stealth-cert ${s.cert} is not a PEM certificate`);
  }
  if (!cert.checkHost(s.host))
    throw new PlanError(
      `the certificate ${s.cert} is not for ${s.host} (it is for ${cert.subjectAltName ?? cert.subject}); customers' apps would refuse it`,
    );
  if (Date.parse(cert.validTo) <= st.now) throw new PlanError(`the certificate ${s.cert} expired on ${cert.validTo}`);
  let matches = false;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(st.keyPem));
  } catch {
    throw new PlanError(`--stealth-key ${s.key} is not a PEM private key`);
  }
  if (!matches) throw new PlanError(`--stealth-key ${s.key} is not the key of ${s.cert}`);
  return { notAfter: cert.validTo };
}

/**
 * No key file, but this node has a key customers' configs name: the interface still carries one, an
 * earlier setup made one for another --interface, or the API accepted one from this node's agent.
 * A new key would end every customer's connection to the node (issue 22), so setup stops and says
 * how to keep the key, or to ask for a new one with --new-key.
 */
function refuseNewKey(o: SetupOptions, obs: Observed, keyFile: string): void {
  const newKey = `Or run setup with --new-key to make a new one: every customer's config for this node then stops working until downloaded again.`;
  if (obs.wg?.publicKey)
    throw new PlanError(
      `${keyFile} is missing, but ${o.iface} carries the key ${obs.wg.publicKey} that customers' configs name. Save it back (as root): ` +
        `(umask 077; wg show ${o.iface} private-key > ${keyFile}) and run setup again. ${newKey}`,
    );
  const other = obs.otherKeys?.[0];
  if (other)
    throw new PlanError(
      `this node's WireGuard key is ${other.path} (interface ${other.iface}, public ${other.publicKey}), and ${keyFile} does not exist: a setup with ` +
        `--interface ${o.iface} would make a new key. Run setup with --interface ${other.iface}, or give ${o.iface} the same key: ` +
        `install -m 600 ${other.path} ${keyFile}. ${newKey}`,
    );
  if (obs.reportedKey)
    throw new PlanError(
      `${keyFile} is missing, but this node reported the public key ${obs.reportedKey.publicKey} to the API (${obs.reportedKey.path}), and customers' configs name it. ` +
        `Restore ${keyFile} from a backup (mode 600) and run setup again. ${newKey}`,
    );
}

export function plan(o: SetupOptions, obs: Observed, agentCommand: string[]): Step[] {
  if (obs.link && !obs.wg)
    throw new PlanError(
      `${o.iface} exists and is not a WireGuard interface (${obs.link.kind}); setup leaves it alone: choose another --interface`,
    );
  const p = pathsOf(o);
  const kind = wireguardKind(o, obs);
  const tools: Tools = {
    ip: obs.tools.ip!,
    wg: obs.tools.wg!,
    nft: obs.tools.nft!,
    wireguardGo: obs.tools['wireguard-go'],
    v2ray: obs.tools.v2ray,
  };
  const certificate = o.stealth ? checkStealthCertificate(o, obs) : undefined;
  const wsPath = o.stealth ? (obs.stealth?.wsPath ?? obs.stealth!.newWsPath) : undefined;
  const steps: Step[] = [];
  const dirs = [o.etcDir, o.stateDir, o.systemdDir, o.sysctlDir].map((d) => ({
    kind: 'mkdir' as const,
    path: d,
    mode: d === o.systemdDir || d === o.sysctlDir ? 0o755 : 0o700,
  }));

  // The key first: the interface is given it. Made once, 0600, never printed; replaced only when asked.
  if (!obs.key && !o.newKey) refuseNewKey(o, obs, p.keyFile);
  const keyActions: Action[] = [];
  if (o.newKey) keyActions.push(...dirs, { kind: 'genkey', path: p.keyFile, replace: !!obs.key });
  else if (!obs.key) keyActions.push(...dirs, { kind: 'genkey', path: p.keyFile });
  else if ((obs.key.mode & 0o077) !== 0) keyActions.push({ kind: 'chmod', path: p.keyFile, mode: 0o600 });
  const keyDetail = o.newKey
    ? `a new key in ${p.keyFile}${obs.key ? ` (the old one kept as ${p.keyFile}.replaced-<time>)` : ''}: every customer's config for this node must be downloaded again; the agent reports the new public key to the API`
    : obs.key
      ? `chmod 600 ${p.keyFile}`
      : `generate ${p.keyFile} (mode 600)`;
  steps.push(step('private key', keyActions, `${p.keyFile} (public ${obs.key?.publicKey})`, keyDetail));

  // systemd units, written always (a later boot uses them), enabled and started only where systemd runs.
  // Written before the interface: where systemd runs, its unit makes the interface, so wireguard-go
  // lives in that unit and not in the shell that ran setup.
  const u = unitNames(o);
  const units: [string, string, string][] = [
    [u.iface, p.ifaceUnit, renderInterfaceUnit(o, tools, kind)],
    [u.nft, p.nftUnit, renderNftUnit(o, tools)],
    [u.agent, p.agentUnit, renderAgentUnit(o, agentCommand)],
    ...(o.stealth
      ? ([
          [u.stealth, p.stealthUnit, renderStealthUnit(o, tools)],
          [u.stealthRestartPath, p.stealthRestartPath, renderStealthRestartPath(o)],
          [u.stealthRestart, p.stealthRestartUnit, renderStealthRestartUnit(o)],
        ] as [string, string, string][])
      : []),
  ];
  const unitSteps = units.map(([name, file, content]) => {
    const s = fileStep(`unit ${name}`, obs, file, content, 0o644);
    if (s.status === 'change') s.actions.unshift({ kind: 'mkdir', path: o.systemdDir, mode: 0o755 });
    return s;
  });
  steps.push(...unitSteps);

  const viaSystemd = obs.systemd && o.start;
  const create: Action[] = viaSystemd
    ? // restart: a unit still active from an earlier run made an interface that is gone now.
      [
        { kind: 'exec', argv: ['systemctl', 'daemon-reload'] },
        { kind: 'exec', argv: ['systemctl', obs.units[u.iface]?.active ? 'restart' : 'start', u.iface] },
      ]
    : [
        {
          kind: 'exec',
          argv:
            kind === 'kernel' ? [tools.ip, 'link', 'add', o.iface, 'type', 'wireguard'] : [tools.wireguardGo!, o.iface],
        },
      ];
  steps.push(
    step(
      'interface',
      obs.link ? [] : create,
      `${o.iface} (${obs.link?.kind === 'wireguard' ? 'kernel' : obs.link?.kind === 'tun' ? 'wireguard-go' : obs.link?.kind})`,
      `create ${o.iface} (${kind}${viaSystemd ? `, by ${u.iface}` : ''})`,
    ),
  );

  // Key and port: set when the interface carries another key (or none) or another port.
  const keyOk = !o.newKey && obs.key && obs.wg?.publicKey === obs.key.publicKey;
  const portOk = obs.wg?.listenPort === o.port;
  steps.push(
    step(
      'key and port',
      keyOk && portOk
        ? []
        : [{ kind: 'exec', argv: [tools.wg, 'set', o.iface, 'private-key', p.keyFile, 'listen-port', String(o.port)] }],
      `listen port ${o.port}, key from ${p.keyFile}`,
      `${keyOk ? '' : 'set the key, '}listen port ${obs.wg?.listenPort ?? 'none'} → ${o.port}`,
    ),
  );

  // Gateway addresses: exactly these two on the interface (another pool's old gateway goes).
  const want = [`${o.v4.gateway}/${o.v4.prefix}`, `${canonicalIp(o.v6.gateway)}/${o.v6.prefix}`];
  const have = (obs.link?.addresses ?? []).map((a) => {
    const [ip, len] = a.split('/');
    return `${canonicalIp(ip!)}/${len}`;
  });
  const addrActions: Action[] = [];
  for (const a of have.filter((x) => !want.includes(x) && !x.startsWith('fe80:')))
    addrActions.push({
      kind: 'exec',
      argv: [tools.ip, ...(a.includes(':') ? ['-6'] : []), 'address', 'del', a, 'dev', o.iface],
    });
  for (const a of want.filter((x) => !have.includes(x))) {
    // nodad: the node's own address on a point-to-point tunnel is usable at once (the resolver binds it).
    addrActions.push({
      kind: 'exec',
      argv: [
        tools.ip,
        ...(a.includes(':') ? ['-6'] : []),
        'address',
        'replace',
        a,
        'dev',
        o.iface,
        ...(a.includes(':') ? ['nodad'] : []),
      ],
    });
  }
  const had = have.filter((x) => !x.startsWith('fe80:'));
  steps.push(
    step('gateway addresses', addrActions, want.join(', '), `${want.join(', ')} (was ${had.join(', ') || 'none'})`),
  );
  steps.push(
    step(
      'link up',
      obs.link?.up ? [] : [{ kind: 'exec', argv: [tools.ip, 'link', 'set', o.iface, 'up'] }],
      `${o.iface} up`,
      `set ${o.iface} up`,
    ),
  );

  // Forwarding: the file for boots, the live values now.
  const sysctlActions: Action[] = [];
  if (obs.files[p.sysctlFile] !== renderSysctl())
    sysctlActions.push(
      { kind: 'mkdir', path: o.sysctlDir, mode: 0o755 },
      { kind: 'write', path: p.sysctlFile, content: renderSysctl(), mode: 0o644 },
    );
  for (const [k, v] of Object.entries(SYSCTL))
    if (obs.sysctl[k] !== v) sysctlActions.push({ kind: 'sysctl', key: k, value: v });
  steps.push(
    step(
      'forwarding',
      sysctlActions,
      `${Object.keys(SYSCTL).join(', ')} on (${p.sysctlFile})`,
      `turn on ${
        Object.keys(SYSCTL)
          .filter((k) => obs.sysctl[k] !== SYSCTL[k])
          .join(', ') || 'nothing live'
      }, write ${p.sysctlFile}`,
    ),
  );

  // NAT: reload when the file changes, the table is missing, or it differs from what setup loaded (drift).
  const nft = renderNft(o);
  const nftChanged = obs.files[p.nftFile] !== nft;
  const extraPorts = o.wgExtraPorts.length
    ? `; WireGuard also on UDP ${o.wgExtraPorts.join(', ')} (redirected to ${o.port})`
    : '; no extra WireGuard ports';
  const drifted = obs.nftTable === undefined || obs.nftTable !== obs.files[p.nftListing];
  steps.push(
    step(
      'nat (nftables table inet warren)',
      nftChanged || drifted
        ? [
            ...(nftChanged ? [...dirs, { kind: 'write' as const, path: p.nftFile, content: nft, mode: 0o600 }] : []),
            { kind: 'exec', argv: [tools.nft, '-f', p.nftFile] },
            { kind: 'snapshotNft', path: p.nftListing },
          ]
        : [],
      `${p.nftFile} loaded${extraPorts}`,
      (nftChanged
        ? `write ${p.nftFile} and load it`
        : obs.nftTable === undefined
          ? 'load the table (missing)'
          : 'reload the table (it was changed outside setup)') + extraPorts,
    ),
  );

  // The stealth core: its WebSocket path (made once, kept: it is in every customer's link) and its
  // configuration, which holds the TLS key (mode 600; the unit hands it to the core as a credential).
  let stealthConfig: Step | undefined;
  if (o.stealth && wsPath) {
    const ws = step(
      'stealth path',
      obs.stealth?.wsPath
        ? []
        : [...dirs, { kind: 'write', path: p.stealthWsPath, content: `${wsPath}\n`, mode: 0o600 }],
      `${p.stealthWsPath}`,
      `write ${p.stealthWsPath} (VLESS's WebSocket path, kept from now on)`,
    );
    steps.push(ws);
    stealthConfig = fileStep(
      'stealth core config',
      obs,
      p.stealthConfig,
      renderCoreConfigFile({
        listen: '0.0.0.0',
        port: o.stealth.port,
        wsPath,
        certPem: obs.stealth!.certPem!,
        keyPem: obs.stealth!.keyPem!,
      }),
      0o600,
    );
    stealthConfig.detail += ` (port ${o.stealth.port}, ${o.stealth.host}, certificate valid until ${certificate!.notAfter})`;
    if (stealthConfig.status === 'change') stealthConfig.actions.unshift(...dirs);
    steps.push(stealthConfig);
  }

  // The agent's settings, the resolver's blocklist, and the token it reads.
  const env = fileStep('agent settings', obs, p.envFile, renderAgentEnv(o, wsPath), 0o600);
  if (env.status === 'change') env.actions.unshift(...dirs);
  steps.push(env);
  if (o.services.dns) {
    steps.push(
      step(
        'blocklist',
        obs.blocklistExists
          ? []
          : [
              {
                kind: 'write',
                path: o.blocklist,
                content: '# The ad blocker: one name per line (subdomains too); the agent reloads it on change.\n',
                mode: 0o644,
              },
            ],
        o.blocklist,
        `create ${o.blocklist} (empty)`,
      ),
    );
    // The category lists (dns/blocklists.ts): the operator's files; until there are some, the shipped defaults.
    steps.push(
      step(
        'category lists',
        obs.blocklistDirExists ? [] : [{ kind: 'mkdir', path: o.blocklistDir, mode: 0o755 }],
        `${o.blocklistDir} (ads, trackers, malware, adult, gambling .txt; a missing file: the shipped default)`,
        `create ${o.blocklistDir} (empty: the shipped default lists until ads.txt, trackers.txt, malware.txt, adult.txt, gambling.txt are put there)`,
      ),
    );
  }
  if (!o.services.dns) {
    steps.push({
      name: 'resolver',
      status: 'todo',
      detail: `WireGuard configs name ${o.v4.gateway} and ${o.v6.gateway} as DNS unless the API sets WG_DNS; without --services dns nothing answers there: set WG_DNS on the API to resolvers the clients can reach`,
      actions: [],
    });
  }
  if (!obs.token)
    steps.push({
      name: 'node token',
      status: 'todo',
      detail: `missing: write the token from \`npx warren vpn add-node\` to ${o.tokenFile} (mode 600) before the agent starts`,
      actions: [],
    });
  else
    steps.push(
      step(
        'node token',
        obs.token.mode & 0o077 ? [{ kind: 'chmod', path: o.tokenFile, mode: 0o600 }] : [],
        o.tokenFile,
        `chmod 600 ${o.tokenFile} (others could read it)`,
      ),
    );

  if (viaSystemd) {
    const changedUnits = unitSteps.some((s) => s.status === 'change');
    const actions: Action[] = [];
    const started = !obs.link; // the interface step reloaded systemd and started the interface unit
    if (changedUnits && !started) actions.push({ kind: 'exec', argv: ['systemctl', 'daemon-reload'] });
    // The restart service runs only when its path unit starts it: nothing to enable.
    const notEnabled = units.map(([n]) => n).filter((n) => n !== u.stealthRestart && !obs.units[n]?.enabled);
    if (notEnabled.length) actions.push({ kind: 'exec', argv: ['systemctl', 'enable', ...notEnabled] });
    for (const n of [u.iface, u.nft])
      if (!obs.units[n]?.active && !(n === u.iface && started))
        actions.push({ kind: 'exec', argv: ['systemctl', 'start', n] });
    // The agent reads its settings at start: a change of them (or of its unit) is a restart.
    const agentChanged = env.status === 'change' || unitSteps[2]!.status === 'change';
    // The core reads its configuration at start: a new one (a renewed certificate) is a restart; the agent then gives it its users again.
    if (o.stealth) {
      if (!obs.units[u.stealthRestartPath]?.active)
        actions.push({ kind: 'exec', argv: ['systemctl', 'start', u.stealthRestartPath] });
      if (!obs.units[u.stealth]?.active) actions.push({ kind: 'exec', argv: ['systemctl', 'start', u.stealth] });
      else if (stealthConfig?.status === 'change' || unitSteps[3]!.status === 'change')
        actions.push({ kind: 'exec', argv: ['systemctl', 'restart', u.stealth] });
    }
    if (!obs.token) {
      /* the token step says what to do; starting now would only fail */
    } else if (!obs.units[u.agent]?.active) actions.push({ kind: 'exec', argv: ['systemctl', 'start', u.agent] });
    else if (agentChanged) actions.push({ kind: 'exec', argv: ['systemctl', 'restart', u.agent] });
    steps.push(
      step(
        'services',
        actions,
        `${units
          .map(([n]) => n)
          .filter((n) => n !== u.stealthRestart)
          .join(', ')} enabled and running`,
        actions.map((a) => (a.kind === 'exec' ? a.argv.slice(1).join(' ') : '')).join('; '),
      ),
    );
  }
  return steps;
}

/** How to start the stealth core by hand where systemd does not run (or with --no-start). */
export function stealthStartCommand(o: SetupOptions, v2ray: string | undefined): string {
  return stealthCoreCommand(o, { v2ray }, false).join(' ');
}

/** How to start the agent by hand where systemd does not run (or with --no-start). */
export function startCommand(o: SetupOptions, agentCommand: string[]): string {
  const sh = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
  return [...agentCommand, 'run', '--env-file', pathsOf(o).envFile].map(sh).join(' ');
}
