import {
  type Language,
  type StealthLink,
  type StealthOverview,
  type StealthSubscriptionFormat,
  STEALTH_PATHS,
  languageFromTag,
  mayUseLocation,
  vpnAccess,
} from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ForbiddenError, NotFoundError, TooManyRequestsError } from '../../lib/errors.js';
import type { LimitRule, RateLimiter } from '../../lib/rate-limit.js';
import { accessOf } from '../locations/service.js';
import type { UserRow } from '../users/index.js';
import { type StealthKeys, newStealthSeed } from './credentials.js';
import {
  type RenderedLink,
  type StealthCredentials,
  type StealthEndpoint,
  base64Subscription,
  clashProfile,
  linksFor,
  singboxProfile,
} from './render.js';
import { type StealthLocationRow, type StealthNodeRow, stealthRepository } from './repository.js';

const MINUTE = 60_000;

/** The subscription URL's budgets: apps refresh every few hours, a family shares an address; a guesser meets a wall (and 256 bits). */
export const STEALTH_LIMITS = {
  subscriptionPerIp: { name: 'stealth-sub-ip', max: 60, windowMs: 10 * MINUTE },
  /** One URL fetched from many addresses (shared or leaked): the owner's apps still fit. */
  subscriptionPerSecret: { name: 'stealth-sub-secret', max: 120, windowMs: 60 * MINUTE },
  /** A reset wakes every node: not a loop. */
  resetPerUser: { name: 'stealth-reset', max: 10, windowMs: 60 * MINUTE },
} as const satisfies Record<string, LimitRule>;

/** How often apps refresh the subscription (Profile-Update-Interval, hours). */
export const PROFILE_UPDATE_HOURS = 12;

/** The secret in /api/sub/<secret>: HMAC-SHA256, base64url (credentials.ts). Anything else is not looked up. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface StealthDeps {
  db: Database;
  keys: StealthKeys;
  limiter: RateLimiter;
  /** The brand's public origin, as mail links use it (composition.ts). */
  originOf: (brandId: string) => string;
  /** The brand's product name ("Warren"). */
  brandName: (brandId: string) => string;
  /** config.vpn.nodeOnlineSeconds: a node that has not reported for longer makes no link. */
  onlineSeconds: number;
  /** After new credentials: wakes the nodes and waits (bounded) until they have them (nodes/service.ts publish). */
  published?: () => Promise<unknown>;
}

