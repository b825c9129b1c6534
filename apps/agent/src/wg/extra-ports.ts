import { execFile } from 'node:child_process';

/**
 * Which extra public UDP ports really reach WireGuard (issue 23): `warren-agent setup
 * --wg-extra-ports` writes a redirect rule into the chain `inet warren wg-ports`
 * (setup/render.ts), and the agent reports only the ports it finds redirected there, to the port
 * the interface listens on now, so the API never offers a customer a port that goes nowhere (a
 * table deleted by hand, a changed --port not loaded yet, a host without the table).
 */
export const WG_PORTS_TABLE = ['inet', 'warren'] as const;
export const WG_PORTS_CHAIN = 'wg-ports';

type Json = unknown;
const obj = (v: Json): Record<string, Json> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, Json>) : undefined;

/** The ports a `udp dport` match names: a number, an anonymous set of numbers, or ranges (never expanded: not ours). */
function dportsOf(expr: Json): number[] | undefined {
  const m = obj(obj(expr)?.match);
  if (!m || (m.op !== '==' && m.op !== 'in')) return undefined;
  const payload = obj(obj(m.left)?.payload);
  if (payload?.protocol !== 'udp' || payload.field !== 'dport') return undefined;
  const right = m.right;
  if (typeof right === 'number') return [right];
  const set = obj(right)?.set;
  if (Array.isArray(set) && set.every((x) => typeof x === 'number')) return set as number[];
  return undefined;
}

/** The port of a `redirect to :N` statement. */
function redirectPortOf(expr: Json): number | undefined {
  const r = obj(obj(expr)?.redirect);
  return typeof r?.port === 'number' ? r.port : undefined;
}

/** A `meta iifname != {...}` match (the rule leaves the tunnels' own traffic alone). */
function excludesInterfaces(expr: Json, ifaces: string[]): boolean {
  const m = obj(obj(expr)?.match);
  if (!m || m.op !== '!=') return false;
  if (obj(obj(m.left)?.meta)?.key !== 'iifname') return false;
  const right = m.right;
  const names = typeof right === 'string' ? [right] : (obj(right)?.set as Json[] | undefined);
  return Array.isArray(names) && ifaces.every((i) => names.includes(i));
}

/**
 * From `nft -j list chain inet warren wg-ports`: the ports redirected to `listenPort` by a rule of
 * a prerouting nat chain that leaves traffic arriving on `iface` (the tunnel: its resolver on
 * port 53) alone; sorted, without the listen port itself. Pure.
 */
export function redirectedPorts(nftJson: string, listenPort: number, iface: string): number[] {
  let doc: Json;
  try {
    doc = JSON.parse(nftJson);
  } catch {
    return [];
  }
  const items = obj(doc)?.nftables;
  if (!Array.isArray(items)) return [];
  const chain = items.map((i) => obj(obj(i)?.chain)).find((c) => c?.name === WG_PORTS_CHAIN);
  if (!chain || chain.hook !== 'prerouting' || chain.type !== 'nat') return [];
  const ports = new Set<number>();
  for (const item of items) {
    const rule = obj(obj(item)?.rule);
    if (!rule || rule.chain !== WG_PORTS_CHAIN || !Array.isArray(rule.expr)) continue;
    const exprs = rule.expr as Json[];
    if (exprs.map(redirectPortOf).find((p) => p !== undefined) !== listenPort) continue;
    if (!exprs.some((e) => excludesInterfaces(e, [iface]))) continue;
    for (const e of exprs)
      for (const p of dportsOf(e) ?? []) if (p !== listenPort && p >= 1 && p <= 65535) ports.add(p);
  }
  return [...ports].sort((a, b) => a - b);
}

/** Lists the chain (execFile, no shell); a missing table or chain is "none in place", not an error. */
export function listWgPortsChain(nftBin = 'nft', timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      nftBin,
      ['-j', 'list', 'chain', ...WG_PORTS_TABLE, WG_PORTS_CHAIN],
      { timeout: timeoutMs, maxBuffer: 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        if (/No such file or directory|does not exist/i.test(String(stderr))) return resolve('{"nftables":[]}');
        reject(new Error(`nft: ${String(stderr || err.message).trim()}`));
      },
    );
  });
}

/**
 * The extra ports to report: of those setup configured (WARREN_WG_EXTRA_PORTS), the ones whose
 * redirect is in place now; none configured: [] without asking nft. An nft that cannot be run is
 * reported as none in place (the agent logs it).
 */
export function extraPortsChecker(
  configured: number[],
  iface: string,
  list: () => Promise<string> = () => listWgPortsChain(),
): (listenPort: number) => Promise<number[]> {
  return async (listenPort) => {
    if (!configured.length) return [];
    const live = redirectedPorts(await list(), listenPort, iface);
    return live.filter((p) => configured.includes(p));
  };
}
