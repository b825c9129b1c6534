import type { DesiredPeers } from '../state.js';

/**
 * The node's config as a `wg syncconf` file. syncconf treats a missing PrivateKey or ListenPort
 * as "unset", so the [Interface] section is carried over from the interface itself
 * (`wg showconf`): the operator's key and port stay as they are. Peers come from the API, already
 * validated by the agent on arrival.
 */
export function renderConfig(interfaceLines: string[], peers: DesiredPeers): string {
  const out: string[] = ['[Interface]', ...interfaceLines, ''];
  const keys = [...peers.keys()].sort();
  for (const key of keys) {
    out.push('[Peer]', `PublicKey = ${key}`, `AllowedIPs = ${peers.get(key)!.allowedIps.join(', ')}`, '');
  }
  return out.join('\n');
}

const KEEP = /^(PrivateKey|ListenPort|FwMark)\s*=\s*\S+$/i;

/** The interface settings of `wg showconf` output (key, port, fwmark), without any peer. */
export function interfaceLines(showconf: string): string[] {
  const lines: string[] = [];
  let inInterface = false;
  for (const raw of showconf.split('\n')) {
    const line = raw.trim();
    if (/^\[interface\]$/i.test(line)) inInterface = true;
    else if (/^\[/.test(line)) inInterface = false;
    else if (inInterface && KEEP.test(line)) lines.push(line);
  }
  return lines;
}
