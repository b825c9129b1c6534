import { ConfigError } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { Keyring } from '../../lib/keyring.js';
import { SEALED_COLUMNS, type SealedColumn, secretsRepository } from './repository.js';

const PAGE = 500;

export interface ColumnReport {
  /** "two-factor secret (users.totp_secret)". */
  what: string;
  /** Values rewritten under the current key by this run. */
  resealed: number;
  /** Values no configured key opens (left as they are). */
  unreadable: number;
  /** After the run: how many values are under each key id. */
  keys: Record<string, number>;
}

const describe = (col: SealedColumn) => `${col.purpose.label}s (${col.table}.${col.column})`;

/**
 * Secret rotation (issue 22, README: Rotating secrets). Every sealed value names its key
 * (lib/keyring.ts); at start the server refuses to run when its data names a key it was not given
 * (a ConfigError naming APP_SECRET_PREVIOUS, before anything is served: never a 500 at a sign-in
 * later), and `npx warren secrets reseal` moves everything under the current key, after which the
 * replaced secrets can be removed.
 */
export function secretsService({ db, keys }: { db: Database; keys: Keyring }) {
  const repo = secretsRepository(db);

  /** Values of one column, a page at a time, each opened and handed to `change` (null: not opened); returns what the writes wrote. */
  async function rewrite(
    col: SealedColumn,
    filter: { notUnder?: string; legacyOnly?: boolean },
    change: (value: string) => string | null,
  ) {
    let after = -1;
    let written = 0;
    let unreadable = 0;
    for (;;) {
      const rows = await repo.page(col, { ...filter, after, limit: PAGE });
      if (!rows.length) break;
      const changes: { key: number; from: string; to: string }[] = [];
      for (const row of rows) {
        const to = change(row.value);
        if (to === null) unreadable++;
        else changes.push({ key: row.key, from: row.value, to });
      }
      written += await repo.replace(col, changes);
      after = rows.at(-1)!.key;
    }
    return { written, unreadable };
  }

  /**
   * Values sealed before key ids get the id of the key that opens them (the ciphertext unchanged):
   * once per database, at the first start of this release. What no key opens is counted.
   */
  async function tagLegacy(col: SealedColumn): Promise<number> {
    const { unreadable } = await rewrite(col, { legacyOnly: true }, (value) => {
      const opened = keys.openWithId(col.purpose, value);
      return opened ? `${opened.id}:${value}` : null;
    });
    return unreadable;
  }

  const settingsNote = () =>
    keys
      .keys()
      .map((k) => `${k.setting} is ${k.id}`)
      .join(', ');

  return {
    /**
     * The start-up check: every key the data names is configured, else a ConfigError that says
     * which setting to fix and how many values wait for it.
     */
    async check(): Promise<void> {
      const missing = new Map<string, string[]>();
      const unopened: string[] = [];
      for (const col of SEALED_COLUMNS) {
        let counts = await repo.keyCounts(col);
        if (counts.has('')) {
          const unreadable = await tagLegacy(col);
          if (unreadable) unopened.push(`${unreadable} ${describe(col)}`);
          counts = await repo.keyCounts(col);
        }
        for (const [id, n] of counts) {
          if (id && !keys.knows(id)) missing.set(id, [...(missing.get(id) ?? []), `${n} ${describe(col)}`]);
        }
      }
      const problems = [...missing].map(
        ([id, what]) =>
          `APP_SECRET_PREVIOUS: ${what.join(', ')} are sealed under key ${id}, which no configured secret has (${settingsNote()}). ` +
          'Add the secret they were sealed with to APP_SECRET_PREVIOUS (`npx warren secrets status` shows the id of each configured secret), start, then run `npx warren secrets reseal`.',
      );
      if (unopened.length)
        problems.push(
          `APP_SECRET_PREVIOUS: ${unopened.join(', ')} were sealed by an older release and no configured secret opens them (${settingsNote()}). ` +
            'Add the APP_SECRET (or OPENVPN_CA_SECRET) they were made under to APP_SECRET_PREVIOUS.',
        );
      if (problems.length) throw new ConfigError(problems);
    },

    /** The configured keys and how many sealed values each column holds under each key id. */
    async status(): Promise<{
      keys: { id: string; setting: string; current: boolean }[];
      columns: { what: string; keys: Record<string, number> }[];
    }> {
      const current = new Set(SEALED_COLUMNS.map((c) => keys.currentId(c.purpose)));
      const columns = [];
      for (const col of SEALED_COLUMNS)
        columns.push({ what: describe(col), keys: Object.fromEntries(await repo.keyCounts(col)) });
      return { keys: keys.keys().map((k) => ({ ...k, current: current.has(k.id) })), columns };
    },

    /**
     * Seals every value that is not under the current key again under it. Idempotent (a second run
     * finds nothing to do) and safe to run on several instances at once: each row is written only if
     * it still holds the value that was read.
     */
    async reseal(): Promise<ColumnReport[]> {
      const reports: ColumnReport[] = [];
      for (const col of SEALED_COLUMNS) {
        const { written, unreadable } = await rewrite(col, { notUnder: keys.currentId(col.purpose) }, (value) => {
          const plain = keys.open(col.purpose, value);
          return plain === null ? null : keys.seal(col.purpose, plain);
        });
        reports.push({
          what: describe(col),
          resealed: written,
          unreadable,
          keys: Object.fromEntries(await repo.keyCounts(col)),
        });
      }
      return reports;
    },
  };
}
export type SecretsService = ReturnType<typeof secretsService>;
