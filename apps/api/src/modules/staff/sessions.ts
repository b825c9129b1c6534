import {
  STAFF_ABSOLUTE_HOURS,
  STAFF_IDLE_MINUTES,
  type StaffMe,
  type StaffRole,
  type StaffSignInBody,
  type AuthenticationResponse,
} from '@warren/contract';
import type { BrandRegistry } from '../../brands/registry.js';
import { DomainError, ForbiddenError, ValidationError } from '../../lib/errors.js';
import type { Keyring } from '../../lib/keyring.js';
import type { Metrics, StaffSignInFailure } from '../../lib/metrics.js';
import { verifyPassword } from '../../lib/passwords.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { hashToken, randomToken } from '../../lib/secrets.js';
import {
  LIMITS,
  type SecondFactor,
  type SecurityMails,
  type UsersRepository,
  spend,
  spendSignIn,
} from '../users/index.js';
import type { StaffActor, StaffAudit } from './audit.js';
import { staffDevices } from './device.js';
import type { StaffRepository } from './repository.js';

export const STAFF_IDLE_MS = STAFF_IDLE_MINUTES * 60_000;
export const STAFF_ABSOLUTE_MS = STAFF_ABSOLUTE_HOURS * 3_600_000;
const BAD_CREDENTIALS = 'These credentials do not match our records.';
const ACCOUNT_DISABLED = 'This account is disabled. Please contact support.';
const NEEDS_TWO_FACTOR =
  'Staff sign-in needs two-factor sign-in: turn it on in your profile (Profile → Two-factor sign-in) first.';

export interface StaffSession extends StaffActor {
  sessionId: number;
  xsrfKeyHash: string;
  createdAt: Date;
  lastUsedAt: Date;
}

export interface StaffSessionsDeps {
  /** The console's sessions and roles (staff_sessions, staff_members). */
  repo: Pick<StaffRepository, 'roleOf' | 'insertSession' | 'useSession' | 'deleteSession'>;
  audit: Pick<StaffAudit, 'append' | 'record' | 'expireAddresses'>;
  /** The account a member signs in with (the users module's). */
  accounts: Pick<UsersRepository, 'findByEmail' | 'recoveryCodesLeft'>;
  /** The customer sign-in's second factor: a recovery code is good once for both doors. */
  secondFactor: Pick<SecondFactor, 'check'>;
  /** APP_SECRET and the replaced ones (lib/keyring.ts): the known-device cookie. */
  keys: Pick<Keyring, 'appSecrets'>;
  limiter: RateLimiter;
  brands: Pick<BrandRegistry, 'byId' | 'all'>;
  /** The account's security notices: a recovery code used at the console's sign-in is mailed as at the customer's. */
  security?: Pick<SecurityMails, 'signedIn'>;
  /** The customer's links (the notice's): PUBLIC_URL, else the brand's host. */
  originOf: (brandId: string) => string;
  /** The per-address sign-in budget (LIMIT_LOGIN_PER_IP), the customer sign-in's: one rule for both. */
  loginPerIp?: number;
  /** Failed sign-ins are counted here (a customer's only here, never in the audit). */
  metrics?: Pick<Metrics, 'staffSignInFailures'>;
  now: () => Date;
}

const meOf = (s: { email: string; role: StaffRole; createdAt: Date; lastUsedAt: Date }): StaffMe => ({
  email: s.email,
  role: s.role,
  expiresAt: new Date(
    Math.min(s.lastUsedAt.getTime() + STAFF_IDLE_MS, s.createdAt.getTime() + STAFF_ABSOLUTE_MS),
  ).toISOString(),
  absoluteExpiresAt: new Date(s.createdAt.getTime() + STAFF_ABSOLUTE_MS).toISOString(),
});

