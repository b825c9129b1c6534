import { createHash, scrypt, timingSafeEqual } from 'node:crypto';
import { type DesiredState, type NodeServiceUser, SERVICE_USERNAME_RE } from '@warren/contract';

/** The OpenVPN/SOCKS5 users of this node, by owner (an account), as the API last described them. */
export type ServiceUsers = Map<number, NodeServiceUser>;

export class InvalidServiceUsersError extends Error {}

/**
 * Applies one answer, purely, like nextDesired() does for peers: a full answer replaces everything;
 * a delta replaces the entry of each changed owner (absent = removed). A malformed answer is
 * rejected whole.
 */
export function nextServiceUsers(current: ServiceUsers | null, answer: DesiredState): ServiceUsers {
  const users = answer.serviceUsers ?? [];
  for (const u of users) {
    if (!SERVICE_USERNAME_RE.test(u.username))
      throw new InvalidServiceUsersError(`invalid service username ${JSON.stringify(u.username).slice(0, 40)}`);
    if (!parseVerifier(u.verifier)) throw new InvalidServiceUsersError(`invalid verifier for ${u.username}`);
  }
  let next: ServiceUsers;
  if (answer.full || !current) {
    next = new Map();
  } else {
    next = new Map(current);
    for (const owner of answer.changedOwners) next.delete(owner);
  }
  for (const u of users) next.set(u.owner, u);
  return next;
}

/** What changed between two states, by username: entries to write, usernames to drop, sessions to end. */
export function diffServiceUsers(before: ServiceUsers, after: ServiceUsers) {
  const byName = (m: ServiceUsers) => new Map([...m.values()].map((u) => [u.username, u]));
  const a = byName(before);
  const b = byName(after);
  const write: NodeServiceUser[] = [];
  const remove: string[] = [];
  /** Users whose live OpenVPN/SOCKS5 sessions must end: gone, lost the service, or a new password. */
  const endOpenvpn: string[] = [];
  const endSocks: string[] = [];
  for (const [name, u] of b) {
    const old = a.get(name);
    if (
      !old ||
      old.verifier !== u.verifier ||
      old.openvpn !== u.openvpn ||
      old.socks !== u.socks ||
      old.adblock !== u.adblock
    )
      write.push(u);
    if (old && (old.verifier !== u.verifier || (old.openvpn && !u.openvpn))) endOpenvpn.push(name);
    if (old && (old.verifier !== u.verifier || (old.socks && !u.socks))) endSocks.push(name);
  }
  for (const [name, old] of a) {
    if (b.has(name)) continue;
    remove.push(name);
    if (old.openvpn) endOpenvpn.push(name);
    if (old.socks) endSocks.push(name);
  }
  return { write, remove, endOpenvpn, endSocks };
}

interface Verifier {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

/** `scrypt$N$r$p$salt$hash` (contract SERVICE_VERIFIER); bounded so a bad state cannot exhaust memory. */
export function parseVerifier(v: string): Verifier | null {
  const m = /^scrypt\$(\d{1,7})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/.exec(v);
  if (!m) return null;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N < 2 || N > 1 << 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  const hash = Buffer.from(m[5]!, 'base64');
  if (hash.length < 16 || hash.length > 64) return null;
  return { N, r, p, salt: Buffer.from(m[4]!, 'base64'), hash };
}

export function checkPassword(verifier: string, password: string): Promise<boolean> {
  const v = parseVerifier(verifier);
  if (!v || password.length > 256) return Promise.resolve(false);
  return new Promise((resolve) =>
    scrypt(password, v.salt, v.hash.length, { N: v.N, r: v.r, p: v.p, maxmem: 256 * v.N * v.r }, (err, key) =>
      resolve(!err && key.length === v.hash.length && timingSafeEqual(key, v.hash)),
    ),
  );
}

/**
 * Remembers recent successful checks (a browser behind SOCKS5 opens dozens of connections), keyed by
 * a hash of verifier and password, so a changed password or verifier never hits a stale entry.
 */
export class VerifyCache {
  private ok = new Map<string, number>();
  constructor(
    private readonly max = 10_000,
    private readonly ttlMs = 10 * 60_000,
  ) {}

  async check(verifier: string, password: string, now = Date.now()): Promise<boolean> {
    const key = createHash('sha256').update(verifier).update('\0').update(password).digest('base64');
    const at = this.ok.get(key);
    if (at !== undefined && now - at < this.ttlMs) return true;
    const good = await checkPassword(verifier, password);
    if (good) {
      if (this.ok.size >= this.max) this.ok.delete(this.ok.keys().next().value!);
      this.ok.set(key, now);
    }
    return good;
  }
}
