import { z } from 'zod';
import { dbId, dbInt } from './numbers.js';
import { EMAIL_MAX, LANGUAGES, PASSWORD_MAX } from './constants.js';
import { accountStatus } from './account.js';
import { authenticationResponse } from './passkeys.js';
import { paymentHistoryItem, paymentPublicId } from './payment-history.js';
import { subscriptionInfo } from './subscription.js';

/*
 * The staff (operator console) API, issue 15 "An operator console". Every answer is `{ data }`,
 * errors the usual `{ message, errors? }`. A staff member is a Warren account with a role granted
 * from the CLI (`npx warren staff grant EMAIL --role support|admin`) and two-factor sign-in on.
 *
 * The staff session is a cookie (STAFF_COOKIE: HttpOnly, SameSite=Strict, Path=/api/staff, Secure
 * in production); a customer's bearer token is never a staff credential and the cookie is never a
 * customer one. Idle timeout STAFF_IDLE_MINUTES, absolute STAFF_ABSOLUTE_HOURS. State-changing calls
 * carry X-XSRF-TOKEN like every other call of the web app. As everywhere in the API the request is
 * validated first (422), then: no staff session → 401; a support member on an admin call → 403
 * (nothing changed, nothing audited), and so on a customer action about an account holding a role
 * (an admin's, a colleague's, their own): only an admin acts on a staff member's account.
 *
 *   method path                                        role     what
 *   POST   /api/staff/session                          -        sign in {email,password,code} → StaffMe, sets the cookie.
 *                                                               403 with errors.code when the account has a role but two-factor is off.
 *   DELETE /api/staff/session                          any      sign out (ends the session) → StaffOk
 *   GET    /api/staff/me                               any      → StaffMe
 *   GET    /api/staff/customers?q=                     any      find by email, part of it, or numeric id (≤ STAFF_SEARCH_LIMIT) → StaffCustomerList
 *   GET    /api/staff/customers/:id                    any      the customer view → StaffCustomer (audited as customer-view)
 *   POST   /api/staff/customers/:id/grant-days         support  {days, reason} → StaffCustomerAnswer
 *   POST   /api/staff/customers/:id/refund             admin    {paymentId, reason, outsideWindow?} → StaffCustomerAnswer
 *   POST   /api/staff/customers/:id/resend-verification support {reason?} → StaffCustomerAnswer (422 when already verified)
 *   POST   /api/staff/customers/:id/auto-renew-off     support  {reason?} → StaffCustomerAnswer
 *   POST   /api/staff/customers/:id/sign-out-all       support  {reason} → StaffCustomerAnswer (ends every customer session)
 *   POST   /api/staff/customers/:id/reset-service-credentials admin {reason} → StaffCustomerAnswer (new OpenVPN/SOCKS5 credentials)
 *   POST   /api/staff/customers/:id/disable            admin    {reason} → StaffCustomerAnswer (account status Suspended, sessions end)
 *   POST   /api/staff/customers/:id/enable             admin    {reason} → StaffCustomerAnswer
 *   POST   /api/staff/customers/:id/delete             admin    {reason} → StaffCustomerAnswer with customer null (the customer's own deletion)
 *   GET    /api/staff/audit?targetUserId=&cursor=      any      newest first, STAFF_AUDIT_PAGE per page → StaffAuditPage
 *   GET    /api/staff/locations                        any      locations with their nodes and live status → StaffLocationList
 *   POST   /api/staff/locations                        admin    add a location → StaffLocation
 *   PATCH  /api/staff/locations/:slug                  admin    {enabled?, premium?, visible?} → StaffLocation
 *                                                               (enabled turns all the location's nodes on or off)
 *   POST   /api/staff/nodes                            admin    add a node → StaffNodeWithToken (the token is shown this once)
 *   PATCH  /api/staff/nodes/:name                      admin    {enabled} → StaffNode
 *   POST   /api/staff/nodes/:name/token                admin    issue a new node token (the old one stops working) → StaffNodeWithToken
 *   GET    /api/staff/jobs?state=                      any      jobs due/running/retrying/failed (state filter optional) → StaffJobList
 *   POST   /api/staff/jobs/:queue/:id/retry            admin    retry a failed job → StaffJob
 *
 * Audit: every staff sign-in (success or failure), sign-out, customer view and action writes one
 * row to an append-only log (a database trigger refuses UPDATE, DELETE and TRUNCATE). A refused
 * action (401/403/404/422) writes nothing. Details carry amounts, days, reasons; never secrets or tokens.
 */

