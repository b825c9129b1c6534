import { type DesiredState, isWgKey } from '@warren/contract';

/** The peers a node should have, by public key. */
export type DesiredPeers = Map<string, { allowedIps: string[]; owner: number }>;

const CIDR = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\/(?:3[0-2]|[12]?\d)|[0-9a-fA-F:]{2,39}\/(?:12[0-8]|1[01]\d|[1-9]?\d))$/;

export class InvalidStateError extends Error {}

/**
 * Applies one answer of the API to the desired peers, purely: a full answer replaces everything; a
 * delta replaces the peers of each changed owner. Anything malformed rejects the whole answer, so
 * a bad answer can never be half-applied.
 */
export function nextDesired(current: DesiredPeers | null, answer: DesiredState): DesiredPeers {
  for (const p of answer.peers) {
    if (!isWgKey(p.publicKey)) throw new InvalidStateError(`invalid peer key ${JSON.stringify(p.publicKey).slice(0, 60)}`);
    if (!p.allowedIps.length || !p.allowedIps.every((ip) => CIDR.test(ip))) throw new InvalidStateError(`invalid allowed IPs for ${p.publicKey}`);
  }
  let next: DesiredPeers;
  if (answer.full || !current) {
    if (!answer.full) throw new InvalidStateError('a delta arrived without a base state');
    next = new Map();
  } else {
    next = new Map(current);
    const changed = new Set(answer.changedOwners);
    for (const [key, peer] of next) if (changed.has(peer.owner)) next.delete(key);
  }
  for (const p of answer.peers) next.set(p.publicKey, { allowedIps: p.allowedIps, owner: p.owner });
  return next;
}
