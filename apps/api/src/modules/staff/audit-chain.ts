import { createHash } from 'node:crypto';

/**
 * The staff audit's hash chain, recomputed outside the database (migration 0014 computes the same in
 * SQL when a row is written; the two are kept equal by test/staff-audit-chain.test.ts). Row n's hash
 * is sha256 over a canonical encoding of its chained fields and row n-1's hash. The personal fields
 * (actor and target text, address, user agent) enter only through a salted commitment, so a recorded
 * pseudonymisation can erase them (and the salt) without breaking the chain.
 */
export const GENESIS_HASH = '0'.repeat(64);

/** A row as the verifier reads it: every value as the database's text (ids, seq, `at` in microseconds, `detail` as jsonb text). */
export interface ChainRow {
  id: string;
  seq: string;
  at_us: string;
  actor_user_id: string | null;
  role: string | null;
  action: string;
  target_user_id: string | null;
  detail: string;
  personal_salt: string | null;
  personal_hash: string;
  prev_hash: string;
  row_hash: string;
  actor: string;
  target: string;
  ip: string;
  user_agent: string;
}

/** null is `~`; a value is its length in UTF-8 bytes, `:` and itself (so no two field lists encode alike). */
const field = (v: string | null) => (v === null ? '~' : `${Buffer.byteLength(v, 'utf8')}:${v}`);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export const personalHash = (r: Pick<ChainRow, 'personal_salt' | 'actor' | 'target' | 'ip' | 'user_agent'>) =>
  sha256(
    `warren-staff-audit-personal-v1|${field(r.personal_salt)}${field(r.actor)}${field(r.target)}${field(r.ip)}${field(r.user_agent)}`,
  );

export const rowHash = (
  r: Pick<
    ChainRow,
    'seq' | 'at_us' | 'actor_user_id' | 'role' | 'action' | 'target_user_id' | 'detail' | 'personal_hash' | 'prev_hash'
  >,
) =>
  sha256(
    `warren-staff-audit-v1|${field(r.seq)}${field(r.at_us)}${field(r.actor_user_id)}${field(r.role)}${field(r.action)}${field(r.target_user_id)}${field(r.detail)}${field(r.personal_hash)}${field(r.prev_hash)}`,
  );

/** The action of the chained row that records a deliberate erasure of personal fields. */
export const PSEUDONYMISE = 'pseudonymise';

export interface ChainHead {
  seq: bigint;
  /** The full hash, or a prefix of at least 12 hex digits; absent: the seq alone (the metric). */
  hash?: string;
}

export interface ChainReport {
  ok: boolean;
  rows: number;
  head: { seq: string; hash: string };
  /** The first problems found, in chain order (the first one is what was edited, inserted or deleted first). */
  problems: string[];
  /** Rows whose personal fields were erased by a recorded pseudonymisation. */
  pseudonymised: number;
}

const MAX_PROBLEMS = 20;

/**
 * Checks rows fed in chain order (seq, then id), page by page, then the end against the exported
 * head: a changed field (the row's hash no longer matches), a row inserted (it does not follow the
 * row before it, or repeats a seq), a row deleted (a seq is missing), the newest rows deleted (the
 * last seq is below the exported head's), the chain rewritten from some row on (the exported head's
 * hash differs), and personal fields erased without a later `pseudonymise` row that records it.
 */
export function chainVerifier(exported?: ChainHead) {
  const problems: string[] = [];
  const problem = (p: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  let expected = 1n;
  let prev = GENESIS_HASH;
  let rows = 0;
  let exportedSeen = false;
  const erased: { seq: bigint; id: string; actor: string | null; target: string | null; atUs: bigint }[] = [];
  const records: { seq: bigint; userId?: string; beforeUs?: bigint }[] = [];
  const name = (r: ChainRow) => `row seq ${r.seq} (id ${r.id})`;

  return {
    feed(page: ChainRow[]): void {
      for (const r of page) {
        rows++;
        const seq = BigInt(r.seq);
        if (seq > expected)
          problem(
            `${expected === seq - 1n ? `row seq ${expected} is` : `rows seq ${expected}–${seq - 1n} are`} missing (deleted) before ${name(r)}`,
          );
        else if (seq < expected) problem(`${name(r)} repeats a seq already in the chain (inserted)`);
        else if (r.prev_hash !== prev)
          problem(`${name(r)} does not follow the row before it (a row was inserted, or the one before it rewritten)`);
        if (r.personal_salt !== null && personalHash(r) !== r.personal_hash)
          problem(`${name(r)} was edited (actor, target, address or user agent)`);
        if (rowHash(r) !== r.row_hash) problem(`${name(r)} was edited (its fields no longer give its hash)`);
        if (r.personal_salt === null)
          erased.push({ seq, id: r.id, actor: r.actor_user_id, target: r.target_user_id, atUs: BigInt(r.at_us) });
        if (r.action === PSEUDONYMISE) {
          let d: { userId?: unknown; before?: unknown } = {};
          try {
            d = JSON.parse(r.detail) as typeof d;
          } catch {
            /* no usable record: covers nothing */
          }
          const before = typeof d.before === 'string' ? Date.parse(d.before) : NaN;
          records.push({
            seq,
            userId: typeof d.userId === 'number' ? String(d.userId) : undefined,
            beforeUs: Number.isFinite(before) ? BigInt(before) * 1000n : undefined,
          });
        }
        if (exported && seq === exported.seq) {
          exportedSeen = true;
          if (exported.hash && !r.row_hash.startsWith(exported.hash.toLowerCase()))
            problem(`${name(r)} differs from the exported head (the chain was rewritten up to it)`);
        }
        expected = (seq >= expected ? seq : expected - 1n) + 1n;
        prev = r.row_hash;
      }
    },
    /** `stored`: the head table's seq and hash, which must be the last row's. */
    finish(stored?: { seq: string; hash: string }): ChainReport {
      const last = { seq: String(expected - 1n), hash: prev };
      if (exported && !exportedSeen) {
        if (exported.seq > expected - 1n)
          problem(
            `rows seq ${expected}–${exported.seq} are missing: the exported head is seq ${exported.seq}, the chain ends at seq ${expected - 1n} (the newest rows were deleted)`,
          );
        else problem(`row seq ${exported.seq} of the exported head is missing`);
      }
      if (stored && (stored.seq !== last.seq || stored.hash !== last.hash))
        problem(
          `the head table says seq ${stored.seq} ${stored.hash.slice(0, 16)}…, the chain ends at seq ${last.seq} ${last.hash.slice(0, 16)}…`,
        );
      for (const e of erased) {
        const recorded = records.some(
          (p) =>
            p.seq > e.seq &&
            ((p.userId !== undefined && (p.userId === e.actor || p.userId === e.target)) ||
              (p.beforeUs !== undefined && e.atUs < p.beforeUs)),
        );
        if (!recorded)
          problem(
            `row seq ${e.seq} (id ${e.id}): personal fields erased with no later "${PSEUDONYMISE}" row recording it`,
          );
      }
      return { ok: problems.length === 0, rows, head: last, problems, pseudonymised: erased.length };
    },
  };
}

/** `--head SEQ` or `--head SEQ:HASH` (as the metric and the log line give them). */
export function parseHead(text: string): ChainHead | undefined {
  const m = /^(\d{1,18})(?::([0-9a-fA-F]{12,64}))?$/.exec(text.trim());
  return m ? { seq: BigInt(m[1]!), hash: m[2] } : undefined;
}
