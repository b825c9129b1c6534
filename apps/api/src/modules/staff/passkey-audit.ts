import type { StaffAudit, StaffActor } from './audit.js';
import type { StaffRepository } from './repository.js';

export interface StaffPasskeyAuditDeps {
  /** Whether an account holds a role (staff_members). */
  repo: Pick<StaffRepository, 'roleOf'>;
  audit: Pick<StaffAudit, 'record'>;
}

/** A passkey added or removed: its name, and where (the console's page or Profile → Passkeys). */
export interface PasskeyChange {
  added: boolean;
  name: string;
}

/**
 * A staff member's passkeys in the audit log (issue 23). A passkey of the account is a second step
 * of the console's sign-in, whichever page added it, so both are audited: the console's passkey
 * page (the session's member) and Profile → Passkeys of an account holding a role (the customer
 * session's address and browser). A customer's passkeys are not staff business and stay out.
 */
export function staffPasskeyAudit({ repo, audit }: StaffPasskeyAuditDeps) {
  const record = (actor: StaffActor, change: PasskeyChange, where: 'console' | 'profile') =>
    audit.record(
      actor,
      change.added ? 'passkey-add' : 'passkey-remove',
      { userId: actor.userId, text: actor.email },
      { name: change.name, where },
    );
  return {
    consolePasskeyChanged: (actor: StaffActor, change: PasskeyChange) => record(actor, change, 'console'),
    /** Answers whether it was audited (the account holds a role). */
    async profilePasskeyChanged(
      account: { id: number; email: string },
      change: PasskeyChange,
      ctx: { ip: string; userAgent: string },
    ): Promise<boolean> {
      const role = await repo.roleOf(account.id);
      if (!role) return false;
      await record(
        { userId: account.id, email: account.email, role, ip: ctx.ip, userAgent: ctx.userAgent.slice(0, 300) },
        change,
        'profile',
      );
      return true;
    },
  };
}
