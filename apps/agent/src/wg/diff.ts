import type { DesiredPeers, PeerDiff } from '../state.js';

export type { PeerDiff };

const sameIps = (a: readonly string[], b: readonly string[]) => {
  if (a.length !== b.length) return false;
  const sa = [...a].sort(),
    sb = [...b].sort();
  return sa.every((x, i) => x === sb[i]);
};

/** What turns `from` (the interface as last applied, or as dumped) into `to` (the desired peers). */
export function diffPeers(from: ReadonlyMap<string, { allowedIps: readonly string[] }>, to: DesiredPeers): PeerDiff {
  const d: PeerDiff = { add: [], update: [], remove: [] };
  for (const [key, want] of to) {
    const have = from.get(key);
    if (!have) d.add.push({ publicKey: key, allowedIps: [...want.allowedIps] });
    else if (!sameIps(have.allowedIps, want.allowedIps))
      d.update.push({ publicKey: key, allowedIps: [...want.allowedIps] });
  }
  for (const key of from.keys()) if (!to.has(key)) d.remove.push(key);
  // Removals first: an address that moved from a revoked peer to a new one is then never claimed twice.
  d.remove.sort();
  d.add.sort((a, b) => a.publicKey.localeCompare(b.publicKey));
  d.update.sort((a, b) => a.publicKey.localeCompare(b.publicKey));
  return d;
}

export const diffSize = (d: PeerDiff) => d.add.length + d.update.length + d.remove.length;

/** Arguments of one `wg set` call applying the whole diff (one UAPI set operation). */
export function wgSetArgs(iface: string, d: PeerDiff): string[] {
  const args = ['set', iface];
  for (const key of d.remove) args.push('peer', key, 'remove');
  for (const p of [...d.update, ...d.add]) args.push('peer', p.publicKey, 'allowed-ips', p.allowedIps.join(','));
  return args;
}