export const STAFF_COOKIE = 'warren_staff';
export const STAFF_IDLE_MINUTES = 15;
export const STAFF_ABSOLUTE_HOURS = 8;
export const STAFF_SEARCH_LIMIT = 20;
export const STAFF_AUDIT_PAGE = 50;
export const STAFF_GRANT_DAYS_MAX = 3650;
export const STAFF_REASON_MAX = 500;

export const STAFF_ROLES = ['support', 'admin'] as const;
export const staffRole = z.enum(STAFF_ROLES);
export type StaffRole = z.infer<typeof staffRole>;

export const STAFF_PATHS = {
  session: '/api/staff/session',
  me: '/api/staff/me',
  customers: '/api/staff/customers',
  audit: '/api/staff/audit',
  locations: '/api/staff/locations',
  nodes: '/api/staff/nodes',
  jobs: '/api/staff/jobs',
} as const;

/** The customer actions (path segment after /api/staff/customers/:id/) and the least role each needs. */
export const STAFF_CUSTOMER_ACTIONS = {
  'grant-days': 'support',
  refund: 'admin',
  'resend-verification': 'support',
  'auto-renew-off': 'support',
  'sign-out-all': 'support',
  'reset-service-credentials': 'admin',
  disable: 'admin',
  enable: 'admin',
  delete: 'admin',
  'affiliate-portal': 'admin',
} as const satisfies Record<string, StaffRole>;
export type StaffCustomerAction = keyof typeof STAFF_CUSTOMER_ACTIONS;

/** What the audit log's `action` column holds. */
export const STAFF_AUDIT_ACTIONS = [
  'sign-in',
  'sign-in-failed',
  'sign-out',
  'customer-view',
  'grant-days',
  'refund',
  'resend-verification',
  'auto-renew-off',
  'sign-out-all',
  'reset-service-credentials',
  'disable',
  'enable',
  'delete',
  'location-add',
  'location-update',
  'node-add',
  'node-update',
  'node-token',
  'job-retry',
  'role-grant',
  'role-revoke',
  /** The affiliate-portal flag switched by the operator (npx warren affiliate portal); detail: { enabled, previous }. */
  'affiliate-portal',
  /** A staff member's passkey added or removed (issue 23), in the console or the profile; detail: { name, where }. */
  'passkey-add',
  'passkey-remove',
  /** Personal fields of earlier rows erased on purpose (account deletion, the retention of staff addresses); detail says which. */
  'pseudonymise',
] as const;
export type StaffAuditAction = (typeof STAFF_AUDIT_ACTIONS)[number];

// --- requests ------------------------------------------------------------------------------

export const staffSignInBody = z
  .object({
    email: z
      .string({ error: 'The email is required.' })
      .trim()
      .toLowerCase()
      .min(1, { error: 'The email is required.' })
      .max(EMAIL_MAX),
    password: z
      .string({ error: 'The password is required.' })
      .min(1, { error: 'The password is required.' })
      .max(PASSWORD_MAX),
    /** A current authenticator (TOTP) code or an unused recovery code; or else `passkey`. */
    code: z
      .string({ error: 'Enter a code from your authenticator app or a recovery code.' })
      .trim()
      .min(6, { error: 'Enter a code from your authenticator app or a recovery code.' })
      .max(32, { error: 'Enter a code from your authenticator app or a recovery code.' })
      .optional(),
    /** The second step as a passkey of the member's account (issue 23), instead of a code. */
    passkey: authenticationResponse.optional(),
  })
  .refine((b) => b.code !== undefined || b.passkey !== undefined, {
    path: ['code'],
    error: 'Enter a code from your authenticator app or a recovery code.',
  });
export type StaffSignInBody = z.infer<typeof staffSignInBody>;

/** Why the staff member does it: stored in the audit log. */
export const staffReason = z
  .string({ error: 'Give a reason.' })
  .trim()
  .min(3, { error: 'Give a reason (at least 3 characters).' })
  .max(STAFF_REASON_MAX, { error: `At most ${STAFF_REASON_MAX} characters.` });

