import type { BrandRegistry } from '../../brands/registry.js';
import type { Database } from '../../db/client.js';
import type { Keyring } from '../../lib/keyring.js';
import type { Metrics } from '../../lib/metrics.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { type SecurityMails, secondFactor, usersRepository } from '../users/index.js';
import { staffAudit } from './audit.js';
import { staffPasskeyAudit } from './passkey-audit.js';
import { type StaffCustomersDeps, staffCustomers } from './customers.js';
import { type StaffJobsDeps, staffJobs } from './jobs.js';
import { staffOperator } from './operator.js';
import { staffRepository } from './repository.js';
import { staffSessions } from './sessions.js';
import { type StaffVpnDeps, staffVpn } from './vpn.js';

/** What the console uses of the rest of the API; each part below is given only its own share. */
export interface StaffDeps {
  /** The staff area's own tables (staff_members, staff_sessions, staff_audit) and the customer view's reads. */
  db: Database;
  /** APP_SECRET and the replaced ones (lib/keyring.ts): two-factor secrets, device cookies. */
  keys: Keyring;
  limiter: RateLimiter;
  brands: Pick<BrandRegistry, 'byId' | 'all'>;
  users: StaffCustomersDeps['accounts'];
  erasure: StaffCustomersDeps['erasure'];
  billing: StaffCustomersDeps['billing'];
  vpn: StaffVpnDeps['vpn'] & { openvpnSocks5: StaffCustomersDeps['openvpnSocks5'] };
  stealth: StaffCustomersDeps['stealth'];
  jobs: StaffJobsDeps['engine'];
  /** The account's security notices: a recovery code used at the console's sign-in is mailed as at the customer's. */
  security?: Pick<SecurityMails, 'signedIn'>;
  /** The customer's links (verification mail): PUBLIC_URL, else the brand's host. */
  originOf: (brandId: string) => string;
  moneyBackDays: number;
  /** The per-address sign-in budget (LIMIT_LOGIN_PER_IP), the customer sign-in's: one rule for both. */
  loginPerIp?: number;
  /** The audit chain's head is logged at each write (info). */
  log?: { info?: (obj: object, msg: string) => void };
  /** Failed sign-ins are counted here (a customer's only here, never in the audit). */
  metrics?: Pick<Metrics, 'staffSignInFailures'>;
  now?: () => Date;
}

/**
 * The operator console (issue 15), one part per concern, each given only what it uses: the audit
 * log (audit.ts), staff sessions (sessions.ts), the customer view and actions (customers.ts),
 * locations and nodes (vpn.ts), jobs (jobs.ts) and what only the operator's CLI does (operator.ts).
 * It uses the same services as the customer's API and the operator's CLI (billing operator,
 * renewals, the VPN admin), so a grant or a refund from the console is the one the CLI makes.
 */
export function staffService(deps: StaffDeps) {
  const now = deps.now ?? (() => new Date());
  const repo = staffRepository(deps.db);
  const accounts = usersRepository(deps.db);
  const audit = staffAudit({ db: deps.db, log: deps.log });
  return {
    ...staffSessions({
      repo,
      audit,
      accounts,
      secondFactor: secondFactor(accounts, deps.keys),
      keys: deps.keys,
      limiter: deps.limiter,
      brands: deps.brands,
      security: deps.security,
      originOf: deps.originOf,
      loginPerIp: deps.loginPerIp,
      metrics: deps.metrics,
      now,
    }),
    ...staffCustomers({
      repo,
      audit,
      accounts: deps.users,
      erasure: deps.erasure,
      billing: deps.billing,
      openvpnSocks5: deps.vpn.openvpnSocks5,
      stealth: deps.stealth,
      brands: deps.brands,
      originOf: deps.originOf,
      moneyBackDays: deps.moneyBackDays,
      now,
    }),
    auditPage: audit.auditPage,
    verifyAudit: audit.verifyAudit,
    ...staffVpn({ repo, audit, vpn: deps.vpn, now }),
    ...staffJobs({ engine: deps.jobs, audit, now }),
    ...staffOperator({ repo, audit, accounts }),
    ...staffPasskeyAudit({ repo, audit }),
  };
}
export type StaffService = ReturnType<typeof staffService>;
