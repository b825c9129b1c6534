import { STAFF_CUSTOMER_ACTIONS, type StaffCustomerAction, type StaffRole } from '@warren/contract';

/** What a console user may do; the API refuses the rest anyway, the console just does not offer it. */
export type StaffAbility = StaffCustomerAction | 'manageNodes' | 'retryJobs';

/** The contract's least role per customer action (support: grant, resend, auto-renew off, sign out); nodes and job retries are admin's. */
export function can(role: StaffRole, ability: StaffAbility): boolean {
  if (role === 'admin') return true;
  return ability in STAFF_CUSTOMER_ACTIONS && STAFF_CUSTOMER_ACTIONS[ability as StaffCustomerAction] === 'support';
}
