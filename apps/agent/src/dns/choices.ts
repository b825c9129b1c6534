import type { DesiredState } from '@warren/contract';
import { maskOf } from './blocklists.js';

/**
 * Who is asking and what they chose (issue 23), from the desired state the agent already receives:
 * a WireGuard peer's tunnel address (its AllowedIPs host address, which WireGuard only accepts from
 * that peer's key) → its owner → the owner's category bits. A full answer replaces everything, a
 * delta replaces the changed owners' entries, as for the peers themselves; nothing else is kept.
 */
export class DnsChoices {
  private byAddress = new Map<string, number>();
  private addressesOf = new Map<number, string[]>();
  private masks = new Map<number, number>();

  /** Applies one answer (already validated whole by the agent before any applier runs). */
  apply(answer: Pick<DesiredState, 'full' | 'changedOwners' | 'peers' | 'dnsBlocking'>): void {
    if (answer.full) {
      this.byAddress = new Map();
      this.addressesOf = new Map();
      this.masks = new Map();
    } else {
      for (const owner of answer.changedOwners) {
        for (const a of this.addressesOf.get(owner) ?? [])
          if (this.byAddress.get(a) === owner) this.byAddress.delete(a);
        this.addressesOf.delete(owner);
        this.masks.delete(owner);
      }
    }
    for (const p of answer.peers) {
      for (const cidr of p.allowedIps) {
        const a = hostAddress(cidr);
        if (!a) continue;
        this.byAddress.set(a, p.owner);
        const list = this.addressesOf.get(p.owner);
        if (list) list.push(a);
        else this.addressesOf.set(p.owner, [a]);
      }
    }
    for (const b of answer.dnsBlocking ?? []) {
      const m = maskOf(b.categories);
      if (m) this.masks.set(b.owner, m);
    }
  }

  /** The category bits of an owner (0: blocks nothing). */
  maskOfOwner(owner: number): number {
    return this.masks.get(owner) ?? 0;
  }

  /** The category bits for a query from this tunnel address (0: unknown address or nothing chosen). */
  maskOfSource(address: string): number {
    const owner = this.byAddress.get(canonical(address));
    return owner === undefined ? 0 : this.maskOfOwner(owner);
  }

  get sizes() {
    return { addresses: this.byAddress.size, owners: this.masks.size };
  }
}

/** `10.64.0.2/32` → `10.64.0.2`, `fd77::2/128` → canonical `fd77::2`; wider ranges are no one address: undefined. */
export function hostAddress(cidr: string): string | undefined {
  const [addr, bits] = cidr.split('/');
  if (!addr) return undefined;
  const v6 = addr.includes(':');
  if (bits !== undefined && Number(bits) !== (v6 ? 128 : 32)) return undefined;
  return canonical(addr);
}

/** One spelling per address: IPv6 through the URL parser (lower case, zeros compressed), IPv4-mapped IPv6 as IPv4. */
export function canonical(address: string): string {
  const a = address.toLowerCase();
  if (!a.includes(':')) return a;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (mapped) return mapped[1]!;
  try {
    return new URL(`http://[${a.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  } catch {
    return a;
  }
}
