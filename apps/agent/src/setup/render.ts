import path from 'node:path';
import { WG_PORTS_CHAIN } from '../wg/extra-ports.js';
import type { SetupOptions } from './options.js';

/**
 * What setup writes, as pure functions of the options: the files are compared with what is on disk,
 * so a second run finds nothing to change. Every file says who wrote it.
 */
export interface Tools {
  ip: string;
  wg: string;
  nft: string;
  /** Only when the interface is wireguard-go's. */
  wireguardGo?: string;
  /** Only with --stealth-host. */
  v2ray?: string;
}

export interface Paths {
  keyFile: string;
  envFile: string;
  nftFile: string;
  sysctlFile: string;
  nftListing: string;
  ifaceUnit: string;
  nftUnit: string;
  agentUnit: string;
  /** The stealth core's configuration (holds the TLS key: mode 600), its WebSocket path, its unit. */
  stealthConfig: string;
  stealthWsPath: string;
  stealthUnit: string;
  /** The file the agent writes to ask for a restart of the core, and the two units that do it. */
  stealthRestartFile: string;
  stealthRestartPath: string;
  stealthRestartUnit: string;
}

export const unitNames = (o: Pick<SetupOptions, 'iface'>) => ({
  iface: `warren-${o.iface}.service`,
  nft: 'warren-nft.service',
  agent: 'warren-agent.service',
  stealth: 'warren-stealth.service',
  stealthRestartPath: 'warren-stealth-restart.path',
  stealthRestart: 'warren-stealth-restart.service',
});

export function pathsOf(o: SetupOptions): Paths {
  const u = unitNames(o);
  return {
    keyFile: path.join(o.etcDir, `${o.iface}.key`),
    envFile: path.join(o.etcDir, 'agent.env'),
    nftFile: path.join(o.etcDir, 'warren.nft'),
    sysctlFile: path.join(o.sysctlDir, '90-warren.conf'),
    // What `nft list table inet warren` printed right after setup loaded it: a later difference is drift.
    nftListing: path.join(o.stateDir, 'nft-table.txt'),
    ifaceUnit: path.join(o.systemdDir, u.iface),
    nftUnit: path.join(o.systemdDir, u.nft),
    agentUnit: path.join(o.systemdDir, u.agent),
    stealthConfig: path.join(o.etcDir, 'stealth-core.json'),
    stealthWsPath: path.join(o.etcDir, 'stealth-ws-path'),
    stealthUnit: path.join(o.systemdDir, u.stealth),
    stealthRestartFile: path.join(o.stateDir, 'stealth-restart'),
    stealthRestartPath: path.join(o.systemdDir, u.stealthRestartPath),
    stealthRestartUnit: path.join(o.systemdDir, u.stealthRestart),
  };
}

const HEADER = 'Written by warren-agent setup; the next run rewrites it from its options.';
const q = (s: string) => JSON.stringify(s);

/** The interfaces clients arrive on: WireGuard and, with OpenVPN, its two tun devices (named in services/runtime.ts). */
export function clientInterfaces(o: SetupOptions): string[] {
  return [o.iface, ...(o.services.openvpn ? ['wovpn-udp', 'wovpn-tcp'] : [])];
}

/**
 * The node's own nftables table. Loaded with `nft -f` as one transaction: `table` creates it if
 * missing, `delete` empties it, and it is declared again, so the switch is atomic and no other
 * table (the operator's firewall, Docker's) is ever touched. The forward policy stays accept: this
 * table only adds to whatever else the host filters.
 */
export function renderNft(o: SetupOptions): string {
  const clients = `{ ${clientInterfaces(o).map(q).join(', ')} }`;
  const nat = [
    `ip saddr ${o.v4.cidr} oifname != ${q(o.iface)} masquerade`,
    `ip6 saddr ${o.v6.cidr} oifname != ${q(o.iface)} masquerade`,
    ...(o.services.openvpn
      ? [`ip saddr { ${o.openvpnUdpNet}, ${o.openvpnTcpNet} } oifname != { "wovpn-udp", "wovpn-tcp" } masquerade`]
      : []),
  ];
  return `#!/usr/sbin/nft -f
# ${HEADER}
# The node's forwarding and NAT; loaded atomically and only this table (nft -f ${'<this file>'}).
table inet warren
delete table inet warren
table inet warren {
\tchain forward {
\t\ttype filter hook forward priority filter; policy accept;
\t\tiifname ${clients} ct state invalid drop
\t\t# Clients never reach each other through the node.
\t\tiifname ${clients} oifname ${clients} drop
\t\t# Tunnels have a smaller MTU than the path: clamp the MSS so TCP never stalls on it.
\t\tiifname ${clients} tcp flags syn tcp option maxseg size set rt mtu
\t\toifname ${clients} tcp flags syn tcp option maxseg size set rt mtu
\t}
\tchain postrouting {
\t\ttype nat hook postrouting priority srcnat; policy accept;
${nat.map((l) => `\t\t${l}`).join('\n')}
\t}
${renderWgPortsChain(o)}}
`;
}

