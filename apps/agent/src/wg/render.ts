import type { DesiredPeers } from '../state.js';

/**
 * The node's peers as a `wg syncconf` file. Only [Peer] sections: the interface's private key and
 * port are the operator's (set once when the interface is created) and syncconf leaves them alone.
 * Keys and addresses come from the API already validated; the agent re-checks them on arrival.
 */
export function renderPeersConfig(peers: DesiredPeers): string {
  const out: string[] = ['[Interface]', ''];
  const keys = [...peers.keys()].sort();
  for (const key of keys) {
    out.push('[Peer]', `PublicKey = ${key}`, `AllowedIPs = ${peers.get(key)!.allowedIps.join(', ')}`, '');
  }
  return out.join('\n');
}
