/**
 * Parses `wg show <interface> dump`: one tab-separated line for the interface (private key, public
 * key, listen port, fwmark), then one per peer (public key, preshared key, endpoint, allowed IPs,
 * latest handshake, rx, tx, keepalive). The private key, preshared keys and endpoints are dropped
 * on parsing: the agent never holds or reports them (no client IPs leave the node).
 */
export interface DumpInterface {
  publicKey: string;
  listenPort: number;
  fwmark: string;
}

export interface DumpPeer {
  publicKey: string;
  allowedIps: string[];
  /** Unix seconds; 0 = never. */
  latestHandshake: number;
  rxBytes: number;
  txBytes: number;
  /** Seconds; 0 = off. */
  persistentKeepalive: number;
}

export interface Dump {
  iface: DumpInterface;
  peers: DumpPeer[];
}

export class DumpParseError extends Error {}

const num = (s: string | undefined, field: string, line: number): number => {
  if (s === undefined || !/^\d+$/.test(s))
    throw new DumpParseError(`line ${line}: ${field} is not a number: ${JSON.stringify(s)}`);
  return Number(s);
};

export function parseDump(text: string): Dump {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const first = lines[0]?.split('\t');
  if (!first || first.length !== 4) throw new DumpParseError('line 1: expected the interface line with 4 fields');
  const iface: DumpInterface = {
    publicKey: first[1] === '(none)' ? '' : first[1]!,
    listenPort: first[2] === '(none)' || first[2] === 'off' ? 0 : num(first[2], 'listen port', 1),
    fwmark: first[3]!,
  };
  const peers = lines.slice(1).map((line, i) => {
    const f = line.split('\t');
    const n = i + 2;
    if (f.length !== 8) throw new DumpParseError(`line ${n}: expected 8 fields, got ${f.length}`);
    return {
      publicKey: f[0]!,
      allowedIps: f[3] === '(none)' || f[3] === '' ? [] : f[3]!.split(','),
      latestHandshake: num(f[4], 'latest handshake', n),
      rxBytes: num(f[5], 'transfer rx', n),
      txBytes: num(f[6], 'transfer tx', n),
      persistentKeepalive: f[7] === 'off' ? 0 : num(f[7], 'persistent keepalive', n),
    };
  });
  return { iface, peers };
}
