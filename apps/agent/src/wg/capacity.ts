import fs from 'node:fs/promises';
import path from 'node:path';
import { WG_MAX_PEERS, type WgKind } from '@warren/contract';
import type { DesiredPeers } from '../state.js';
import type { PeerDiff } from './diff.js';

/** Where `wg` and wireguard-go keep a userspace interface's control socket (wireguard-tools' RUNSTATEDIR). */
export const WG_RUN_DIR = '/var/run/wireguard';

/**
 * Which implementation runs the interface, and so how many peers it can hold (issue 22). `wg` itself
 * talks to a userspace implementation when `<run dir>/<iface>.sock` exists and to the kernel over
 * netlink otherwise; the agent decides the same way. wireguard-go refuses the 65,537th peer
 * ("too many peers"), the Linux module the 1,048,577th.
 */
export async function detectWgKind(iface: string, runDir = WG_RUN_DIR): Promise<{ kind: WgKind; maxPeers: number }> {
  try {
    if ((await fs.stat(path.join(runDir, `${iface}.sock`))).isSocket())
      return { kind: 'userspace', maxPeers: WG_MAX_PEERS.userspace };
  } catch {
    /* no socket: the kernel's */
  }
  return { kind: 'kernel', maxPeers: WG_MAX_PEERS.kernel };
}

/**
 * The peers an interface with room for `cap` carries when more are desired (issue 22): every desired
 * peer it already holds keeps its place (nobody connected is pushed off for a newcomer), then the
 * others in the desired order (the API sends devices oldest first) while there is room; the rest
 * are refused and wait, in order, for room. Deltas cost what they name plus the refused ones.
 */
export class PeerBudget {
  /** The peers on the interface, as this agent put them there. */
  readonly applied: DesiredPeers = new Map();
  /** Desired peers left off for want of room, oldest first. */
  readonly refused = new Set<string>();

  private constructor(readonly cap: number) {}

  /** A full desired state fitted to `cap`, preferring the peers `present` says are on the interface now. */
  static fit(desired: DesiredPeers, present: (key: string) => boolean, cap: number): PeerBudget {
    const b = new PeerBudget(cap);
    for (const [key, p] of desired) if (b.applied.size < cap && present(key)) b.applied.set(key, p);
    for (const [key, p] of desired) {
      if (b.applied.has(key)) continue;
      if (b.applied.size < cap) b.applied.set(key, p);
      else b.refused.add(key);
    }
    return b;
  }

  /**
   * The budget of an interface that held `before` exactly (everything fitted until now) and must
   * now apply `d`: the peers `d` adds are not there yet, those it removes still are.
   */
  static entering(desiredAfter: DesiredPeers, d: PeerDiff, cap: number): PeerBudget {
    const b = new PeerBudget(cap);
    const added = new Set(d.add.map((p) => p.publicKey));
    for (const [key, p] of desiredAfter) if (!added.has(key)) b.applied.set(key, p);
    for (const key of d.remove) b.applied.set(key, { allowedIps: [], owner: -1 });
    return b;
  }

  /**
   * Applies a change of the desired peers (`d`, from the desired state's own delta; `desired` is the
   * state after it) to the interface within the cap, and answers the interface's own change: removals
   * and updates of peers it holds, then refused peers (oldest first) and new ones while there is room.
   */
  apply(d: PeerDiff, desired: DesiredPeers): PeerDiff {
    const out: PeerDiff = { add: [], update: [], remove: [] };
    for (const key of d.remove) {
      if (this.applied.delete(key)) out.remove.push(key);
      else this.refused.delete(key);
    }
    for (const u of d.update) {
      const p = desired.get(u.publicKey);
      if (p && this.applied.has(u.publicKey)) {
        this.applied.set(u.publicKey, p);
        out.update.push(u);
      }
    }
    for (const a of d.add) this.refused.add(a.publicKey);
    for (const key of this.refused) {
      if (this.applied.size >= this.cap) break;
      this.refused.delete(key);
      const p = desired.get(key);
      if (!p) continue;
      this.applied.set(key, p);
      out.add.push({ publicKey: key, allowedIps: [...p.allowedIps] });
    }
    return out;
  }
}

/**
 * An apply that failed because the interface is full, whatever the agent believed its cap to be:
 * wireguard-go answers the UAPI set with EINVAL (`wg set` exits 1 with "Unable to modify interface:
 * Invalid argument", measured here at the 65,537th peer) or `wg` dies of SIGPIPE while still
 * writing a large syncconf; the kernel answers ENOMEM. "Invalid argument" alone says little (the
 * agent validated keys and addresses itself), so it counts only with the interface holding exactly
 * wireguard-go's cap.
 */
export function isPeerCapError(error: string, held: number): boolean {
  if (/too many peers|cannot allocate memory|ENOMEM|broken pipe|EPIPE|SIGPIPE/i.test(error)) return true;
  return /invalid argument/i.test(error) && held === WG_MAX_PEERS.userspace;
}
