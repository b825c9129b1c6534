import { LANGUAGES, STAFF_SEARCH_LIMIT, type StaffCustomer, type StaffCustomerSummary } from '@warren/contract';
import type { BrandRegistry } from '../../brands/registry.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { type BillingServices, type PaymentRow, isWithinMoneyBack } from '../billing/index.js';
import type { VpnServices } from '../nodes/index.js';
import type { StealthService } from '../stealth/index.js';
import type { AccountErasure, UsersService } from '../users/index.js';
import type { StaffActor, StaffAudit } from './audit.js';
import { rarestTrigrams, trigramCounts } from './email-search.js';
import type { CustomerRow, StaffRepository } from './repository.js';

export interface StaffCustomersDeps {
  repo: Pick<
    StaffRepository,
    | 'customer'
    | 'search'
    | 'emailSample'
    | 'devices'
    | 'serviceCredentials'
    | 'activeSessions'
    | 'mails'
    | 'endSessionsOf'
  >;
  audit: Pick<StaffAudit, 'record'>;
  /** The customer's account (the users module, the one writer of users and auth_tokens): reloaded, disabled, signed out. */
  accounts: Pick<
    UsersService,
    'reload' | 'resendVerification' | 'signOutEverywhere' | 'setDisabled' | 'setAffiliatePortal'
  >;
  /** The account deletion the customer's own uses (every area's personal data, README: the data map). */
  erasure: Pick<AccountErasure, 'erase'>;
  /** The same billing operations as the customer's and the CLI's: a grant or a refund here is theirs. */
  billing: {
    renewals: Pick<BillingServices['renewals'], 'infoOf' | 'setAutoRenewOf'>;
    history: Pick<BillingServices['history'], 'list'>;
    operator: Pick<BillingServices['operator'], 'payments' | 'grantDays'>;
    refunds: Pick<BillingServices['refunds'], 'giveBack'>;
  };
  openvpnSocks5: Pick<VpnServices['openvpnSocks5'], 'resetPassword'>;
  /** The customer's stealth credentials (the console's reset rotates them too). */
  stealth: Pick<StealthService, 'rotateForStaff'>;
  brands: Pick<BrandRegistry, 'byId' | 'all'>;
  /** The customer's links (verification mail): PUBLIC_URL, else the brand's host. */
  originOf: (brandId: string) => string;
  moneyBackDays: number;
  now: () => Date;
}

/** How many addresses tell the common parts of addresses from the rare ones, and for how long they do (an hour). */
const EMAIL_SAMPLE_SIZE = 2000;
const EMAIL_SAMPLE_MS = 60 * 60 * 1000;

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null | undefined) => (d === null || d === undefined ? null : iso(d));
const asLanguage = (l: string) =>
  (LANGUAGES as readonly string[]).includes(l) ? (l as (typeof LANGUAGES)[number]) : 'en';
const asStatus = (s: string) => (s === 'Active' || s === 'Suspended' ? s : 'Inactive');
/** Inside the money-back window as the customer's own refund counts it (from when it was paid). */
const isWithinMoneyBackWindow = (p: PaymentRow, at: Date, days: number) =>
  isWithinMoneyBack(new Date(p.paid_at ?? p.created_at), at, days);

/**
 * The console's customers: search, the customer view, and the support actions on an account
 * (grant days, refund, resend verification, auto-renew off, sign out everywhere, new service
 * credentials, disable, delete), each audited.
 */