export const staffCustomerParams = z.object({ id: dbId({ coerce: true, error: 'Unknown customer.' }) });
export const staffCustomerSearchQuery = z.object({
  q: z.string().trim().min(1, { error: 'Enter an email or an id.' }).max(EMAIL_MAX),
});

export const staffGrantDaysBody = z.object({
  days: z
    .number({ error: 'Enter a number of days.' })
    .int({ error: 'Whole days.' })
    .min(1, { error: 'At least 1 day.' })
    .max(STAFF_GRANT_DAYS_MAX, { error: `At most ${STAFF_GRANT_DAYS_MAX} days.` }),
  reason: staffReason,
});
export type StaffGrantDaysBody = z.infer<typeof staffGrantDaysBody>;

export const staffRefundBody = z.object({
  /** The payment's public id (a PaymentHistoryItem's paymentId). */
  paymentId: paymentPublicId,
  reason: staffReason,
  /** Required true to refund after the money-back window has closed. */
  outsideWindow: z.boolean().optional(),
});
export type StaffRefundBody = z.infer<typeof staffRefundBody>;

/** Actions where a reason is optional (no money, time or access changes). */
export const staffOptionalReasonBody = z.object({ reason: staffReason.optional() });
/** Actions that change access: a reason is required. */
export const staffReasonBody = z.object({ reason: staffReason });

export const staffAuditQuery = z.object({
  targetUserId: dbId({ coerce: true }).optional(),
  /** The nextCursor of the previous page. */
  cursor: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
});

const localNames = z.object({
  en: z.string().trim().min(1).max(100),
  ru: z.string().trim().min(1).max(100),
  zh: z.string().trim().min(1).max(100),
});
export const STAFF_SLUG_RE = /^[a-z0-9-]{2,40}$/;
export const STAFF_NODE_NAME_RE = /^[a-z0-9-]{2,60}$/;

export const staffLocationParams = z.object({ slug: z.string().regex(STAFF_SLUG_RE, { error: 'Unknown location.' }) });
export const staffAddLocationBody = z.object({
  slug: z.string().regex(STAFF_SLUG_RE, { error: 'Lower-case letters, digits and dashes (2–40).' }),
  countryCode: z.string().regex(/^[A-Z]{2}$/, { error: 'A two-letter country code (ISO 3166-1), upper case.' }),
  country: localNames,
  city: localNames,
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  premium: z.boolean(),
  visible: z.boolean().default(true),
});
export type StaffAddLocationBody = z.input<typeof staffAddLocationBody>;
export const staffPatchLocationBody = z
  .object({ enabled: z.boolean().optional(), premium: z.boolean().optional(), visible: z.boolean().optional() })
  .refine((v) => v.enabled !== undefined || v.premium !== undefined || v.visible !== undefined, {
    error: 'Change at least one of enabled, premium, visible.',
  });
export type StaffPatchLocationBody = z.infer<typeof staffPatchLocationBody>;

export const staffNodeParams = z.object({ name: z.string().regex(STAFF_NODE_NAME_RE, { error: 'Unknown node.' }) });
export const staffAddNodeBody = z.object({
  /** The location's slug. */
  location: z.string().regex(STAFF_SLUG_RE, { error: 'Choose a location.' }),
  name: z.string().regex(STAFF_NODE_NAME_RE, { error: 'Lower-case letters, digits and dashes (2–60).' }),
  endpointHost: z
    .string()
    .trim()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9.:-]+$/, { error: 'A host name or an IP address.' }),
  listenPort: dbInt().min(1).max(65535).default(51820),
  /** The interface's WireGuard public key; the agent reports it otherwise. */
  publicKey: z.string().max(64).optional(),
});
export type StaffAddNodeBody = z.input<typeof staffAddNodeBody>;
/**
 * Switch a node on or off, or drain it (issue 22): a draining node is given to no new customer and
 * its customers are told to take a configuration for another server; it keeps serving the ones
 * still on it until it is switched off.
 */
