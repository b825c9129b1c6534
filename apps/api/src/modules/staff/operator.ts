import type { StaffAuditAction, StaffRole } from '@warren/contract';
import { NotFoundError } from '../../lib/errors.js';
import type { UsersRepository } from '../users/index.js';
import type { StaffAudit } from './audit.js';
import type { StaffRepository } from './repository.js';

export interface StaffOperatorDeps {
  /** The console's roles (staff_members). */
  repo: Pick<StaffRepository, 'setRole' | 'roleOf' | 'removeRole' | 'members'>;
  audit: Pick<StaffAudit, 'operator'>;
  /** The account named by email, and its affiliate-portal flag (the users module's). */
  accounts: Pick<UsersRepository, 'findByEmail' | 'setAffiliatePortal'>;
}

/**
 * What only the operator's CLI does to the console (`npx warren staff …`, `npx warren affiliate
 * portal`, `npx warren vpn …`): roles, the affiliate-portal flag, and the audit rows of the CLI's
 * location and node changes, each audited as "operator (CLI)".
 */
export function staffOperator({ repo, audit, accounts }: StaffOperatorDeps) {
  async function accountOf(email: string) {
    const user = await accounts.findByEmail(email);
    if (!user) throw new NotFoundError(`No account with the email ${email}.`);
    return user;
  }

  return {
    async grantRole(
      email: string,
      role: StaffRole,
    ): Promise<{ userId: number; previous: StaffRole | null; twoFactor: boolean }> {
      const user = await accountOf(email);
      const previous = await repo.setRole(user.id, role);
      await audit.operator('role-grant', { userId: user.id, text: user.email }, { role, previous });
      return { userId: user.id, previous, twoFactor: user.totp_enabled };
    },
    async revokeRole(email: string): Promise<boolean> {
      const user = await accountOf(email);
      const role = await repo.roleOf(user.id);
      if (!(await repo.removeRole(user.id))) return false;
      await audit.operator('role-revoke', { userId: user.id, text: user.email }, { role });
      return true;
    },
    /**
     * Grants or takes away the affiliate-portal flag (the spec's portal rule: the menu's affiliate
     * link opens the brand's portal), audited as the operator like a role. `changed` is false when
     * the account already had that value (still audited: the operator asked).
     */
    async setAffiliatePortal(
      email: string,
      enabled: boolean,
    ): Promise<{ userId: number; brand: string; changed: boolean }> {
      const user = await accountOf(email);
      const previous = await accounts.setAffiliatePortal(user.id, enabled);
      if (previous === null) throw new NotFoundError(`No account with the email ${email}.`);
      await audit.operator('affiliate-portal', { userId: user.id, text: user.email }, { enabled, previous });
      return { userId: user.id, brand: user.brand, changed: previous !== enabled };
    },
    /**
     * An operator's change to locations and nodes from the CLI (`npx warren vpn …`), audited as the
     * console's same change is, with "operator (CLI)" as its actor: a node drained or switched off
     * from a shell shows in the console's audit log like one done there.
     */
    async auditCliVpnChange(
      action: Extract<StaffAuditAction, 'location-add' | 'location-update' | 'node-add' | 'node-update' | 'node-token'>,
      target: string,
      detail: Record<string, unknown> = {},
    ): Promise<void> {
      await audit.operator(action, { text: target }, detail);
    },
    members: () => repo.members(),
  };
}
