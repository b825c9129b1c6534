import type { AuthResult, AuthenticationResponse, Passkey, RegistrationResponse } from '@warren/contract';
import { ValidationError } from '../../lib/errors.js';
import type { LimitRule, RateLimiter } from '../../lib/rate-limit.js';
import {
  type RequestContext,
  type SecurityMails,
  type TokenRow,
  type UserRow,
  type UsersService,
  spend,
} from '../users/index.js';
import { relyingPartyOf, type PasskeysService } from './service.js';

/** Options for sign-in ceremonies from one address (each stores a challenge row for 5 minutes). */
export const PASSKEY_OPTIONS_PER_IP: LimitRule = {
  name: 'passkey-options-ip',
  max: 60,
  windowMs: 15 * 60_000,
  address: true,
};

const rpOf = (ctx: RequestContext) => relyingPartyOf(ctx.origin, ctx.brand.productName);
/** A registration belongs to the session that asked (its token id), never to another session of the account. */
const sessionBinding = (token: TokenRow) => `session:${token.id}`;
/** A sign-in challenge belongs to the browser that asked: its id cookie (plugins/browser-id.ts). */
function browserBinding(ctx: RequestContext, fieldName: string): string {
  const id = ctx.browserId?.();
  if (!id) throw new ValidationError({ [fieldName]: ['Passkeys work in a browser only.'] });
  return `browser:${id}`;
}
const reauthKey = (user: UserRow, token: TokenRow) => `${user.id}:${token.id}`;

/**
 * The customer's passkeys (issue 23): Profile → Passkeys, "Sign in with a passkey", and a passkey as
 * the second step after the password. Adding and removing a passkey need the password again, as
 * turning two-factor off does (GitHub's sudo mode, Proton's password prompt): a stolen session must
 * not be able to add a way in that outlives a password change, nor remove the owner's. Renaming
 * needs the session only. Each change is mailed to the owner (security-mail.ts).
 */
export function customerPasskeys(deps: {
  passkeys: PasskeysService;
  users: UsersService;
  security: SecurityMails;
  limiter: RateLimiter;
  /** The customer sign-in's per-address budget (LIMIT_LOGIN_PER_IP): a passkey sign-in spends it as a password does. */
  loginPerIp: LimitRule;
  /** Each added or removed passkey, after it is stored: the staff audit log keeps a staff member's (staff/passkey-audit.ts). */
  changed?: (user: UserRow, change: { added: boolean; name: string }, ctx: RequestContext) => Promise<unknown>;
}) {
  const { passkeys, users, security, limiter } = deps;
  // Every sign-in page view in a browser with conditional UI asks for one: four times the address's sign-in budget.
  const optionsPerIp: LimitRule = {
    ...PASSKEY_OPTIONS_PER_IP,
    max: Math.max(PASSKEY_OPTIONS_PER_IP.max, 4 * deps.loginPerIp.max),
  };

  return {
    list: (user: UserRow): Promise<Passkey[]> => passkeys.list(user.id),

    async registrationOptions(user: UserRow, token: TokenRow, password: string, ctx: RequestContext) {
      await passkeys.checkPassword(user, reauthKey(user, token), password);
      return passkeys.registrationOptions(user, sessionBinding(token), rpOf(ctx));
    },

    async register(
      user: UserRow,
      token: TokenRow,
      body: { response: RegistrationResponse; name?: string },
      ctx: RequestContext,
    ): Promise<Passkey> {
      const added = await passkeys.register(user.id, sessionBinding(token), rpOf(ctx), body.response, body.name);
      await deps.changed?.(user, { added: true, name: added.name }, ctx);
      security.passkeyChanged(user, true, added.name, ctx);
      return added;
    },

    rename: (user: UserRow, id: number, name: string) => passkeys.rename(user.id, id, name),

    async remove(user: UserRow, token: TokenRow, id: number, password: string, ctx: RequestContext): Promise<void> {
      await passkeys.checkPassword(user, reauthKey(user, token), password);
      const name = await passkeys.remove(user.id, id);
      await deps.changed?.(user, { added: false, name }, ctx);
      security.passkeyChanged(user, false, name, ctx);
    },

    async signInOptions(ctx: RequestContext) {
      await spend(limiter, optionsPerIp, ctx.ip);
      return passkeys.assertionOptions('sign-in', browserBinding(ctx, 'response'), rpOf(ctx));
    },

    /** "Sign in with a passkey": counted on the sign-in's per-address budget before anything is looked at. */
    async signIn(response: AuthenticationResponse, ctx: RequestContext): Promise<AuthResult> {
      await spend(limiter, deps.loginPerIp, ctx.ip);
      const { userId } = await passkeys.verifyAssertion({
        purpose: 'sign-in',
        binding: browserBinding(ctx, 'response'),
        rp: rpOf(ctx),
        response,
        requireUserVerification: true,
        fieldName: 'response',
      });
      return users.signInWithPasskey(userId, ctx);
    },
  };
}
export type CustomerPasskeys = ReturnType<typeof customerPasskeys>;

/**
 * The second step after the password (users/service.ts login): a passkey of this very account, for
 * a challenge this browser asked for; presence is enough here (the password was the first factor).
 * Its budget is the second factor's (LIMITS.secondFactorPerUser), spent by the caller.
 */
export function passkeySecondFactor(passkeys: PasskeysService) {
  return async (userId: number, response: AuthenticationResponse, ctx: RequestContext): Promise<boolean> => {
    await passkeys.verifyAssertion({
      purpose: 'sign-in',
      binding: browserBinding(ctx, 'otp'),
      rp: rpOf(ctx),
      response,
      expectUserId: userId,
      requireUserVerification: false,
      fieldName: 'otp',
    });
    return true;
  };
}