/**
 * WireGuard on more public UDP ports (issue 23): a packet to one of them is redirected to the one
 * port the interface listens on; conntrack gives the answers the port the client used. Only
 * packets that arrive from outside the tunnels (never a client's packet to the resolver on the
 * gateway address, port 53 inside the tunnel) and are for this machine's own addresses (never
 * forwarded traffic); UDP only, so the stealth core's TCP 443 is untouched. Empty with none.
 */
export function renderWgPortsChain(o: SetupOptions): string {
  if (!o.wgExtraPorts.length) return '';
  const ports = o.wgExtraPorts.length === 1 ? String(o.wgExtraPorts[0]) : `{ ${o.wgExtraPorts.join(', ')} }`;
  return `\t# WireGuard also on UDP ${o.wgExtraPorts.join(', ')} (--wg-extra-ports): redirected to its port ${o.port}.
\tchain ${WG_PORTS_CHAIN} {
\t\ttype nat hook prerouting priority dstnat; policy accept;
\t\tiifname != { ${clientInterfaces(o).map(q).join(', ')} } fib daddr type local udp dport ${ports} redirect to :${o.port}
\t}
`;
}

/** Forwarding on, as a sysctl.d file (applied at boot) and applied now. */
export const SYSCTL: Record<string, string> = { 'net.ipv4.ip_forward': '1', 'net.ipv6.conf.all.forwarding': '1' };
export const sysctlProcPath = (key: string) => `/proc/sys/${key.replaceAll('.', '/')}`;

export function renderSysctl(): string {
  return `# ${HEADER}\n# A VPN node forwards its clients' packets.\n${Object.entries(SYSCTL)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n')}\n`;
}

/**
 * The agent's settings, read by `warren-agent run --env-file` and by systemd (EnvironmentFile=):
 * the API, the token file (never the token), the interface and the services config that
 * services/config.ts reads, with the plain resolver also on the gateway addresses WireGuard configs
 * name as their DNS.
 */
