import { type DesiredState, type NodeStealthUser, nodeStealthUser } from '@warren/contract';

/** The stealth customers of this node, by owner, as the API last described them. */
export type StealthUsers = Map<number, NodeStealthUser>;

export class InvalidStealthUsersError extends Error {}

/**
 * Applies one answer, purely, like nextServiceUsers(): a full answer replaces everything; a delta
 * replaces the entry of each changed owner (absent = removed). Malformed entries reject the whole
 * answer, so nothing is half-applied.
 */
export function nextStealthUsers(current: StealthUsers | null, answer: DesiredState): StealthUsers {
  const users = answer.stealthUsers ?? [];
  for (const u of users) {
    if (!nodeStealthUser.safeParse(u).success)
      throw new InvalidStealthUsersError(`invalid stealth user for owner ${String(u.owner).slice(0, 12)}`);
  }
  const next: StealthUsers = answer.full || !current ? new Map() : new Map(current);
  if (!answer.full && current) for (const owner of answer.changedOwners) next.delete(owner);
  for (const u of users) next.set(u.owner, u);
  return next;
}

/**
 * What to tell the core: owners to remove (gone, or new credentials: the old id and password must
 * stop) and users to add (new, or new credentials). Removal goes first, so a rotation is a remove
 * then an add of the same email.
 */
export function diffStealthUsers(
  before: StealthUsers,
  after: StealthUsers,
): { remove: number[]; add: NodeStealthUser[] } {
  const remove: number[] = [];
  const add: NodeStealthUser[] = [];
  for (const [owner, old] of before) {
    const now = after.get(owner);
    if (!now || now.id !== old.id || now.password !== old.password) remove.push(owner);
  }
  for (const [owner, u] of after) {
    const old = before.get(owner);
    if (!old || old.id !== u.id || old.password !== u.password) add.push(u);
  }
  return { remove, add };
}