/** The operator console's sessions: sign-in with two-factor, short sessions bound to the browser, sign-out. */
export function staffSessions(deps: StaffSessionsDeps) {
  const { repo, audit, limiter, now } = deps;
  const devices = staffDevices(deps.keys.appSecrets());

  return {
    /**
     * Staff sign-in: password, a role, two-factor on and a code (TOTP or recovery, each good once).
     * Every try is counted before it is evaluated, on the customer sign-in's budgets (per address,
     * per account and address, per account, then the per-account slow-down) and the second factor's.
     *
     * Only tries on a staff member's account are audited, and without the address or browser of
     * whoever tried: an address enters the audit once its owner proved to be the member (password and
     * code). A try on any other account (unknown, or a customer's, right password or not) is no staff
     * event: it is counted in metrics only and answers exactly as a wrong password does, after the
     * same work (issue 20).
     */
    async signIn(
      body: StaffSignInBody,
      ctx: {
        ip: string;
        userAgent: string;
        xsrfKey: string;
        device?: string;
        /** Verifies a passkey of the account as the second step (./passkeys.ts); false when it does not. */
        passkey?: (userId: number, response: AuthenticationResponse) => Promise<boolean>;
      },
    ): Promise<{ token: string; me: StaffMe; device: string }> {
      const email = body.email.toLowerCase();
      // The account's one budget, shared with the customer sign-in. Beyond it the account is slowed
      // down, never locked (no captcha here, so always the slow-down), and a browser the member signed
      // in from before skips it: strangers' wrong passwords must not keep the member out.
      const { giveBack } = await spendSignIn(limiter, {
        email,
        ip: ctx.ip,
        perIp: deps.loginPerIp ? { ...LIMITS.loginPerIp, max: deps.loginPerIp } : LIMITS.loginPerIp,
        slowDown: true,
        knownDevice: devices.verify(ctx.device, email, now()),
      });
      const failed = async (why: Exclude<StaffSignInFailure, 'not-staff'>, userId: number, role: StaffRole) => {
        deps.metrics?.staffSignInFailures.inc({ reason: why });
        await audit.append({
          actorUserId: userId,
          actor: email.slice(0, 254),
          role,
          action: 'sign-in-failed',
          targetUserId: userId,
          target: email.slice(0, 254),
          detail: { why },
        });
      };

      const row = await deps.accounts.findByEmail(email);
      const ok = await verifyPassword(row?.password_hash, body.password);
      // Looked up whatever the password: a customer's right password costs what a wrong one does.
      const role = row ? await repo.roleOf(row.id) : undefined;
      if (!row || !role) {
        deps.metrics?.staffSignInFailures.inc({ reason: 'not-staff' });
        throw new ValidationError({ email: [BAD_CREDENTIALS] });
      }
      if (!ok) {
        await failed('password', row.id, role);
        throw new ValidationError({ email: [BAD_CREDENTIALS] });
      }
      // Disabled from the console (Suspended): as the customer sign-in, told after the right password only.
      if (row.account_status === 'Suspended') {
        await failed('disabled', row.id, role);
        throw new ForbiddenError(ACCOUNT_DISABLED);
      }
      // A passkey of the account is a second factor too (issue 23, ./passkeys.ts), with or without TOTP on.
      if (!row.totp_enabled && !body.passkey) {
        await failed('two-factor-off', row.id, role);
        throw new DomainError(403, NEEDS_TWO_FACTOR, { code: [NEEDS_TWO_FACTOR] });
      }
      await spend(limiter, LIMITS.secondFactorPerUser, String(row.id));
      // A recovery code is spent here as at the customer sign-in (one conditional UPDATE: good once, for both).
      const secondFactorUsed = body.passkey
        ? !!(await ctx.passkey?.(row.id, body.passkey)) && ('passkey' as const)
        : await deps.secondFactor.check(row, body.code ?? '');
      if (!secondFactorUsed) {
        await failed('code', row.id, role);
        throw new ValidationError({ email: [BAD_CREDENTIALS] });
      }
      await limiter.reset(LIMITS.secondFactorPerUser, String(row.id));
      await giveBack();

      const token = `ws_${randomToken(32)}`;
      const at = now();
      await repo.insertSession({
        userId: row.id,
        tokenHash: hashToken(token),
        xsrfKeyHash: hashToken(ctx.xsrfKey),
        now: at,
        ip: ctx.ip,
        userAgent: ctx.userAgent,
      });
      // Which factor: a recovery code used at the console is something an admin reviewing the audit must see.
      const detail =
        secondFactorUsed === 'recovery'
          ? { secondFactor: 'recovery', recoveryCodesLeft: await deps.accounts.recoveryCodesLeft(row.id) }
          : { secondFactor: secondFactorUsed };
      await audit.append({
        actorUserId: row.id,
        actor: row.email,
        role,
        action: 'sign-in',
        targetUserId: row.id,
        target: row.email,
        detail,
        ip: ctx.ip,
        userAgent: ctx.userAgent,
      });
      if (secondFactorUsed === 'recovery' && deps.security) {
        const brand = deps.brands.byId(row.brand) ?? deps.brands.all()[0]!;
        deps.security.signedIn(
          row,
          { brand, ip: ctx.ip, userAgent: ctx.userAgent, origin: deps.originOf(brand.id) },
          'recovery',
        );
      }
      // Staff addresses past their retention go now (an indexed look at the few rows still holding one).
      await audit.expireAddresses(at);
      // This browser is known from now on (a fresh cookie each time: its 30 days start again).
      return {
        token,
        me: meOf({ email: row.email, role, createdAt: at, lastUsedAt: at }),
        device: devices.issue(email, at),
      };
    },

    /** The live session of a cookie, its idle time restarted; undefined when there is none. */
    async authenticate(token: string, ctx: { ip: string; userAgent: string }): Promise<StaffSession | undefined> {
      if (token.length < 20 || token.length > 200) return undefined;
      const s = await repo.useSession(hashToken(token), now(), STAFF_IDLE_MS, STAFF_ABSOLUTE_MS);
      if (!s) return undefined;
      return {
        sessionId: Number(s.id),
        userId: s.user_id,
        email: s.email,
        role: s.role,
        xsrfKeyHash: s.xsrf_key_hash,
        createdAt: new Date(s.created_at),
        lastUsedAt: new Date(s.last_used_at),
        ip: ctx.ip,
        userAgent: ctx.userAgent,
      };
    },
    me: (s: StaffSession) => meOf(s),
    async signOut(s: StaffSession): Promise<void> {
      await repo.deleteSession(s.sessionId);
      await audit.record(s, 'sign-out', { userId: s.userId, text: s.email });
    },
  };
}
export type StaffSessions = ReturnType<typeof staffSessions>;
