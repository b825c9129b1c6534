import type { StaffRole } from '../api/types';

/** What a console user may do; the API refuses the rest anyway, the console just does not offer it. */
export type StaffAbility =
  | 'grantDays'
  | 'resendVerification'
  | 'autoRenewOff'
  | 'signOutAll'
  | 'refund'
  | 'resetServices'
  | 'disable'
  | 'delete'
  | 'nodes'
  | 'jobs';

/** Support reads, grants days, resends mail, turns auto-renew off and signs sessions out (issue 15); admin does everything. */
const SUPPORT: ReadonlySet<StaffAbility> = new Set(['grantDays', 'resendVerification', 'autoRenewOff', 'signOutAll']);

export function can(role: StaffRole, ability: StaffAbility): boolean {
  return role === 'admin' || SUPPORT.has(ability);
}