export const staffPatchNodeBody = z
  .object({
    enabled: z.boolean({ error: 'enabled must be true or false.' }).optional(),
    draining: z.boolean({ error: 'draining must be true or false.' }).optional(),
  })
  .refine((b) => b.enabled !== undefined || b.draining !== undefined, {
    error: 'Say enabled or draining.',
    path: ['enabled'],
  });
export type StaffPatchNodeBody = z.infer<typeof staffPatchNodeBody>;

export const STAFF_JOB_STATES = ['created', 'retry', 'active', 'failed'] as const;
export const staffJobsQuery = z.object({ state: z.enum(STAFF_JOB_STATES).optional() });
export const staffJobParams = z.object({
  queue: z.string().regex(/^[a-z0-9-]{1,40}$/, { error: 'Unknown queue.' }),
  // A UUID's shape, not only its characters: pg-boss casts the id to uuid, and 36 dashes made that a 500.
  id: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, { error: 'Unknown job.' }),
});

// --- answers -------------------------------------------------------------------------------

export const staffOk = z.object({ ok: z.literal(true) });

export const staffMe = z.object({
  email: z.string(),
  role: staffRole,
  /** ISO time the session ends if unused (idle timeout); moves on with every call. */
  expiresAt: z.string(),
  /** ISO time the session ends whatever happens (absolute limit). */
  absoluteExpiresAt: z.string(),
});
export type StaffMe = z.infer<typeof staffMe>;

export const staffCustomerSummary = z.object({
  id: z.number().int(),
  email: z.string(),
  verified: z.boolean(),
  status: accountStatus,
  createdAt: z.string(),
  tariffName: z.string(),
  /** ISO time the paid period ends; null for free and lifetime. */
  expiresAt: z.string().nullable(),
});
export type StaffCustomerSummary = z.infer<typeof staffCustomerSummary>;
export const staffCustomerList = z.object({ items: z.array(staffCustomerSummary) });

/** A device's counters on one node, as the node last reported them (no IP addresses, no destinations). */
export const staffDeviceNode = z.object({
  location: z.string(),
  city: z.string(),
  node: z.string(),
  /** ISO; null = never. */
  lastHandshakeAt: z.string().nullable(),
  rxBytes: z.number(),
  txBytes: z.number(),
  updatedAt: z.string(),
});
export const staffDevice = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  nodes: z.array(staffDeviceNode),
});
export type StaffDevice = z.infer<typeof staffDevice>;

export const staffPayment = paymentHistoryItem.extend({
  /** Staff can refund it now: succeeded, money taken, not refunded; outside the window only with outsideWindow. */
  staffRefundable: z.boolean(),
  /** The money-back window is still open (a refund needs no outsideWindow). */
  insideWindow: z.boolean(),
});
export type StaffPayment = z.infer<typeof staffPayment>;

export const staffCustomer = z.object({
  account: z.object({
    id: z.number().int(),
    email: z.string(),
    verified: z.boolean(),
    status: accountStatus,
    createdAt: z.string(),
    twoFactorEnabled: z.boolean(),
    language: z.enum(LANGUAGES),
    brand: z.string(),
    /** The account's own staff role, if it has one. */
    staffRole: staffRole.nullable(),
    /** The affiliate-portal flag: the menu's affiliate link opens the brand's partner portal (spec). */
    affiliatePortal: z.boolean(),
  }),
  subscription: subscriptionInfo,
  /** Newest first (the customer's own history, with what staff may do). */
  payments: z.array(staffPayment),
  moneyBackDays: z.number().int(),
  devices: z.array(staffDevice),
  services: z.object({
    /** OpenVPN/SOCKS5 credentials exist (the password is never shown). */
    present: z.boolean(),
    username: z.string().nullable(),
    updatedAt: z.string().nullable(),
  }),
  sessions: z.object({ active: z.number().int() }),
  /** Mails sent to the customer, newest first (kind and time only; no body, no links). */
  mails: z.array(z.object({ kind: z.string(), sentAt: z.string() })),
});
export type StaffCustomer = z.infer<typeof staffCustomer>;

/** What every customer action answers: the customer view after it (null after delete). */
/** The console's affiliate-portal switch (admins): on or off, with the reason the audit log keeps. */
export const staffAffiliatePortalBody = z.object({ enabled: z.boolean(), reason: staffReason });
export type StaffAffiliatePortalBody = z.infer<typeof staffAffiliatePortalBody>;