export interface SubscriptionAnswer {
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

const EXPIRED: Record<Language, (host: string) => string> = {
  en: (host) => `Plan expired: renew at ${host}`,
  ru: (host) => `Подписка истекла: продлите на ${host}`,
  zh: (host) => `套餐已到期：请在 ${host} 续订`,
};

/** A node for the location's links: one that reports and whose core is up, least loaded first; else none. */
function pickNode(nodes: StealthNodeRow[]): StealthNodeRow | undefined {
  const usable = nodes.filter((n) => n.online);
  return usable.sort((a, b) => Number(b.up) - Number(a.up) || (a.load ?? 100) - (b.load ?? 100))[0];
}

const localName = (l: StealthLocationRow, lang: Language) =>
  `${l[`country_${lang}`] || l.country_en}, ${l[`city_${lang}`] || l.city_en}`;

/** Unix seconds of the paid-until date; 0 (what the apps read as "never") for a plan without an end. */
const expireSeconds = (expires: Date | string | null) =>
  expires === null ? 0 : Math.floor(new Date(expires).getTime() / 1000);

/** A header value the apps decode: plain when ASCII, else `base64:` + UTF-8 base64 (Profile-Title, as Hiddify/Happ/v2rayN read it). */
const headerText = (s: string) =>
  /^[\x20-\x7e]*$/.test(s) ? s : `base64:${Buffer.from(s, 'utf8').toString('base64')}`;

/**
 * VLESS and Trojan for the signed-in customer (issue 21): the credentials, the share links of the
 * offered locations, the subscription URL the apps import, and the subscription itself.
 */
export function stealthService({
  db,
  keys,
  limiter,
  originOf,
  brandName,
  onlineSeconds,
  published = async () => {},
}: StealthDeps) {
  const repo = stealthRepository(db);

  async function secretsOf(userId: number) {
    const row = (await repo.credentials(userId)) ?? (await create(userId));
    return keys.derive(userId, row.seed);
  }

  async function create(userId: number) {
    const seed = newStealthSeed();
    const row = await repo.create(userId, seed, keys.subHash((await keys.derive(userId, seed)).subscription));
    // New credentials reach the nodes before they are shown, so an app that connects at once is not refused.
    await published();
    return row;
  }

  /** The endpoints of the offered locations a customer with `access` may use, named for the brand and language. */
  async function endpoints(
    access: ReturnType<typeof accessOf>,
    brand: string,
    lang: Language,
  ): Promise<(StealthEndpoint & { slug: string })[]> {
    const out: (StealthEndpoint & { slug: string })[] = [];
    for (const l of await repo.locations(onlineSeconds)) {
      if (!mayUseLocation(access, l.premium)) continue;
      const node = pickNode(l.nodes);
      if (node)
        out.push({
          slug: l.slug,
          name: `${brandName(brand)} · ${localName(l, lang)}`,
          host: node.host,
          port: node.port,
          wsPath: node.wsPath,
        });
    }
    return out;
  }

  const requirePaid = (user: UserRow) => {
    // Stealth is a paid feature: free (and lapsed) accounts get what the other paid features answer, and the page its upgrade prompt.
    if (accessOf(user) !== 'paid') throw new ForbiddenError('This feature needs a premium plan.');
  };

  async function overview(user: UserRow, lang: Language): Promise<StealthOverview> {
    requirePaid(user);
    const secrets = await secretsOf(user.id);
    const eps = await endpoints('paid', user.brand, lang);
    const links: StealthLink[] = eps.flatMap((e) =>
      linksFor([e], secrets).map((l) => ({ location: e.slug, name: e.name, protocol: l.protocol, url: l.url })),
    );
    return {
      subscriptionUrl: `${originOf(user.brand)}${STEALTH_PATHS.subscriptionPrefix}${secrets.subscription}`,
      links,
    };
  }

  /** New credentials and subscription secret for an account that has them (a new seed); false when it has none. Answered once the reporting nodes have the change (bounded wait). */
  async function rotate(userId: number): Promise<boolean> {
    if (!(await repo.credentials(userId))) return false;
    const seed = newStealthSeed();
    await repo.rotate(userId, seed, keys.subHash((await keys.derive(userId, seed)).subscription));
    await published();
    return true;
  }

  return {
    overview,

    /** New credentials and a new subscription URL; answered once the reporting nodes dropped the old ones (bounded wait). */
    async reset(user: UserRow, lang: Language): Promise<StealthOverview> {
      requirePaid(user);
      const v = await limiter.consume(STEALTH_LIMITS.resetPerUser, String(user.id));
      if (!v.allowed) throw new TooManyRequestsError(v.retryAfterS);
      if (!(await rotate(user.id))) await create(user.id);
      return overview(user, lang);
    },

    /**
     * The staff console's "reset credentials": rotates the account's stealth credentials when it has
     * any, whatever its plan (a leaked link stops working, and a later renewal does not bring it
     * back). No customer budget: staff actions are audited. True when there were credentials.
     */
    rotateForStaff: rotate,

    /**
     * What /api/sub/<secret> answers. Unknown, revoked, malformed: 404, the same answer (nothing
     * tells a guesser which). A deleted or disabled account: 404 too (its URL is dead).
     *
     * A lapsed or free plan: the anchors' way (Marzban, Remnawave): the profile still answers, with
     * `expire` in the past in Subscription-Userinfo, and one informational entry in place of the
     * servers ("Plan expired: renew at <host>", pointing nowhere), so the app shows the customer
     * why it stopped and where to renew instead of an import error, and picks the servers up by
     * itself on its next refresh after a renewal. The nodes have dropped the account already.
     */
    async subscription(secret: string, format: StealthSubscriptionFormat, ip: string): Promise<SubscriptionAnswer> {
      const perIp = await limiter.consume(STEALTH_LIMITS.subscriptionPerIp, ip);
      if (!perIp.allowed) throw new TooManyRequestsError(perIp.retryAfterS);
      if (!SECRET_SHAPE.test(secret)) throw new NotFoundError();
      const hash = keys.subHash(secret);
      const perSecret = await limiter.consume(STEALTH_LIMITS.subscriptionPerSecret, hash);
      if (!perSecret.allowed) throw new TooManyRequestsError(perSecret.retryAfterS);
      const sub = await repo.bySubHash(hash);
      if (!sub || sub.deleted_at || sub.account_status !== 'Active') throw new NotFoundError();

      const lang = languageFromTag(sub.language);
      const brand = brandName(sub.brand);
      const origin = originOf(sub.brand);
      const access = vpnAccess({
        accountStatus: sub.account_status,
        tariffKey: sub.tariff_key,
        subscriptionExpiresAt: sub.subscription_expires_at,
        deletedAt: sub.deleted_at,
      });
      const secrets = await keys.derive(sub.user_id, sub.seed);
      let eps: StealthEndpoint[];
      let creds: StealthCredentials = secrets;
      if (access === 'paid') eps = await endpoints(access, sub.brand, lang);
      else {
        eps = [
          { name: `${brand} · ${EXPIRED[lang](new URL(origin).host)}`, host: '127.0.0.1', port: 1, wsPath: '/expired' },
        ];
        creds = { id: '00000000-0000-4000-8000-000000000000', password: 'expired' };
      }
      const usage = await repo.usage(sub.user_id);
      // A free plan never had a paid-until date: an expiry in the past (1 s) so the app shows "expired", not "never".
      const expire =
        access === 'paid'
          ? expireSeconds(sub.subscription_expires_at)
          : Math.max(1, expireSeconds(sub.subscription_expires_at));
      const fileBase = brand.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'vpn';
      const ext = format === 'clash' ? 'yaml' : format === 'singbox' ? 'json' : 'txt';
      const headers: Record<string, string> = {
        'subscription-userinfo': `upload=${usage.rx}; download=${usage.tx}; total=0; expire=${expire}`,
        'profile-update-interval': String(PROFILE_UPDATE_HOURS),
        'profile-title': headerText(brand),
        'profile-web-page-url': `${origin}/setup/stealth`,
        'content-disposition': `attachment; filename="${fileBase}.${ext}"; filename*=UTF-8''${encodeURIComponent(`${brand}.${ext}`)}`,
        'cache-control': 'no-store',
        // The URL is a credential: no page it is opened from learns it, no index keeps it.
        'referrer-policy': 'no-referrer',
        'x-robots-tag': 'noindex, nofollow',
      };
      if (format === 'clash')
        return { contentType: 'text/yaml; charset=utf-8', body: clashProfile(eps, creds, brand), headers };
      if (format === 'singbox')
        return { contentType: 'application/json; charset=utf-8', body: singboxProfile(eps, creds, brand), headers };
      const links: RenderedLink[] = linksFor(eps, creds);
      return { contentType: 'text/plain; charset=utf-8', body: base64Subscription(links), headers };
    },
  };
}
export type StealthService = ReturnType<typeof stealthService>;
