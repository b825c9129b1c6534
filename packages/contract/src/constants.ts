/** Business constants of the specification (section 9) and the limits we chose where it is silent. */
export const LANGUAGES = ['en', 'ru', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const EMAIL_MAX = 254;
export const NAME_MAX = 100;
/** Attribution and marketing fields are opaque ids: keep them short so nobody stores essays in them. */
export const ATTRIBUTION_MAX = 200;

export const DAY_MS = 24 * 60 * 60 * 1000;
export const DISCOUNT_WINDOW_MS = DAY_MS;
export const IS_USER_EXIST_COOKIE_DAYS = 1000;
export const CAMPAIGN_COOKIE_DAYS = 365;
export const USER_COOKIE_MAX_AGE_S = 31_104_000;
export const MONEY_BACK_DAYS = 7;
export const SPECIAL_OFFER_HOURS = 48;
/** The plan whose single first payment qualifies a member for the special offer (the monthly one). */
export const SPECIAL_OFFER_TARIFF_ID = 2;
/** The plan the special offer sells at the 'special-offer' price list (the yearly one). */
export const SPECIAL_OFFER_SELLS_TARIFF_ID = 3;
export const SPECIAL_OFFER_HIDE_UNDER_S = 60;
export const SIDEBAR_BREAKPOINT_PX = 1200;
export const PAGE_TOP_PADDING_PX = 62;
export const RANDOM_STRING_LENGTH = 20;

/** Snackbar durations of the error catalogue (section 8), in milliseconds. */
export const SNACKBAR_MS = {
  httpError: 3000,
  signUpError: 2000,
  resetPasswordError: 5000,
  paymentProcessing: 5000,
  notVerified: 8000,
} as const;

export const FREE_TARIFF_KEY = 'free-plan';

/** Local storage keys of the specification (section 3). */
export const STORAGE_KEYS = {
  token: 'token',
  user: 'user',
  referralID: 'referralID',
  friendID: 'friendID',
  clickID: 'clickID',
  vcommID: 'vcommID',
  myleadID: 'myleadID',
  papReferralID: 'papReferralID',
  tariffName: 'tariffName',
  lastPathname: 'lastPathname',
  firstPathname: 'firstPathname',
  userSubscrHash: 'userSubscrHash',
  userSubscrHashTime: 'userSubscrHashTime',
  i18nLang: 'i18nLang',
  voluumID: 'voluumID',
} as const;

/** Cookie names of the specification (section 3). */
export const COOKIES = {
  voluumCid: 'vl-cid',
  utmSource: 'utm_source',
  utmMedium: 'utm_medium',
  utmCampaign: 'utm_campaign',
  referrer: 'referrer',
  papAffiliateId: 'a_aid',
  ref: 'ref',
  /** Ids the checkout entry keeps in local storage too; the entry page's answer sets these cookies before any script runs (attribution.ts). */
  friendID: 'friend_id',
  vcommID: 'vcomm_id',
  myleadID: 'mylead_id',
  clickID: 'click_id',
  isUserExist: 'isUserExist',
  discount15: 'discount15FirstVisit',
  discount25: 'discount25FirstVisit',
  xsrf: 'XSRF-TOKEN',
} as const;

export const XSRF_HEADER = 'x-xsrf-token';

/** Status codes the web app's error catalogue knows about (DESIGN.md, "Errors"). */
export const HTTP = {
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  payloadTooLarge: 413,
  xsrfMismatch: 419,
  validation: 422,
  locked: 423,
  tooManyRequests: 429,
} as const;

/** The payment providers (billing.ts's schemas and the zod-free shape checks read this list). */
export const PROVIDERS = ['sandbox', 'stripe', 'payssion', 'payssionv2', 'cardlink'] as const;
export type PaymentProviderId = (typeof PROVIDERS)[number];