export const staffCustomerAnswer = z.object({ customer: staffCustomer.nullable() });
export type StaffCustomerAnswer = z.infer<typeof staffCustomerAnswer>;

export const staffAuditEntry = z.object({
  id: z.string(),
  at: z.string(),
  /** null for the operator's CLI. */
  actorUserId: z.number().int().nullable(),
  /** The staff member's email, or "operator (CLI)". */
  actor: z.string(),
  /** support, admin, or operator (CLI); null for a failed sign-in of an account without a role. */
  role: z.string().nullable(),
  action: z.enum(STAFF_AUDIT_ACTIONS),
  targetUserId: z.number().int().nullable(),
  /** What it was about in words: an email, a location slug, a node name, a job. */
  target: z.string(),
  /** Amounts, days, reason, changes; never secrets or tokens. */
  detail: z.record(z.string(), z.unknown()),
  ip: z.string(),
  userAgent: z.string(),
});
export type StaffAuditEntry = z.infer<typeof staffAuditEntry>;
export const staffAuditPage = z.object({ items: z.array(staffAuditEntry), nextCursor: z.string().nullable() });
export type StaffAuditPage = z.infer<typeof staffAuditPage>;

export const staffNode = z.object({
  name: z.string(),
  location: z.string(),
  endpointHost: z.string(),
  listenPort: z.number().int(),
  enabled: z.boolean(),
  /** A development demo node (never in production). */
  demo: z.boolean(),
  /** A node token has been issued. */
  hasToken: z.boolean(),
  /** ISO time of the last report; null = never. */
  lastSeenAt: z.string().nullable(),
  /** Reported within the last couple of report intervals. */
  online: z.boolean(),
  activePeers: z.number().int(),
  /** 0–100 as reported; null before the first report. */
  load: z.number().nullable(),
  /** Being drained (issue 22): no new customers; ISO time it started, null when not draining. */
  drainingSince: z.string().nullable(),
  /** As the agent reports it (older agents do not). */
  agentVersion: z.string().nullable(),
  lastApplyError: z.string().nullable(),
  /**
   * WireGuard capacity as the agent last reported it (issue 22): kernel or userspace, the cap, the
   * peers on the interface, the peers it refused for want of room; `limit` is the cap at the API's
   * high-water mark and `full` says the node takes no new device. null: never reported (older agents).
   */
  wireguard: z
    .object({
      kind: z.enum(['kernel', 'userspace']),
      maxPeers: z.number().int(),
      peers: z.number().int(),
      refused: z.number().int(),
      limit: z.number().int(),
      full: z.boolean(),
    })
    .nullable(),
  /** The node's stealth core (VLESS/Trojan, issue 21) as its agent last reported it; null: the node runs none. */
  stealth: z
    .object({
      /** The core answers the agent. */
      up: z.boolean(),
      version: z.string().nullable(),
      /** Customers loaded in the core. */
      users: z.number().int(),
      /** The public host and TLS port customers' apps connect to. */
      host: z.string(),
      port: z.number().int(),
      /** ISO time its certificate expires; null when the agent could not read it. */
      certNotAfter: z.string().nullable(),
    })
    .nullable(),
});
export type StaffNode = z.infer<typeof staffNode>;
export const staffNodeWithToken = z.object({ node: staffNode, token: z.string() });
export type StaffNodeWithToken = z.infer<typeof staffNodeWithToken>;

export const staffLocation = z.object({
  slug: z.string(),
  countryCode: z.string(),
  country: z.string(),
  city: z.string(),
  premium: z.boolean(),
  visible: z.boolean(),
  /** At least one of its nodes is enabled. */
  enabled: z.boolean(),
  nodes: z.array(staffNode),
});
export type StaffLocation = z.infer<typeof staffLocation>;
export const staffLocationList = z.object({ items: z.array(staffLocation) });

export const staffJob = z.object({
  queue: z.string(),
  id: z.string(),
  state: z.string(),
  data: z.unknown(),
  /** ISO. */
  startAfter: z.string(),
  retryCount: z.number().int(),
  output: z.unknown(),
});
export type StaffJob = z.infer<typeof staffJob>;
export const staffJobList = z.object({ items: z.array(staffJob) });
