import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AD_BLOCK_CATEGORIES, type AdBlockCategory } from '@warren/contract';
import { parseBlocklist } from './dnsmasq.js';

/**
 * The ad blocker's lists, one per category (issue 23): the operator's `<dir>/<category>.txt`
 * (hosts-file lines or one name a line, as the public lists write them), else the small default
 * shipped with the agent (apps/agent/blocklists/). A category is one bit, so an owner's choice is a
 * number and one lookup answers every choice: the names map to the bits of the lists that hold them.
 */
export const CATEGORY_BIT: Record<AdBlockCategory, number> = Object.fromEntries(
  AD_BLOCK_CATEGORIES.map((c, i) => [c, 1 << i]),
) as Record<AdBlockCategory, number>;
/** What the switch meant before categories, and what an OpenVPN user file without a mask gets. */
export const ADS_AND_TRACKERS = CATEGORY_BIT.ads | CATEGORY_BIT.trackers;
export const ALL_CATEGORIES = (1 << AD_BLOCK_CATEGORIES.length) - 1;

/** The bits of known category names; unknown names (a newer API) are skipped. */
export function maskOf(categories: readonly string[]): number {
  let m = 0;
  for (const c of categories) m |= CATEGORY_BIT[c as AdBlockCategory] ?? 0;
  return m;
}

/** The shipped lists: beside the built agent (dist/blocklists), else in the sources (apps/agent/blocklists). */
export const DEFAULT_LISTS_DIR =
  [path.resolve(import.meta.dirname, '../blocklists'), path.resolve(import.meta.dirname, '../../blocklists')].find(
    (d) => fsSync.existsSync(path.join(d, 'ads.txt')),
  ) ?? path.resolve(import.meta.dirname, '../../blocklists');

type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export class Blocklists {
  private names = new Map<string, number>();
  private sig = '';
  private watched: string[] = [];

  constructor(
    private readonly o: {
      /** The operator's directory of `<category>.txt` files; undefined: the shipped defaults only. */
      dir?: string;
      /** The shipped defaults. */
      defaultsDir?: string;
      /** The single blocklist of before categories (WARREN_BLOCKLIST), read as more ads. */
      legacy?: string;
      log?: Log;
    } = {},
  ) {}

  get size(): number {
    return this.names.size;
  }

  /** The file each category is read from now: the operator's when it exists, else the default. */
  filesOf(category: AdBlockCategory): string[] {
    const own = this.o.dir ? path.join(this.o.dir, `${category}.txt`) : undefined;
    const files = [
      own && fsSync.existsSync(own) ? own : path.join(this.o.defaultsDir ?? DEFAULT_LISTS_DIR, `${category}.txt`),
    ];
    if (category === 'ads' && this.o.legacy && fsSync.existsSync(this.o.legacy)) files.push(this.o.legacy);
    return files;
  }

  /** Reads every list again; true when the names changed (then swapped in whole, never half-loaded). */
  async load(): Promise<boolean> {
    const next = new Map<string, number>();
    const counts: Record<string, number> = {};
    for (const category of AD_BLOCK_CATEGORIES) {
      const bit = CATEGORY_BIT[category];
      let n = 0;
      for (const file of this.filesOf(category)) {
        let text = '';
        try {
          text = await fs.readFile(file, 'utf8');
        } catch (err) {
          this.o.log?.('warn', 'blocklist unreadable; that category blocks nothing from it', {
            category,
            file,
            error: (err as Error).message,
          });
        }
        for (const name of parseBlocklist(text)) {
          next.set(name, (next.get(name) ?? 0) | bit);
          n++;
        }
      }
      counts[category] = n;
    }
    const sig = JSON.stringify(counts) + [...next].length + hashOf(next);
    if (sig === this.sig) return false;
    this.sig = sig;
    this.names = next;
    this.o.log?.('info', 'blocklists loaded', counts);
    return true;
  }

  /** Reloads when a list changes (the operator updates them in place, e.g. from cron). */
  watch(onChange?: () => void, intervalMs = 2000): void {
    this.unwatch();
    const files = new Set<string>();
    for (const c of AD_BLOCK_CATEGORIES) {
      if (this.o.dir) files.add(path.join(this.o.dir, `${c}.txt`));
      files.add(path.join(this.o.defaultsDir ?? DEFAULT_LISTS_DIR, `${c}.txt`));
    }
    if (this.o.legacy) files.add(this.o.legacy);
    this.watched = [...files];
    for (const f of this.watched)
      fsSync.watchFile(f, { interval: intervalMs }, () => void this.load().then((changed) => changed && onChange?.()));
  }

  unwatch(): void {
    for (const f of this.watched) fsSync.unwatchFile(f);
    this.watched = [];
  }

  /** The bits of the lists that block `name` or one of its parent domains (0: none). */
  match(name: string): number {
    let n = name.toLowerCase();
    if (n.endsWith('.')) n = n.slice(0, -1);
    let bits = 0;
    for (;;) {
      bits |= this.names.get(n) ?? 0;
      const dot = n.indexOf('.');
      if (dot < 0) return bits;
      n = n.slice(dot + 1);
    }
  }
}

/** A cheap fingerprint of the names and bits (a reload that changed nothing is not logged or signalled). */
function hashOf(m: Map<string, number>): number {
  let h = 0;
  for (const [k, v] of m) {
    for (let i = 0; i < k.length; i++) h = (Math.imul(h, 31) + k.charCodeAt(i)) | 0;
    h = (Math.imul(h, 31) + v) | 0;
  }
  return h;
}
