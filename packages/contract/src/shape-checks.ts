// Hand-written structural checks for the values the web app reads for its first screens:
// the stored user, the brand embedded in index.html, error answers, and the sign-in and
// dashboard answers, and the checkout's first screen (currencies, country, payment methods, price
// list). zod would
// add ~25 kB (gzip) to the first visit, so these stay zod-free; shape-checks.test.ts holds
// them to the zod schemas on valid and broken samples.
import type { AuthResult, User } from './account.js';
import type { PublicBrand } from './brand.js';
import type { ErrorBody } from './errors.js';
import type { z } from 'zod';
import type { PlanInfo, currencies, ipInfo, landingPriceList, paymentMethods } from './billing.js';
import { AD_BLOCK_CATEGORIES, type AdBlockSettings, type Feature } from './account-extras.js';
import { LANGUAGES, PROVIDERS } from './constants.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const isStrOrNull = (v: unknown) => v === null || isStr(v);
const isStrArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const oneOf = <T extends string>(values: readonly T[], v: unknown): v is T =>
  isStr(v) && (values as readonly string[]).includes(v);

const ACCOUNT_STATUSES = ['Active', 'Inactive', 'Suspended'] as const;
const BRAND_KINDS = ['vpn', 'proxy'] as const;
const CAPTCHA_PROVIDERS = ['none', 'recaptcha', 'turnstile'] as const;
const SCRIPT_KINDS = ['analytics', 'session-recording', 'tag-manager', 'help-chat', 'web-analytics'] as const;

export function isUserShape(v: unknown): v is User {
  if (!isObj(v)) return false;
  const sub = v.subscriptionData;
  return (
    Number.isInteger(v.id) &&
    isStr(v.email) &&
    (v.verified === 0 || v.verified === 1) &&
    oneOf(ACCOUNT_STATUSES, v.accountStatus) &&
    isStr(v.firstName) &&
    isStr(v.secondName) &&
    oneOf(LANGUAGES, v.language) &&
    isBool(v.isPostAffiliateAvailable) &&
    isBool(v.isWgSectionAvailable) &&
    isBool(v.twoFactorEnabled) &&
    isObj(sub) &&
    isStr(sub.tariffName) &&
    isStr(sub.tariffKey) &&
    isStrOrNull(sub.expiresAt)
  );
}

/** Like the zod schema, a missing `scripts` list counts as empty. */
export function asPublicBrand(v: unknown): PublicBrand | null {
  if (!isObj(v)) return null;
  const captcha = v.captcha;
  const chat = v.supportChat;
  const scripts = v.scripts === undefined ? [] : v.scripts;
  const ok =
    isStr(v.id) &&
    isStr(v.productName) &&
    oneOf(BRAND_KINDS, v.kind) &&
    isStr(v.logo) &&
    isBool(v.mainProduct) &&
    isBool(v.paymentFirst) &&
    isStr(v.helpCenterUrl) &&
    isStrOrNull(v.affiliatePortalUrl) &&
    (chat === null || (isObj(chat) && isStr(chat.botUrl))) &&
    isStrOrNull(v.restrictedKey) &&
    isObj(captcha) &&
    oneOf(CAPTCHA_PROVIDERS, captcha.provider) &&
    isStrOrNull(captcha.siteKey) &&
    isStrArray(v.testAccountSuffixes) &&
    isStrArray(v.redirectHosts) &&
    Array.isArray(scripts) &&
    scripts.every((s) => isObj(s) && oneOf(SCRIPT_KINDS, s.kind) && isStr(s.src));
  return ok ? ({ ...v, scripts } as PublicBrand) : null;
}

export function isErrorBodyShape(v: unknown): v is ErrorBody {
  if (!isObj(v) || !isStr(v.message)) return false;
  if (v.errors === undefined) return true;
  return isObj(v.errors) && Object.values(v.errors).every(isStrArray);
}

export function isAuthResultShape(v: unknown): v is AuthResult {
  return isObj(v) && isStr(v.token) && isUserShape(v.user);
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'refunded'] as const;

