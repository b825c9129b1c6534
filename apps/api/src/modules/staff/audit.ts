import {
  STAFF_AUDIT_PAGE,
  type StaffAuditAction,
  type StaffAuditEntry,
  type StaffAuditPage,
  type StaffRole,
} from '@warren/contract';
import type { Database } from '../../db/client.js';
import { type ChainHead, type ChainReport, chainVerifier } from './audit-chain.js';
import { type AuditHead, type NewAudit, staffRepository } from './repository.js';

const AUDIT_VERIFY_PAGE = 1000;
/** How long the audit keeps a staff member's address and user agent (README: the operator console). */
export const STAFF_AUDIT_ADDRESS_DAYS = 365;
/** The operator's CLI as the audit log names it. */
export const CLI_ACTOR = 'operator (CLI)';

/** Who does it, from where: every audited call carries it. */
export interface StaffActor {
  userId: number;
  email: string;
  role: StaffRole;
  ip: string;
  userAgent: string;
}

export interface StaffAuditDeps {
  /** The audit's own tables (staff_audit and its head): nothing else is read or written here. */
  db: Database;
  /** The audit chain's head is logged at each write (info). */
  log?: { info?: (obj: object, msg: string) => void };
}

/**
 * The append-only audit log of the operator console (issue 15): every staff action and every
 * operator's CLI change is one row, hash-chained (audit-chain.ts). The other staff parts write
 * through `append` (a row as it is), `record` (an actor's action) or `operator` (the CLI's).
 */
export function staffAudit({ db, log }: StaffAuditDeps) {
  const repo = staffRepository(db);
  const iso = (d: Date | string) => new Date(d).toISOString();

  /** Every write exports the chain's new head (a log line; the metric reads the head table): a later deletion of the newest rows shows against it. */
  async function append(a: NewAudit): Promise<AuditHead> {
    const head = await repo.audit(a);
    log?.info?.({ staffAuditHead: head }, 'staff audit appended');
    return head;
  }

  return {
    append,
    /** A staff member's action, with their address and browser. */
    record: (
      actor: StaffActor,
      action: StaffAuditAction,
      target: { userId?: number | null; text?: string },
      detail: Record<string, unknown> = {},
    ) =>
      append({
        actorUserId: actor.userId,
        actor: actor.email,
        role: actor.role,
        action,
        targetUserId: target.userId ?? null,
        target: target.text ?? '',
        detail,
        ip: actor.ip,
        userAgent: actor.userAgent,
      }),
    /** The operator's action from the CLI ("operator (CLI)"). */
    operator: (
      action: StaffAuditAction,
      target: { userId?: number | null; text: string },
      detail: Record<string, unknown> = {},
    ) =>
      append({
        actorUserId: null,
        actor: CLI_ACTOR,
        role: 'operator',
        action,
        targetUserId: target.userId ?? null,
        target: target.text,
        detail,
      }),

    /** Staff addresses past their retention go (an indexed look at the few rows still holding one). */
    expireAddresses: (at: Date) =>
      repo.expireAddresses(
        new Date(at.getTime() - STAFF_AUDIT_ADDRESS_DAYS * 86_400_000),
        `staff addresses are kept ${STAFF_AUDIT_ADDRESS_DAYS} days`,
      ),

    async auditPage(q: { targetUserId?: number; cursor?: string }): Promise<StaffAuditPage> {
      const rows = await repo.auditPage({
        targetUserId: q.targetUserId,
        before: q.cursor,
        limit: STAFF_AUDIT_PAGE + 1,
      });
      const items: StaffAuditEntry[] = rows.slice(0, STAFF_AUDIT_PAGE).map((r) => ({
        id: r.id,
        at: iso(r.at),
        actorUserId: r.actor_user_id,
        actor: r.actor,
        role: r.role,
        action: r.action as StaffAuditAction,
        targetUserId: r.target_user_id,
        target: r.target,
        detail: r.detail ?? {},
        ip: r.ip,
        userAgent: r.user_agent,
      }));
      return { items, nextCursor: rows.length > STAFF_AUDIT_PAGE ? items[items.length - 1]!.id : null };
    },

    /**
     * Recomputes the whole chain outside the database, page by page, and compares its end with the
     * head table and, when given, the head exported earlier (`npx warren staff audit verify`).
     */
    async verifyAudit(exported?: ChainHead): Promise<ChainReport> {
      // One snapshot for the head and every page: writers meanwhile neither shift the pages nor the head.
      return db.transaction(async (tx) => {
        await tx.query('set transaction isolation level repeatable read');
        const snapshot = staffRepository(tx);
        const verifier = chainVerifier(exported);
        const stored = await snapshot.auditHead();
        let after: { seq: string; id: string } | null = null;
        for (;;) {
          const page = await snapshot.auditChainPage(after, AUDIT_VERIFY_PAGE);
          verifier.feed(page);
          if (page.length < AUDIT_VERIFY_PAGE) break;
          after = { seq: page.at(-1)!.seq, id: page.at(-1)!.id };
        }
        return verifier.finish(stored);
      });
    },
  };
}
export type StaffAudit = ReturnType<typeof staffAudit>;