export function renderAgentEnv(o: SetupOptions, stealthWsPath?: string): string {
  const services = (Object.keys(o.services) as (keyof SetupOptions['services'])[]).filter((s) => o.services[s]);
  const vars: [string, string | undefined][] = [
    ['WARREN_API_URL', o.apiUrl],
    ['WARREN_API_SOCKET', o.apiSocket],
    ['WARREN_NODE_TOKEN_FILE', o.tokenFile],
    ['WARREN_WG_INTERFACE', o.iface],
    // The agent reports which of these have their redirect in place (wg/extra-ports.ts).
    ['WARREN_WG_EXTRA_PORTS', o.wgExtraPorts.length ? o.wgExtraPorts.join(',') : undefined],
    ['WARREN_STATE_DIR', o.stateDir],
    ['WARREN_METRICS_LISTEN', o.metrics],
    ['WARREN_SERVICES', services.join(',') || undefined],
    ['WARREN_DNS_WG', o.services.dns ? `${o.v4.gateway},${o.v6.gateway}` : undefined],
    ['WARREN_DNS_UPSTREAM', o.services.dns && o.dnsUpstream.length ? o.dnsUpstream.join(',') : undefined],
    ['WARREN_BLOCKLIST', o.services.dns ? o.blocklist : undefined],
    ['WARREN_BLOCKLIST_DIR', o.services.dns ? o.blocklistDir : undefined],
    ['WARREN_OPENVPN_UDP_NET', o.services.openvpn ? o.openvpnUdpNet : undefined],
    ['WARREN_OPENVPN_TCP_NET', o.services.openvpn ? o.openvpnTcpNet : undefined],
    // The stealth core (stealth/config.ts): what the agent reports so the API's links match this node.
    ['WARREN_STEALTH_HOST', o.stealth?.host],
    ['WARREN_STEALTH_PORT', o.stealth ? String(o.stealth.port) : undefined],
    ['WARREN_STEALTH_WS_PATH', o.stealth ? stealthWsPath : undefined],
    ['WARREN_STEALTH_CERT', o.stealth?.cert],
    ['WARREN_STEALTH_HTTP', o.stealth?.httpPort ? `0.0.0.0:${o.stealth.httpPort}` : undefined],
    ['WARREN_STEALTH_RESTART_FILE', o.stealth ? pathsOf(o).stealthRestartFile : undefined],
  ];
  return `# ${HEADER}\n${vars
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;
}

/** The interface after a reboot: created, keyed, addressed and up before the agent starts. */
export function renderInterfaceUnit(o: SetupOptions, tools: Tools, kind: 'kernel' | 'wireguard-go'): string {
  const p = pathsOf(o);
  const create =
    kind === 'kernel' ? `${tools.ip} link add ${o.iface} type wireguard` : `${tools.wireguardGo} ${o.iface}`;
  return `# ${HEADER}
[Unit]
Description=Warren WireGuard interface ${o.iface} (${kind === 'kernel' ? 'kernel module' : 'wireguard-go'})
After=network-pre.target
Wants=network-pre.target
Before=${unitNames(o).agent}

[Service]
Type=oneshot
RemainAfterExit=yes
# "-": the interface may exist already (setup made it before this unit first ran).
ExecStart=-${create}
ExecStart=${tools.wg} set ${o.iface} private-key ${p.keyFile} listen-port ${o.port}
ExecStart=${tools.ip} address replace ${o.v4.gateway}/${o.v4.prefix} dev ${o.iface}
ExecStart=${tools.ip} -6 address replace ${o.v6.gateway}/${o.v6.prefix} dev ${o.iface} nodad
ExecStart=${tools.ip} link set ${o.iface} up
ExecStop=${tools.ip} link delete ${o.iface}

[Install]
WantedBy=multi-user.target
`;
}

export function renderNftUnit(o: SetupOptions, tools: Tools): string {
  return `# ${HEADER}
[Unit]
Description=Warren forwarding and NAT (nftables table inet warren only)
Before=${unitNames(o).agent}

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=${tools.nft} -f ${pathsOf(o).nftFile}
ExecStop=${tools.nft} delete table inet warren

[Install]
WantedBy=multi-user.target
`;
}

/** The sandbox both long-running units share (the agent's and the core's), in the order systemd documents them. */
const SANDBOX = `ProtectHome=yes
PrivateTmp=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictRealtime=yes
RestrictNamespaces=yes
LockPersonality=yes`;

/**
 * The agent as a service: root for netlink and tun, but no more than it needs (no new privileges,
 * a read-only system but its state directory, only network capabilities).
 */
export function renderAgentUnit(o: SetupOptions, agentCommand: string[]): string {
  const u = unitNames(o);
  return `# ${HEADER}
[Unit]
Description=Warren node agent (${o.iface})
Wants=network-online.target
After=network-online.target ${u.iface} ${u.nft}${
    o.stealth
      ? ` ${u.stealth}
Wants=${u.stealth}`
      : ''
  }
BindsTo=${u.iface}

[Service]
EnvironmentFile=${pathsOf(o).envFile}
ExecStart=${agentCommand.map((a) => (/[\s"'\\]/.test(a) ? JSON.stringify(a) : a)).join(' ')} run
Restart=always
RestartSec=2s
UMask=0077
CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_BIND_SERVICE CAP_NET_RAW CAP_SETUID CAP_SETGID
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=${o.stateDir}
${SANDBOX}
SystemCallArchitectures=native
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
DevicePolicy=closed
DeviceAllow=/dev/net/tun rw

[Install]
WantedBy=multi-user.target
`;
}

/** How the core is started: by its unit (the configuration handed over as a credential), or by hand. */
export function stealthCoreCommand(o: SetupOptions, tools: Pick<Tools, 'v2ray'>, viaUnit: boolean): string[] {
  return [tools.v2ray ?? 'v2ray', '-config', viaUnit ? '%d/core.json' : pathsOf(o).stealthConfig];
}

/**
 * The stealth core as a service of its own, so an agent restart (an upgrade) leaves customers'
 * connections alone; the agent gives it its users through its loopback API. The core gets its
 * configuration (with the TLS key) as a systemd credential and runs as a throwaway user that can
 * bind the TLS port and nothing more: no other file, no device, no privilege.
 */
export function renderStealthUnit(o: SetupOptions, tools: Pick<Tools, 'v2ray'>): string {
  const u = unitNames(o);
  return `# ${HEADER}
[Unit]
Description=Warren stealth core (V2Ray: Trojan and VLESS over TLS on port ${o.stealth?.port})
Wants=network-online.target
After=network-online.target
Before=${u.agent}

[Service]
LoadCredential=core.json:${pathsOf(o).stealthConfig}
ExecStart=${stealthCoreCommand(o, tools, true).join(' ')}
Restart=always
RestartSec=2s
DynamicUser=yes
AmbientCapabilities=CAP_NET_BIND_SERVICE
CapabilityBoundingSet=CAP_NET_BIND_SERVICE
NoNewPrivileges=yes
UMask=0077
ProtectSystem=strict
PrivateDevices=yes
ProtectProc=invisible
ProcSubset=pid
${SANDBOX}
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
LimitNOFILE=1048576

[Install]
WantedBy=multi-user.target
`;
}

/**
 * How the agent ends open connections of customers whose access ended (V2Ray 4 cannot end one
 * user's): it writes a file in its state directory and this path unit has systemd restart the core.
 * The agent itself keeps its sandbox (no right to manage units, no signal to the core's user).
 */
export function renderStealthRestartPath(o: SetupOptions): string {
  const u = unitNames(o);
  return `# ${HEADER}
[Unit]
Description=Warren: the agent asks for a restart of the stealth core (a customer whose access ended still has open connections)

[Path]
PathChanged=${pathsOf(o).stealthRestartFile}
Unit=${u.stealthRestart}

[Install]
WantedBy=multi-user.target
`;
}

export function renderStealthRestartUnit(o: SetupOptions): string {
  const u = unitNames(o);
  return `# ${HEADER}
[Unit]
Description=Warren: restart the stealth core (asked by the agent through ${pathsOf(o).stealthRestartFile})
After=${u.stealth}

[Service]
Type=oneshot
ExecStart=systemctl restart ${u.stealth}
`;
}
