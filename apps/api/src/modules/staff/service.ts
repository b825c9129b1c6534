import {
  STAFF_ABSOLUTE_HOURS,
  STAFF_AUDIT_PAGE,
  STAFF_IDLE_MINUTES,
  STAFF_SEARCH_LIMIT,
  type StaffAddLocationBody,
  type StaffAddNodeBody,
  type StaffAuditEntry,
  type StaffAuditPage,
  type StaffCustomer,
  type StaffCustomerSummary,
  type StaffJob,
  type StaffLocation,
  type StaffMe,
  type StaffNode,
  type StaffRole,
  type StaffSignInBody,
  type StaffAuditAction,
  NODE_REPORT_INTERVAL_S,
  LANGUAGES,
  nodeIsFull,
  nodePeerLimit,
} from '@warren/contract';
import type { BrandRegistry } from '../../brands/registry.js';
import type { Database } from '../../db/client.js';
import { ConflictError, DomainError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { verifyPassword } from '../../lib/passwords.js';
import type { Metrics, StaffSignInFailure } from '../../lib/metrics.js';
import type { Keyring } from '../../lib/keyring.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { hashToken, randomToken } from '../../lib/secrets.js';
import { type BillingServices, type JobEngine, type PaymentRow, isWithinMoneyBack } from '../billing/index.js';
import type { VpnServices } from '../nodes/index.js';
import type { StealthService } from '../stealth/index.js';
import {
  type AccountErasure,
  LIMITS,
  type SecurityMails,
  type UsersService,
  secondFactor,
  spend,
  spendSignIn,
  usersRepository,
} from '../users/index.js';
import { staffDevices } from './device.js';
import { type ChainReport, chainVerifier, type ChainHead } from './audit-chain.js';
import { type AuditHead, type CustomerRow, type NewAudit, staffRepository } from './repository.js';

export const STAFF_IDLE_MS = STAFF_IDLE_MINUTES * 60_000;
export const STAFF_ABSOLUTE_MS = STAFF_ABSOLUTE_HOURS * 3_600_000;
/** How long the audit keeps a staff member's address and user agent (README: the operator console). */
export const STAFF_AUDIT_ADDRESS_DAYS = 365;
const AUDIT_VERIFY_PAGE = 1000;
const BAD_CREDENTIALS = 'These credentials do not match our records.';
const ACCOUNT_DISABLED = 'This account is disabled. Please contact support.';
const NEEDS_TWO_FACTOR =
  'Staff sign-in needs two-factor sign-in: turn it on in your profile (Profile → Two-factor sign-in) first.';
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
export interface StaffSession extends StaffActor {
  sessionId: number;
  xsrfKeyHash: string;
  createdAt: Date;
  lastUsedAt: Date;
}

export interface StaffDeps {
  db: Database;
  /** APP_SECRET and the replaced ones (lib/keyring.ts): two-factor secrets, device cookies. */
  keys: Keyring;
  limiter: RateLimiter;
  brands: BrandRegistry;
  users: UsersService;
  /** The account deletion the customer's own uses (every area's personal data, README: the data map). */
  erasure: AccountErasure;
  billing: BillingServices;
  vpn: VpnServices;
  /** The customer's stealth credentials (the console's reset rotates them too). */
  stealth: Pick<StealthService, 'rotateForStaff'>;
  jobs: JobEngine;
  /** The account's security notices: a recovery code used at the console's sign-in is mailed as at the customer's. */
  security?: SecurityMails;
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

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null | undefined) => (d === null || d === undefined ? null : iso(d));
const asLanguage = (l: string) =>
  (LANGUAGES as readonly string[]).includes(l) ? (l as (typeof LANGUAGES)[number]) : 'en';
const asStatus = (s: string) => (s === 'Active' || s === 'Suspended' ? s : 'Inactive');
/** Inside the money-back window as the customer's own refund counts it (from when it was paid). */
const isWithinMoneyBackWindow = (p: PaymentRow, at: Date, days: number) =>
  isWithinMoneyBack(new Date(p.paid_at ?? p.created_at), at, days);

/**
 * The operator console (issue 15): staff sign-in with two-factor, short sessions, the customer view
 * and actions, locations, nodes and jobs, each action written to the append-only audit log. It uses
 * the same services as the customer's API and the operator's CLI (billing operator, renewals, the
 * VPN admin), so a grant or a refund from the console is the one the CLI makes.
 */
export function staffService(deps: StaffDeps) {
  const { db, limiter, billing, vpn } = deps;
  const now = deps.now ?? (() => new Date());
  const chainRepo = staffRepository(db);
  /** Every write exports the chain's new head (a log line; the metric reads the head table): a later deletion of the newest rows shows against it. */
  const repo = {
    ...chainRepo,
    async audit(a: NewAudit): Promise<AuditHead> {
      const head = await chainRepo.audit(a);
      deps.log?.info?.({ staffAuditHead: head }, 'staff audit appended');
      return head;
    },
  };
  const usersRepo = usersRepository(db);
  const factor = secondFactor(usersRepo, deps.keys);
  const devices = staffDevices(deps.keys.appSecrets());

  const audit = (
    actor: StaffActor,
    action: StaffAuditAction,
    target: { userId?: number | null; text?: string },
    detail: Record<string, unknown> = {},
  ) =>
    repo.audit({
      actorUserId: actor.userId,
      actor: actor.email,
      role: actor.role,
      action,
      targetUserId: target.userId ?? null,
      target: target.text ?? '',
      detail,
      ip: actor.ip,
      userAgent: actor.userAgent,
    });

  const meOf = (s: { email: string; role: StaffRole; createdAt: Date; lastUsedAt: Date }): StaffMe => ({
    email: s.email,
    role: s.role,
    expiresAt: new Date(
      Math.min(s.lastUsedAt.getTime() + STAFF_IDLE_MS, s.createdAt.getTime() + STAFF_ABSOLUTE_MS),
    ).toISOString(),
    absoluteExpiresAt: new Date(s.createdAt.getTime() + STAFF_ABSOLUTE_MS).toISOString(),
  });

  async function customerRow(id: number): Promise<CustomerRow> {
    const row = await repo.customer(id);
    if (!row) throw new NotFoundError('No such customer.');
    return row;
  }

  /**
   * The account a support action is about: a support member does not act on a staff member's account
   * (an admin's, a colleague's, their own: ending an admin's console session, granting themselves
   * days). Admins do; the admin-only actions need the admin role anyway.
   */
  async function targetOf(actor: StaffActor, id: number): Promise<CustomerRow> {
    const row = await customerRow(id);
    if (actor.role !== 'admin' && row.staff_role)
      throw new ForbiddenError("Only an admin acts on a staff member's account.");
    return row;
  }

  const summaryOf = (r: CustomerRow): StaffCustomerSummary => ({
    id: r.id,
    email: r.email,
    verified: r.verified,
    status: asStatus(r.account_status),
    createdAt: iso(r.created_at),
    tariffName: r.tariff_name,
    expiresAt: isoOrNull(r.subscription_expires_at),
  });

  async function view(id: number): Promise<StaffCustomer> {
    const row = await customerRow(id);
    const [subscription, history, payments, deviceRows, creds, sessions, mails] = await Promise.all([
      billing.renewals.infoOf(id),
      billing.history.list(id),
      billing.operator.payments(id),
      repo.devices(id),
      repo.serviceCredentials(id),
      repo.activeSessions(id),
      repo.mails(id, 50),
    ]);
    const byPublicId = new Map(payments.map((p) => [p.public_id, p]));
    const devices = new Map<number, StaffCustomer['devices'][number]>();
    for (const d of deviceRows) {
      const device = devices.get(d.id) ?? { id: d.id, name: d.name, createdAt: iso(d.created_at), nodes: [] };
      devices.set(d.id, device);
      if (d.node) {
        device.nodes.push({
          location: d.location ?? '',
          city: d.city ?? '',
          node: d.node,
          lastHandshakeAt: isoOrNull(d.last_handshake_at),
          rxBytes: Number(d.rx_bytes ?? 0),
          txBytes: Number(d.tx_bytes ?? 0),
          updatedAt: iso(d.updated_at ?? d.created_at),
        });
      }
    }
    return {
      account: {
        id: row.id,
        email: row.email,
        verified: row.verified,
        status: asStatus(row.account_status),
        createdAt: iso(row.created_at),
        twoFactorEnabled: row.totp_enabled,
        language: asLanguage(row.language),
        brand: row.brand,
        staffRole: row.staff_role,
      },
      subscription,
      payments: history.items.map((item) => {
        const p = byPublicId.get(item.paymentId);
        // A support grant moved no money: there is nothing to give back (the console offers no refund for it).
        const refundable =
          item.kind !== 'refund' && !!p && p.status === 'succeeded' && p.applied && p.provider !== 'grant';
        const inside = !!p && isWithinMoneyBackWindow(p, now(), history.moneyBackDays);
        return { ...item, staffRefundable: refundable, insideWindow: item.kind !== 'refund' && inside };
      }),
      moneyBackDays: history.moneyBackDays,
      devices: [...devices.values()],
      services: { present: !!creds, username: creds?.username ?? null, updatedAt: isoOrNull(creds?.updated_at) },
      sessions: { active: sessions },
      mails: mails.map((m) => ({ kind: m.kind, sentAt: iso(m.sent_at) })),
    };
  }

  const answer = async (id: number) => ({ customer: await view(id) });

  type StealthStatus = Awaited<ReturnType<VpnServices['stealthNodes']['nodeGauges']>>[number];
  function nodeOf(
    r: Awaited<ReturnType<typeof repo.locationsWithNodes>>[number],
    st: StealthStatus | undefined,
  ): StaffNode {
    const lastSeen = r.last_seen_at ? new Date(r.last_seen_at) : null;
    return {
      name: r.node!,
      location: r.slug,
      endpointHost: r.endpoint_host ?? '',
      listenPort: r.listen_port ?? 0,
      enabled: !!r.enabled,
      demo: !!r.demo,
      hasToken: r.has_token,
      lastSeenAt: lastSeen?.toISOString() ?? null,
      online: !!lastSeen && now().getTime() - lastSeen.getTime() < 3 * NODE_REPORT_INTERVAL_S * 1000,
      activePeers: r.active_peers ?? 0,
      load: r.load,
      drainingSince: isoOrNull(r.draining_since),
      agentVersion: r.agent_version,
      lastApplyError: r.last_apply_error,
      wireguard: wireguardOf(r),
      stealth: st
        ? {
            up: st.up,
            version: st.version,
            users: Number(st.users),
            host: st.host,
            port: Number(st.port),
            certNotAfter:
              st.cert_not_after_s === null ? null : new Date(Number(st.cert_not_after_s) * 1000).toISOString(),
          }
        : null,
    };
  }

  /** The node's WireGuard capacity as reported, with the API's limit (the high-water mark) and whether it takes new devices. */
  function wireguardOf(r: {
    wg_kind: 'kernel' | 'userspace' | null;
    wg_max_peers: number | null;
    wg_peers: number | null;
    wg_refused: number | null;
  }): StaffNode['wireguard'] {
    if (!r.wg_kind || r.wg_max_peers === null) return null;
    const c = { maxPeers: r.wg_max_peers, peers: r.wg_peers ?? 0, refused: r.wg_refused ?? 0 };
    return {
      kind: r.wg_kind,
      ...c,
      limit: nodePeerLimit(c.maxPeers, vpn.highWaterPercent),
      full: nodeIsFull(c, vpn.highWaterPercent),
    };
  }

  async function locations(): Promise<StaffLocation[]> {
    const out = new Map<string, StaffLocation>();
    // The stealth cores as reported (the stealth module's table, read through its node side).
    const [rows, stealth] = await Promise.all([repo.locationsWithNodes(), vpn.stealthNodes.nodeGauges()]);
    const stealthOf = new Map(stealth.map((st) => [st.node, st]));
    for (const r of rows) {
      const l = out.get(r.slug) ?? {
        slug: r.slug,
        countryCode: r.country_code,
        country: r.country,
        city: r.city,
        premium: r.premium,
        visible: r.visible,
        enabled: false,
        nodes: [],
      };
      out.set(r.slug, l);
      if (r.node) {
        const node = nodeOf(r, stealthOf.get(r.node));
        l.nodes.push(node);
        l.enabled ||= node.enabled;
      }
    }
    return [...out.values()];
  }
  async function location(slug: string): Promise<StaffLocation> {
    const l = (await locations()).find((x) => x.slug === slug);
    if (!l) throw new NotFoundError('No such location.');
    return l;
  }
  async function node(name: string): Promise<StaffNode> {
    for (const l of await locations()) for (const n of l.nodes) if (n.name === name) return n;
    throw new NotFoundError('No such node.');
  }

  /** The VPN admin functions answer plain errors (the CLI prints them): mapped to the API's here. */
  async function vpnAdmin<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof DomainError) throw err;
      const message = (err as Error).message;
      if (/exists already/.test(message)) throw new ConflictError(message);
      if (/^No (location|node)/.test(message)) throw new NotFoundError(message);
      if (err && typeof err === 'object' && 'issues' in err) throw new ValidationError({ body: ['Check the fields.'] });
      throw new ValidationError({ body: [message] });
    }
  }

  return {
    // --- sessions ----------------------------------------------------------------------------

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
      ctx: { ip: string; userAgent: string; xsrfKey: string; device?: string },
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
        await repo.audit({
          actorUserId: userId,
          actor: email.slice(0, 254),
          role,
          action: 'sign-in-failed',
          targetUserId: userId,
          target: email.slice(0, 254),
          detail: { why },
        });
      };

      const row = await usersRepo.findByEmail(email);
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
      if (!row.totp_enabled) {
        await failed('two-factor-off', row.id, role);
        throw new DomainError(403, NEEDS_TWO_FACTOR, { code: [NEEDS_TWO_FACTOR] });
      }
      await spend(limiter, LIMITS.secondFactorPerUser, String(row.id));
      // A recovery code is spent here as at the customer sign-in (one conditional UPDATE: good once, for both).
      const secondFactorUsed = await factor.check(row, body.code);
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
          ? { secondFactor: 'recovery', recoveryCodesLeft: await usersRepo.recoveryCodesLeft(row.id) }
          : { secondFactor: 'totp' };
      await repo.audit({
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
      await repo.expireAddresses(
        new Date(at.getTime() - STAFF_AUDIT_ADDRESS_DAYS * 86_400_000),
        `staff addresses are kept ${STAFF_AUDIT_ADDRESS_DAYS} days`,
      );
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
      await audit(s, 'sign-out', { userId: s.userId, text: s.email });
    },

    // --- customers ---------------------------------------------------------------------------

    async search(q: string): Promise<StaffCustomerSummary[]> {
      return (await repo.search(q, STAFF_SEARCH_LIMIT)).map(summaryOf);
    },
    async customer(actor: StaffActor, id: number): Promise<StaffCustomer> {
      const c = await view(id);
      await audit(actor, 'customer-view', { userId: id, text: c.account.email });
      return c;
    },

    async grantDays(actor: StaffActor, id: number, days: number, reason: string) {
      const c = await targetOf(actor, id);
      const p = await billing.operator.grantDays(id, days);
      await audit(
        actor,
        'grant-days',
        { userId: id, text: c.email },
        { days, reason, paymentId: p.public_id, until: isoOrNull(p.period_end) },
      );
      return answer(id);
    },

    /**
     * Refund by staff: inside the money-back window as the customer gets it; outside only when asked
     * (outsideWindow). The money goes back through the provider's refund call where it has one
     * (claimed once, as the customer's own refund); otherwise staff gave it back at the provider and
     * this records it. Either way the operator's refund takes the period back, exactly once.
     */
    async refund(actor: StaffActor, id: number, body: { paymentId: string; reason: string; outsideWindow?: boolean }) {
      const c = await customerRow(id);
      const payment = (await billing.operator.payments(id)).find((p) => p.public_id === body.paymentId);
      if (!payment) throw new NotFoundError('No such payment.');
      if (payment.status === 'refunded') throw new ConflictError('This payment was already refunded.');
      if (payment.status !== 'succeeded' || !payment.applied)
        throw new ValidationError({
          paymentId: [`The payment is ${payment.status}: only a paid payment can be refunded.`],
        });
      if (payment.provider === 'grant')
        throw new ValidationError({ paymentId: ['A grant moved no money: there is nothing to refund.'] });
      const inside = isWithinMoneyBackWindow(payment, now(), deps.moneyBackDays);
      if (!inside && body.outsideWindow !== true) {
        throw new ValidationError({
          outsideWindow: ['The money-back window has closed: confirm a refund outside it.'],
        });
      }
      // As the customer's own refund: under the subscription's lock, auto-renew off before the provider is asked.
      const { viaProvider } = await billing.refunds.giveBack(payment, {
        providerRefused: 'The payment provider did not accept the refund. Try again later.',
      });
      await audit(
        actor,
        'refund',
        { userId: id, text: c.email },
        {
          paymentId: payment.public_id,
          amountMinor: payment.amount_minor,
          currency: payment.currency,
          provider: payment.provider,
          viaProvider,
          outsideWindow: !inside,
          reason: body.reason,
        },
      );
      return answer(id);
    },

    async resendVerification(actor: StaffActor, id: number, reason: string | undefined) {
      const c = await targetOf(actor, id);
      if (c.verified) throw new ValidationError({ email: ['The email is verified already.'] });
      const user = await deps.users.reload(id);
      const brand = deps.brands.byId(c.brand) ?? deps.brands.all()[0]!;
      await deps.users.resendVerification(user, {
        brand,
        ip: actor.ip,
        userAgent: actor.userAgent,
        origin: deps.originOf(brand.id),
      });
      await audit(actor, 'resend-verification', { userId: id, text: c.email }, reason ? { reason } : {});
      return answer(id);
    },

    async autoRenewOff(actor: StaffActor, id: number, reason: string | undefined) {
      const c = await targetOf(actor, id);
      await billing.renewals.setAutoRenewOf(id, false);
      await audit(actor, 'auto-renew-off', { userId: id, text: c.email }, reason ? { reason } : {});
      return answer(id);
    },

    async signOutAll(actor: StaffActor, id: number, reason: string) {
      const c = await targetOf(actor, id);
      const sessions = await repo.signOutAll(id);
      await audit(actor, 'sign-out-all', { userId: id, text: c.email }, { sessions, reason });
      return answer(id);
    },

    /** New OpenVPN/SOCKS5 password and new stealth credentials (with a new subscription URL), for whichever the customer has. */
    async resetServiceCredentials(actor: StaffActor, id: number, reason: string) {
      const c = await customerRow(id);
      const services = !!(await repo.serviceCredentials(id));
      // The new password is never shown to staff: the customer sees it in their dashboard.
      if (services) await vpn.openvpnSocks5.resetPassword(await deps.users.reload(id));
      const stealth = await deps.stealth.rotateForStaff(id);
      if (!services && !stealth)
        throw new ValidationError({ services: ['The customer has no OpenVPN/SOCKS5 or stealth credentials yet.'] });
      await audit(actor, 'reset-service-credentials', { userId: id, text: c.email }, { reason, services, stealth });
      return answer(id);
    },

    async setDisabled(actor: StaffActor, id: number, disabled: boolean, reason: string) {
      const c = await customerRow(id);
      if (!(await repo.setDisabled(id, disabled)))
        throw new ValidationError({
          status: [disabled ? 'The account is disabled already.' : 'The account is not disabled.'],
        });
      // A disabled account is signed out everywhere (and cannot sign in: users service).
      if (disabled) await repo.signOutAll(id);
      await audit(
        actor,
        disabled ? 'disable' : 'enable',
        { userId: id, text: c.email },
        { reason, previousStatus: c.account_status },
      );
      return answer(id);
    },

    /** The customer's own deletion (personal data erased, sessions and links end). */
    async deleteCustomer(actor: StaffActor, id: number, reason: string) {
      const c = await customerRow(id);
      if (id === actor.userId) throw new ValidationError({ id: ['Staff cannot delete their own account here.'] });
      // Deleted by a parallel request (the customer, another admin): nothing left to erase or audit.
      if (!(await deps.erasure.erase(id))) throw new NotFoundError('No such customer.');
      await audit(actor, 'delete', { userId: id, text: c.email }, { reason });
      return { customer: null };
    },

    // --- audit -------------------------------------------------------------------------------

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
    /** The recorded pseudonymisation of an account in the audit (account deletion): see the repository. */
    pseudonymiseAccount: (userId: number, reason: string) => chainRepo.pseudonymiseAccount(userId, reason),

    // --- locations and nodes -----------------------------------------------------------------

    locations,
    async addLocation(actor: StaffActor, body: StaffAddLocationBody): Promise<StaffLocation> {
      const { visible, ...rest } = body;
      await vpnAdmin(() => vpn.admin.addLocation({ ...rest, dashVisible: visible ?? true }));
      await audit(
        actor,
        'location-add',
        { text: body.slug },
        { countryCode: body.countryCode, city: body.city.en, premium: body.premium, visible: visible ?? true },
      );
      return location(body.slug);
    },
    async patchLocation(
      actor: StaffActor,
      slug: string,
      patch: { enabled?: boolean; premium?: boolean; visible?: boolean },
    ): Promise<StaffLocation> {
      if (!(await repo.locationExists(slug))) throw new NotFoundError('No such location.');
      if (patch.premium !== undefined || patch.visible !== undefined) {
        await vpnAdmin(() => vpn.admin.setLocation(slug, { premium: patch.premium, dashVisible: patch.visible }));
      }
      if (patch.enabled !== undefined) {
        await repo.setLocationNodesEnabled(slug, patch.enabled);
        vpn.watcher.poke();
      }
      await audit(actor, 'location-update', { text: slug }, patch);
      return location(slug);
    },
    async addNode(actor: StaffActor, body: StaffAddNodeBody): Promise<{ node: StaffNode; token: string }> {
      if (!(await repo.locationExists(body.location))) throw new ValidationError({ location: ['No such location.'] });
      const { token } = await vpnAdmin(() => vpn.admin.addNode(body));
      await audit(
        actor,
        'node-add',
        { text: body.name },
        { location: body.location, endpointHost: body.endpointHost, listenPort: body.listenPort ?? 51820 },
      );
      return { node: await node(body.name), token };
    },
    /** Switch a node on or off, or drain it (issue 22: given to no new customer, its customers told to move); one audit row per change asked. */
    async patchNode(
      actor: StaffActor,
      name: string,
      patch: { enabled?: boolean; draining?: boolean },
    ): Promise<StaffNode> {
      if (!(await repo.nodeLocation(name))) throw new NotFoundError('No such node.');
      await vpnAdmin(() => vpn.admin.setNode(name, patch));
      if (patch.draining !== undefined) await audit(actor, 'node-update', { text: name }, { draining: patch.draining });
      if (patch.enabled !== undefined) await audit(actor, 'node-update', { text: name }, { enabled: patch.enabled });
      return node(name);
    },
    async issueNodeToken(actor: StaffActor, name: string): Promise<{ node: StaffNode; token: string }> {
      if (!(await repo.nodeLocation(name))) throw new NotFoundError('No such node.');
      const token = await vpnAdmin(() => vpn.admin.issueNodeToken(name));
      // The token itself is never written: only that one was issued.
      await audit(actor, 'node-token', { text: name });
      return { node: await node(name), token };
    },

    // --- jobs --------------------------------------------------------------------------------

    async jobs(state?: string): Promise<StaffJob[]> {
      return (await deps.jobs.list()).filter((j) => !state || j.state === state);
    },
    async retryJob(actor: StaffActor, queue: string, id: string): Promise<StaffJob> {
      const outcome = await deps.jobs.retry(queue, id);
      if (outcome === 'missing') throw new NotFoundError('No such job.');
      if (outcome === 'not-failed') throw new ValidationError({ id: ['Only a failed job can be retried.'] });
      await audit(actor, 'job-retry', { text: `${queue}/${id}` }, { queue, id });
      const job = (await deps.jobs.list({ all: true })).find((j) => j.id === id);
      return (
        job ?? { queue, id, state: 'retry', data: null, startAfter: now().toISOString(), retryCount: 0, output: null }
      );
    },

    // --- roles (the operator's CLI only) -----------------------------------------------------

    async grantRole(
      email: string,
      role: StaffRole,
    ): Promise<{ userId: number; previous: StaffRole | null; twoFactor: boolean }> {
      const user = await usersRepo.findByEmail(email);
      if (!user) throw new NotFoundError(`No account with the email ${email}.`);
      const previous = await repo.setRole(user.id, role);
      await repo.audit({
        actorUserId: null,
        actor: CLI_ACTOR,
        role: 'operator',
        action: 'role-grant',
        targetUserId: user.id,
        target: user.email,
        detail: { role, previous },
      });
      return { userId: user.id, previous, twoFactor: user.totp_enabled };
    },
    async revokeRole(email: string): Promise<boolean> {
      const user = await usersRepo.findByEmail(email);
      if (!user) throw new NotFoundError(`No account with the email ${email}.`);
      const role = await repo.roleOf(user.id);
      if (!(await repo.removeRole(user.id))) return false;
      await repo.audit({
        actorUserId: null,
        actor: CLI_ACTOR,
        role: 'operator',
        action: 'role-revoke',
        targetUserId: user.id,
        target: user.email,
        detail: { role },
      });
      return true;
    },
    /**
     * Grants or takes away the affiliate-portal flag (the spec's portal rule: the menu's affiliate
     * link opens the brand's portal), audited as the operator like a role. `changed` is false when
     * the account already had that value (still audited: the operator asked).
     */
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
      await repo.audit({
        actorUserId: null,
        actor: CLI_ACTOR,
        role: 'operator',
        action,
        targetUserId: null,
        target,
        detail,
      });
    },
    async setAffiliatePortal(
      email: string,
      enabled: boolean,
    ): Promise<{ userId: number; brand: string; changed: boolean }> {
      const user = await usersRepo.findByEmail(email);
      if (!user) throw new NotFoundError(`No account with the email ${email}.`);
      const previous = await usersRepo.setAffiliatePortal(user.id, enabled);
      if (previous === null) throw new NotFoundError(`No account with the email ${email}.`);
      await repo.audit({
        actorUserId: null,
        actor: CLI_ACTOR,
        role: 'operator',
        action: 'affiliate-portal',
        targetUserId: user.id,
        target: user.email,
        detail: { enabled, previous },
      });
      return { userId: user.id, brand: user.brand, changed: previous !== enabled };
    },
    members: () => repo.members(),
  };
}
export type StaffService = ReturnType<typeof staffService>;
