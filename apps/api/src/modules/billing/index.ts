import type { Database } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import type { PaymentProvider } from '../../payments/provider.js';
import type { Catalogue } from './catalogue.js';
import type { Brand } from '../../brands/registry.js';
import { checkoutService } from './checkout.js';
import { historyService } from './history.js';
import { receiptsService } from './receipts.js';
import { refundRequestService } from './refund-request.js';
import { operatorService } from './operator.js';
import { pricesService } from './prices.js';
import { type BillingTestHooks, type ReconcileDeps, reconciliationService } from './reconcile.js';
import { type RenewalsDeps, type RenewalsService, renewalsService } from './renewals.js';
import type { PaymentRow } from './repository.js';
import { switchingService } from './switching.js';
import { billingAddressService } from './billing-address.js';

/**
 * The billing module as other modules and the composition see it. Inside: prices.ts (plans,
 * prices, quotes, discount windows), checkout.ts (a member pays; plan info), reconcile.ts
 * (provider webhooks, re-reading the provider, applying and refunding, lapsed plans),
 * operator.ts (grants, refunds, prices by hand), repository.ts (every billing table's SQL),
 * renewals.ts and renewals-repository.ts (auto-renew, renewal charges and retries, billing
 * mails), routes.ts, subscription-routes.ts and webhook-routes.ts (HTTP), jobs.ts (the job
 * engine: pg-boss queues for the renewal pass, renewal charges, postbacks, sandbox webhooks).
 */
export interface BillingDeps {
  db: Database;
  catalogue: Catalogue;
  providers: Partial<Record<string, PaymentProvider>>;
  mailer: Mailer;
  defer: (task: () => Promise<unknown>) => void;
  moneyBackDays: number;
  postbackUrls: string[];
  isKnownHost: (host: string) => boolean;
  brandName: (brandId: string) => string;
  /** A brand by id (a member's brand): receipts print its seller. */
  brandOf: (brandId: string) => Brand;
  /** Called after a payment newly applied (rewards). */
  onPaymentApplied?: (payment: PaymentRow, firstPurchase: boolean) => Promise<void>;
  /** A payment newly failed or refunded (metrics). */
  onPaymentOutcome?: ReconcileDeps['onPaymentOutcome'];
  /** A renewal charge's outcome, by provider (metrics). */
  onRenewal?: RenewalsDeps['onRenewal'];
  /** Signs the discount windows' first-visit cookies (the app secret). */
  secret: string;
  testHooks?: BillingTestHooks;
  now?: () => Date;
  /** Background failures (a provider lookup after a payment). */
  log?: { error: (obj: object, msg: string) => void };
  /** Renewals (renewals.ts): mail links, the brand's auto-renew default, the lead before paid-until, the providers' notify URL. */
  renewals: Pick<
    RenewalsDeps,
    'originOf' | 'isTrustedOrigin' | 'autoRenewDefault' | 'leadDays' | 'retryDays' | 'notifyUrl'
  >;
}

/** Builds the billing area's services; composition.ts calls it once per process. */
export function billingServices(deps: BillingDeps) {
  const now = deps.now ?? (() => new Date());
  const prices = pricesService({ db: deps.db, catalogue: deps.catalogue, secret: deps.secret, now });
  const checkout = checkoutService({
    db: deps.db,
    prices,
    providers: deps.providers,
    isKnownHost: deps.isKnownHost,
    moneyBackDays: deps.moneyBackDays,
    now,
  });
  // Reconciliation calls renewals (receipts, saved methods) and renewals call reconciliation (apply a charge): bound late.
  const late: { renewals?: RenewalsService } = {};
  const reconciliation = reconciliationService({
    db: deps.db,
    prices,
    providers: deps.providers,
    mailer: deps.mailer,
    defer: deps.defer,
    postbackUrls: deps.postbackUrls,
    brandName: deps.brandName,
    onPaymentApplied: deps.onPaymentApplied,
    onPaymentOutcome: deps.onPaymentOutcome,
    testHooks: deps.testHooks,
    now,
    renewals: () => late.renewals!,
    log: deps.log,
  });
  const renewals = (late.renewals = renewalsService({
    db: deps.db,
    prices,
    providers: deps.providers,
    reconciliation,
    mailer: deps.mailer,
    brandName: deps.brandName,
    now,
    ...deps.renewals,
    supportUrl: (brandId) => deps.brandOf(brandId).helpCenterUrl,
    onRenewal: deps.onRenewal,
    onPaymentOutcome: deps.onPaymentOutcome,
    receiptPdf: (userId, publicId, language) => receipts.pdf(userId, publicId, language),
    billedTo: (userId, publicId) => receipts.billedTo(userId, publicId).catch(() => undefined),
  }));
  const operator = operatorService({
    db: deps.db,
    catalogue: deps.catalogue,
    prices,
    reconciliation,
    moneyBackDays: deps.moneyBackDays,
    now,
  });
  // The customer's side of issue 13: payment history, receipts, money-back from the dashboard.
  const history = historyService({
    db: deps.db,
    prices,
    providers: deps.providers,
    moneyBackDays: deps.moneyBackDays,
    now,
  });
  const receipts = receiptsService({ db: deps.db, prices, brandOf: deps.brandOf });
  const refunds = refundRequestService({
    db: deps.db,
    providers: deps.providers,
    operator,
    moneyBackDays: deps.moneyBackDays,
    now,
  });
  // Switching plans from /subscription (issue 23): a longer period now with a credit, a shorter one at the renewal.
  const switching = switchingService({
    db: deps.db,
    prices,
    providers: deps.providers,
    renewals,
    isKnownHost: deps.isKnownHost,
    now,
  });
  // The billing address and VAT number printed on receipts (issue 23).
  const addresses = billingAddressService(deps.db);
  return { prices, checkout, reconciliation, operator, history, receipts, refunds, renewals, switching, addresses };
}
export type BillingServices = ReturnType<typeof billingServices>;

export type { BillingTestHooks } from './reconcile.js';
export type { PaymentRow, SandboxHost, TariffRow } from './repository.js';
// What the payment providers (payments/) keep in billing's tables: the sandbox's payments and
// cards, the answers cached for providers without idempotency keys, Payssion's mandates, and the
// member a payment reference belongs to.
export {
  billingRepository,
  checkoutCacheRepository,
  mandateRepository,
  sandboxRepository,
  type SandboxCardRow,
  type SandboxEvent,
  type SandboxRow,
} from './repository.js';
export type { CheckoutContext } from './checkout.js';
export type { CookieToSet, CookieJar } from './prices.js';
export { readCatalogue, seedCatalogue, type Catalogue } from './catalogue.js';
export { billingRoutes } from './routes.js';
export { webhookRoutes } from './webhook-routes.js';
export { jobEngine, type JobEngine, type JobSummary, QUEUES } from './jobs.js';
export type { RenewalsService, PassResult } from './renewals.js';
export { isPaidActive, isWithinMoneyBack } from './subscription.js';
export { billingErasure } from './erasure.js';