export function staffCustomers(deps: StaffCustomersDeps) {
  const { repo, audit, billing, now } = deps;

  // Per instance, taken on the first search: what the search's index lookups avoid (email-search.ts).
  let sample: { at: number; counts: Promise<Map<string, number>> } | undefined;
  function trigramSample(): Promise<Map<string, number>> {
    const at = now().getTime();
    if (!sample || at - sample.at > EMAIL_SAMPLE_MS) {
      const counts = repo.emailSample(EMAIL_SAMPLE_SIZE).then(trigramCounts);
      sample = { at, counts };
      // A failed read is not kept: the next search tries again.
      counts.catch(() => {
        if (sample?.counts === counts) sample = undefined;
      });
    }
    return sample.counts;
  }

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
        affiliatePortal: row.is_post_affiliate_available,
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

  return {
    async search(q: string): Promise<StaffCustomerSummary[]> {
      const lookFor = rarestTrigrams(q, await trigramSample());
      return (await repo.search(q, lookFor, STAFF_SEARCH_LIMIT)).map(summaryOf);
    },
    async customer(actor: StaffActor, id: number): Promise<StaffCustomer> {
      const c = await view(id);
      await audit.record(actor, 'customer-view', { userId: id, text: c.account.email });
      return c;
    },

    async grantDays(actor: StaffActor, id: number, days: number, reason: string) {
      const c = await targetOf(actor, id);
      const p = await billing.operator.grantDays(id, days);
      await audit.record(
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
      await audit.record(
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
      const user = await deps.accounts.reload(id);
      const brand = deps.brands.byId(c.brand) ?? deps.brands.all()[0]!;
      await deps.accounts.resendVerification(user, {
        brand,
        ip: actor.ip,
        userAgent: actor.userAgent,
        origin: deps.originOf(brand.id),
      });
      await audit.record(actor, 'resend-verification', { userId: id, text: c.email }, reason ? { reason } : {});
      return answer(id);
    },

    async autoRenewOff(actor: StaffActor, id: number, reason: string | undefined) {
      const c = await targetOf(actor, id);
      await billing.renewals.setAutoRenewOf(id, false);
      await audit.record(actor, 'auto-renew-off', { userId: id, text: c.email }, reason ? { reason } : {});
      return answer(id);
    },

    async signOutAll(actor: StaffActor, id: number, reason: string) {
      const c = await targetOf(actor, id);
      const sessions = await deps.accounts.signOutEverywhere(id);
      await repo.endSessionsOf(id);
      await audit.record(actor, 'sign-out-all', { userId: id, text: c.email }, { sessions, reason });
      return answer(id);
    },

    /** New OpenVPN/SOCKS5 password and new stealth credentials (with a new subscription URL), for whichever the customer has. */
    async resetServiceCredentials(actor: StaffActor, id: number, reason: string) {
      const c = await customerRow(id);
      const services = !!(await repo.serviceCredentials(id));
      // The new password is never shown to staff: the customer sees it in their dashboard.
      if (services) await deps.openvpnSocks5.resetPassword(await deps.accounts.reload(id));
      const stealth = await deps.stealth.rotateForStaff(id);
      if (!services && !stealth)
        throw new ValidationError({ services: ['The customer has no OpenVPN/SOCKS5 or stealth credentials yet.'] });
      await audit.record(
        actor,
        'reset-service-credentials',
        { userId: id, text: c.email },
        { reason, services, stealth },
      );
      return answer(id);
    },

    async setDisabled(actor: StaffActor, id: number, disabled: boolean, reason: string) {
      const c = await customerRow(id);
      if (!(await deps.accounts.setDisabled(id, disabled)))
        throw new ValidationError({
          status: [disabled ? 'The account is disabled already.' : 'The account is not disabled.'],
        });
      // A disabled account is signed out everywhere (and cannot sign in: users service).
      // (Its console sessions end by trigger: staff_credentials_changed.)
      if (disabled) await deps.accounts.signOutEverywhere(id);
      await audit.record(
        actor,
        disabled ? 'disable' : 'enable',
        { userId: id, text: c.email },
        { reason, previousStatus: c.account_status },
      );
      return answer(id);
    },

    /**
     * The affiliate-portal flag (the spec's portal rule: the menu's affiliate link opens the brand's
     * partner portal), as `npx warren affiliate portal` sets it; audited with the reason. Asking for
     * the value it already has is refused (422), so the log holds only changes made here.
     */
    async setCustomerAffiliatePortal(actor: StaffActor, id: number, enabled: boolean, reason: string) {
      const c = await customerRow(id);
      const previous = await deps.accounts.setAffiliatePortal(id, enabled);
      if (previous === null) throw new NotFoundError('No such customer.');
      if (previous === enabled)
        throw new ValidationError({
          enabled: [enabled ? 'The affiliate portal is on already.' : 'The affiliate portal is off already.'],
        });
      await audit.record(actor, 'affiliate-portal', { userId: id, text: c.email }, { reason, enabled, previous });
      return answer(id);
    },

    /** The customer's own deletion (personal data erased, sessions and links end). */
    async deleteCustomer(actor: StaffActor, id: number, reason: string) {
      const c = await customerRow(id);
      if (id === actor.userId) throw new ValidationError({ id: ['Staff cannot delete their own account here.'] });
      // Deleted by a parallel request (the customer, another admin): nothing left to erase or audit.
      if (!(await deps.erasure.erase(id))) throw new NotFoundError('No such customer.');
      await audit.record(actor, 'delete', { userId: id, text: c.email }, { reason });
      return { customer: null };
    },
  };
}
export type StaffCustomers = ReturnType<typeof staffCustomers>;
