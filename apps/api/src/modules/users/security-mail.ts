import { LANGUAGES, type Language, describeUserAgent } from '@warren/contract';
import type { Database } from '../../db/client.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { hmac } from '../../lib/secrets.js';
import type { Mailer } from '../../mail/mailer.js';
import {
  type SecurityMailKind,
  browserLabel,
  notYouLinks,
  placeLabel,
  renderMail,
  timeLabel,
} from '../../mail/templates.js';
import { LIMITS } from './limits.js';
import { knownBrowsersRepository, usersRepository } from './repository.js';
import type { RequestContext } from '../../plugins/context.js';

/** How a sign-in was proved: the password alone, with an authenticator code, with a recovery code, an emailed/one-time link, or a passkey (alone or after the password). */
export type SignInMethod = 'password' | 'totp' | 'recovery' | 'link' | 'passkey';

type Account = { id: number; email: string; language: string };

export interface SecurityMailDeps {
  db: Database;
  mailer: Mailer;
  limiter: RateLimiter;
  /** Background work the request does not wait for (composition.ts): a failing transport or query is logged there, never the caller's error. */
  defer: (task: () => Promise<unknown>) => void;
  /** APP_SECRET first, then the replaced ones (APP_SECRET_PREVIOUS): a browser remembered before a rotation stays known. */
  appSecrets: readonly string[];
  /** The country of an address, or undefined when the geo database does not know it (private, loopback). */
  countryOf: (ip: string) => string | undefined;
}

const asLanguage = (l: string): Language => ((LANGUAGES as readonly string[]).includes(l) ? (l as Language) : 'en');

/**
 * Security notices (issue 20): two-factor turned on or off, a recovery code used to sign in, a
 * sign-in from a browser the account has not been used in before. Each goes to the account's
 * address in its language, through the same mailer and mail log as every mail, in the background
 * (`defer`): the action never waits for the transport and never fails with it. They go whatever
 * the marketing setting (security notices are not news; there is no unsubscribe link), carry no
 * code and no token, and end with what to do if it was not the owner, with links built from the
 * request's `ctx.origin` as the other account mails' links are.
 *
 * "Seen" browser: a random id in a long-lived httpOnly cookie (plugins/browser-id.ts); the account
 * keeps an HMAC of (account, id) per browser (known_browsers). The browser that signs up, and the
 * one that opens the verification link, are remembered without a mail; so is the first browser
 * of an account that knows none yet (accounts from before this table, or made without a browser):
 * mailing every existing customer at their next sign-in would teach them to ignore the notice.
 */
export function securityMails(deps: SecurityMailDeps) {
  const users = usersRepository(deps.db);
  // Per account: the same browser has unrelated values in two accounts' rows.
  const browserHash = (userId: number, browserId: string, secret: string) =>
    hmac(`known-browser:${secret}`, `${userId}:${browserId}`);

  async function send(
    account: Account,
    kind: SecurityMailKind,
    ctx: Pick<RequestContext, 'brand' | 'origin'>,
    vars: Record<string, string>,
    link?: string,
  ) {
    const mail = renderMail(kind, {
      language: asLanguage(account.language),
      productName: ctx.brand.productName,
      link,
      vars,
      notYou: notYouLinks(ctx.origin, ctx.brand.helpCenterUrl),
    });
    // The notice runs in the background, so the account may be erased meanwhile. Its erasure
    // forgets what the outbox kept for the address after its commit; a notice written after that
    // outlived the account (seen under load in profile-erasure.test.ts). So: not sent to an account
    // already gone, and when it went while the erasure committed, forgotten here (whichever of the
    // two forgets runs last finds the file). SMTP keeps nothing to forget.
    const current = await users.findById(account.id);
    if (!current) return;
    await deps.mailer.send({ to: current.email, ...mail });
    if (!(await users.findById(account.id))) await deps.mailer.forget?.(current.email);
  }

  /** What the request tells about the browser, taken now (the mail goes later). */
  function sightingOf(ctx: RequestContext, language: Language) {
    return {
      time: timeLabel(language, new Date()),
      browser: browserLabel(language, describeUserAgent(ctx.userAgent)),
      place: placeLabel(language, deps.countryOf(ctx.ip)),
    };
  }

  const remember = (userId: number, browserId: string) =>
    deps.db.transaction((tx) => {
      const [current, ...previous] = deps.appSecrets.map((secret) => browserHash(userId, browserId, secret));
      return knownBrowsersRepository(tx).record(userId, current!, previous);
    });

  return {
    /** Two-factor sign-in was just turned on or off on this account. */
    twoFactorChanged(account: Account, on: boolean, ctx: RequestContext): void {
      const time = timeLabel(asLanguage(account.language), new Date());
      deps.defer(() => send(account, on ? 'twoFactorOn' : 'twoFactorOff', ctx, { time }));
    },

    /**
     * The one call after a successful sign-in. A recovery code: mailed with the codes left. A
     * browser the account has not been used in: mailed once (parallel sign-ins from it are decided
     * one after the other by the account's row lock, so one of them finds it new), and at most
     * LIMITS.newBrowserMailPerAccount an hour, so scripted sign-ins without cookies cannot flood the
     * owner's mailbox. A recovery-code sign-in from a new browser sends the recovery notice only
     * (it names the browser and place too).
     */
    signedIn(account: Account, ctx: RequestContext, how: SignInMethod): void {
      const browserId = ctx.browserId?.();
      const sighting = sightingOf(ctx, asLanguage(account.language));
      deps.defer(async () => {
        const seen = browserId ? await remember(account.id, browserId) : 'known';
        if (how === 'recovery') {
          const left = await users.recoveryCodesLeft(account.id);
          return send(account, 'recoveryCodeUsed', ctx, { ...sighting, left: String(left) });
        }
        if (seen !== 'new') return;
        if (!(await deps.limiter.consume(LIMITS.newBrowserMailPerAccount, String(account.id))).allowed) return;
        return send(account, 'newSignIn', ctx, sighting);
      });
    },

    /** A passkey was added to or removed from the account (issue 23): named in the mail, with the time. */
    passkeyChanged(account: Account, added: boolean, name: string, ctx: RequestContext): void {
      const language = asLanguage(account.language);
      const vars = { time: timeLabel(language, new Date()), name, browser: sightingOf(ctx, language).browser };
      deps.defer(() => send(account, added ? 'passkeyAdded' : 'passkeyRemoved', ctx, vars));
    },

    /** This browser belongs to the account from now on, without a mail (sign-up, the verification link). */
    rememberBrowser(userId: number, ctx: RequestContext): void {
      const browserId = ctx.browserId?.();
      if (browserId) deps.defer(() => remember(userId, browserId));
    },
  };
}
export type SecurityMails = ReturnType<typeof securityMails>;