const isPaymentSummary = (p: unknown) =>
  isObj(p) &&
  isStr(p.id) &&
  isNum(p.tariff_id) &&
  isStr(p.tariff_name) &&
  isNum(p.amount) &&
  isStr(p.currency) &&
  oneOf(PAYMENT_STATUSES, p.status) &&
  isStr(p.provider) &&
  isStr(p.created_at) &&
  isStrOrNull(p.paid_at);

export function isPlanInfoShape(v: unknown): v is PlanInfo {
  return (
    isObj(v) &&
    (v.lastPayment === undefined || v.lastPayment === null || isPaymentSummary(v.lastPayment)) &&
    isStr(v.tariffName) &&
    isStr(v.tariffKey) &&
    isStrOrNull(v.expiresAt) &&
    isStr(v.accountStatus) &&
    oneOf(['processed', 'processing'] as const, v.paymentStatus) &&
    isNum(v.moneyBackDays) &&
    Array.isArray(v.payments) &&
    v.payments.every(isPaymentSummary)
  );
}

const isFeature = (f: unknown): f is Feature =>
  isObj(f) && isNum(f.id) && isStr(f.name) && isBool(f.isEnabled) && isBool(f.premium);

/** The `{ data: { items } }` answer of setup/features/get. */
export function isFeatureListAnswer(v: unknown): v is { data: { items: Feature[] } } {
  return isObj(v) && isObj(v.data) && Array.isArray(v.data.items) && v.data.items.every(isFeature);
}

/** The answer of setup/features/state. */
export function isFeatureStateResultShape(
  v: unknown,
): v is { result: boolean; data: { id: number; isEnabled: boolean } } {
  return isObj(v) && isBool(v.result) && isObj(v.data) && isNum(v.data.id) && isBool(v.data.isEnabled);
}

/** The answer of setup/features/categories (the ad blocker's switch and categories). */
export function isAdBlockSettingsAnswer(v: unknown): v is { data: AdBlockSettings } {
  return (
    isObj(v) &&
    isObj(v.data) &&
    isBool(v.data.enabled) &&
    Array.isArray(v.data.categories) &&
    v.data.categories.every((c) => (AD_BLOCK_CATEGORIES as readonly unknown[]).includes(c))
  );
}

const isNumOrNull = (v: unknown) => v === null || isNum(v);
const isPromoInfo = (p: unknown) => isObj(p) && isStr(p.code) && isNum(p.percentOff);

/** billing/getCurrencies. */
export function isCurrenciesShape(v: unknown): v is z.infer<typeof currencies> {
  return isObj(v) && isStrArray(v.currencies) && isStr(v.default);
}

/** ip/info. */
export function isIpInfoShape(v: unknown): v is z.infer<typeof ipInfo> {
  return isObj(v) && isStr(v.code) && isStr(v.currency);
}

/** billing/paymentMethods. */
export function isPaymentMethodsShape(v: unknown): v is z.infer<typeof paymentMethods> {
  return (
    isObj(v) &&
    isStr(v.country) &&
    isStr(v.currency) &&
    Array.isArray(v.methods) &&
    v.methods.every((m) => isObj(m) && oneOf(PROVIDERS, m.provider) && isStr(m.type) && isStr(m.label))
  );
}

const isTariffPrice = (p: unknown) =>
  isObj(p) &&
  isNum(p.tariffId) &&
  isStr(p.key) &&
  isStr(p.name) &&
  isNumOrNull(p.periodDays) &&
  isBool(p.isLifetime) &&
  isBool(p.isTrial) &&
  isStr(p.currency) &&
  isNum(p.amount) &&
  isNum(p.listAmount) &&
  isNum(p.discountPercent) &&
  isNumOrNull(p.monthlyAmount) &&
  (p.promo === undefined || p.promo === null || isPromoInfo(p.promo));

/** billing/getLandingPriceList. */
export function isLandingPriceListShape(v: unknown): v is z.infer<typeof landingPriceList> {
  return (
    isObj(v) &&
    isStr(v.currency) &&
    isStr(v.priceList) &&
    Array.isArray(v.plans) &&
    v.plans.every(isTariffPrice) &&
    (v.promo === null || isPromoInfo(v.promo)) &&
    (v.offerSecondsLeft === undefined || isNumOrNull(v.offerSecondsLeft))
  );
}
