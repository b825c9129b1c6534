import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import {
  STAFF_ABSOLUTE_HOURS,
  STAFF_COOKIE,
  type StaffRole,
  envelope,
  staffAddLocationBody,
  staffAddNodeBody,
  staffAuditPage,
  staffAuditQuery,
  staffCustomer,
  staffCustomerAnswer,
  staffCustomerList,
  staffCustomerParams,
  staffCustomerSearchQuery,
  staffGrantDaysBody,
  staffJob,
  staffJobList,
  staffJobParams,
  staffJobsQuery,
  staffLocation,
  staffLocationList,
  staffLocationParams,
  staffMe,
  staffNode,
  staffNodeParams,
  staffNodeWithToken,
  staffOk,
  staffOptionalReasonBody,
  staffPatchLocationBody,
  staffPatchNodeBody,
  staffAffiliatePortalBody,
  staffReasonBody,
  staffRefundBody,
  staffSignInBody,
} from '@warren/contract';
import { DomainError, ForbiddenError, UnauthorizedError } from '../../lib/errors.js';
import { hashToken } from '../../lib/secrets.js';
import { xsrfKeyCookie } from '../../plugins/xsrf.js';
import { STAFF_DEVICE_DAYS } from './device.js';
import type { StaffService } from './service.js';
import type { StaffSession } from './sessions.js';
import { type StaffPasskeysDeps, staffPasskeyRoutes, staffPasskeySignIn } from './passkeys.js';

declare module 'fastify' {
  interface FastifyRequest {
    staff?: StaffSession;
  }
  interface FastifyInstance {
    /** Every staff route and the least role it needs (the role matrix in test/staff-roles.test.ts walks it). */
    staffRoutes: readonly StaffRouteInfo[];
  }
}

export interface StaffRouteInfo {
  method: string;
  url: string;
  /** null: the sign-in itself (no session yet). */
  role: StaffRole | null;
}

/** The known-device cookie (modules/staff/device.ts): sent only to the sign-in. */
export const STAFF_DEVICE_COOKIE = 'warren_staff_device';
const XSRF_MESSAGE = 'The page has expired. Please refresh and try again.';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The operator console's API (contract: packages/contract/src/staff.ts). Authentication is the staff
 * session cookie only (a customer's bearer token is never read here), checked after the request is
 * validated, like every route of the API (a preHandler): a malformed call is 422 for anyone, a
 * well-formed one without a session 401, a support member's on an admin route 403.
 */
export async function staffRoutes(
  fastify: FastifyInstance,
  {
    staff,
    secureCookies,
    passkeys,
  }: {
    staff: StaffService;
    secureCookies: boolean;
    /** Passkeys (issue 23, ./passkeys.ts). */ passkeys?: StaffPasskeysDeps;
  },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['staff'];
  const keyCookie = xsrfKeyCookie(secureCookies);
  const routes: StaffRouteInfo[] = [];
  fastify.decorate('staffRoutes', routes);

  const cookieOpts = { path: '/api/staff', httpOnly: true, sameSite: 'strict' as const, secure: secureCookies };

  /** The session of the cookie, bound to the browser's XSRF key for state-changing calls, holding at least `role`. */
  const requireStaff = (role: StaffRole) => async (request: FastifyRequest, reply: FastifyReply) => {
    const token = request.cookies[STAFF_COOKIE];
    const session = token
      ? await staff.authenticate(token, {
          ip: request.ip,
          userAgent: String(request.headers['user-agent'] ?? '').slice(0, 300),
        })
      : undefined;
    if (!session) {
      if (token) reply.clearCookie(STAFF_COOKIE, cookieOpts);
      throw new UnauthorizedError();
    }
    // The XSRF token was checked against the browser's key (plugins/xsrf.ts); the key must be the one this session signed in with.
    if (!SAFE.has(request.method)) {
      const key = request.cookies[keyCookie];
      if (!key || hashToken(key) !== session.xsrfKeyHash) throw new DomainError(419, XSRF_MESSAGE);
    }
    if (role === 'admin' && session.role !== 'admin') throw new ForbiddenError('This needs the admin role.');
    request.staff = session;
  };
  const actor = (request: FastifyRequest) => {
    if (!request.staff) throw new UnauthorizedError();
    return request.staff;
  };

  /** Route options for a staff route: its least role and its listing. */
  const as = <S extends RouteShorthandOptions['schema']>(method: string, url: string, role: StaffRole, schema: S) => {
    routes.push({ method, url, role });
    return { preHandler: requireStaff(role), schema: { tags, ...schema } };
  };

  // --- session ---------------------------------------------------------------------------------
  routes.push({ method: 'POST', url: '/api/staff/session', role: null });
  app.post(
    '/api/staff/session',
    { schema: { tags, body: staffSignInBody, response: { 200: envelope(staffMe) } } },
    async (request, reply) => {
      const { token, me, device } = await staff.signIn(request.body, {
        ip: request.ip,
        userAgent: String(request.headers['user-agent'] ?? '').slice(0, 300),
        // Present: the XSRF check of this very call needed it.
        xsrfKey: request.cookies[keyCookie] ?? '',
        device: request.cookies[STAFF_DEVICE_COOKIE],
        passkey: passkeys && staffPasskeySignIn(passkeys, request, request.cookies[keyCookie] ?? ''),
      });
      reply.setCookie(STAFF_COOKIE, token, { ...cookieOpts, maxAge: STAFF_ABSOLUTE_HOURS * 3600 });
      // Kept after sign-out: it names the browser, not a session (modules/staff/device.ts).
      reply.setCookie(STAFF_DEVICE_COOKIE, device, {
        ...cookieOpts,
        path: '/api/staff/session',
        maxAge: STAFF_DEVICE_DAYS * 86_400,
      });
      return { data: me };
    },
  );
  app.delete(
    '/api/staff/session',
    as('DELETE', '/api/staff/session', 'support', { response: { 200: envelope(staffOk) } }),
    async (request, reply) => {
      await staff.signOut(actor(request));
      reply.clearCookie(STAFF_COOKIE, cookieOpts);
      return { data: { ok: true as const } };
    },
  );
  app.get(
    '/api/staff/me',
    as('GET', '/api/staff/me', 'support', { response: { 200: envelope(staffMe) } }),
    async (request) => ({ data: staff.me(actor(request)) }),
  );

  if (passkeys) {
    routes.push({ method: 'POST', url: '/api/staff/session/passkey-options', role: null });
    await staffPasskeyRoutes(fastify, {
      deps: passkeys,
      as,
      actor,
      audited: staff.consolePasskeyChanged,
      xsrfKeyOf: (request) => request.cookies[keyCookie] ?? '',
    });
  }

  // --- customers -------------------------------------------------------------------------------
  app.get(
    '/api/staff/customers',
    as('GET', '/api/staff/customers', 'support', {
      querystring: staffCustomerSearchQuery,
      response: { 200: envelope(staffCustomerList) },
    }),
    async (request) => ({
      data: { items: await staff.search(request.query.q) },
    }),
  );
  app.get(
    '/api/staff/customers/:id',
    as('GET', '/api/staff/customers/:id', 'support', {
      params: staffCustomerParams,
      response: { 200: envelope(staffCustomer) },
    }),
    async (request) => ({
      data: await staff.customer(actor(request), request.params.id),
    }),
  );

  const answer = { 200: envelope(staffCustomerAnswer) };
  const customerAction = <B extends z.ZodType>(
    action: string,
    role: StaffRole,
    body: B,
    run: (s: StaffSession, id: number, body: z.infer<B>) => Promise<z.infer<typeof staffCustomerAnswer>>,
  ) => {
    const url = `/api/staff/customers/:id/${action}`;
    app.post(url, as('POST', url, role, { params: staffCustomerParams, body, response: answer }), async (request) => ({
      data: await run(actor(request), (request.params as { id: number }).id, request.body as z.infer<B>),
    }));
  };
  customerAction('grant-days', 'support', staffGrantDaysBody, (s, id, b) => staff.grantDays(s, id, b.days, b.reason));
  customerAction('refund', 'admin', staffRefundBody, (s, id, b) => staff.refund(s, id, b));
  customerAction('resend-verification', 'support', staffOptionalReasonBody, (s, id, b) =>
    staff.resendVerification(s, id, b.reason),
  );
  customerAction('auto-renew-off', 'support', staffOptionalReasonBody, (s, id, b) =>
    staff.autoRenewOff(s, id, b.reason),
  );
  customerAction('sign-out-all', 'support', staffReasonBody, (s, id, b) => staff.signOutAll(s, id, b.reason));
  customerAction('reset-service-credentials', 'admin', staffReasonBody, (s, id, b) =>
    staff.resetServiceCredentials(s, id, b.reason),
  );
  customerAction('disable', 'admin', staffReasonBody, (s, id, b) => staff.setDisabled(s, id, true, b.reason));
  customerAction('enable', 'admin', staffReasonBody, (s, id, b) => staff.setDisabled(s, id, false, b.reason));
  customerAction('affiliate-portal', 'admin', staffAffiliatePortalBody, (s, id, b) =>
    staff.setCustomerAffiliatePortal(s, id, b.enabled, b.reason),
  );
  customerAction('delete', 'admin', staffReasonBody, (s, id, b) => staff.deleteCustomer(s, id, b.reason));

  // --- audit -----------------------------------------------------------------------------------
  app.get(
    '/api/staff/audit',
    as('GET', '/api/staff/audit', 'support', {
      querystring: staffAuditQuery,
      response: { 200: envelope(staffAuditPage) },
    }),
    async (request) => ({
      data: await staff.auditPage(request.query),
    }),
  );

  // --- locations and nodes ---------------------------------------------------------------------
  app.get(
    '/api/staff/locations',
    as('GET', '/api/staff/locations', 'support', { response: { 200: envelope(staffLocationList) } }),
    async () => ({
      data: { items: await staff.locations() },
    }),
  );
  app.post(
    '/api/staff/locations',
    as('POST', '/api/staff/locations', 'admin', {
      body: staffAddLocationBody,
      response: { 201: envelope(staffLocation) },
    }),
    async (request, reply) => reply.status(201).send({ data: await staff.addLocation(actor(request), request.body) }),
  );
  app.patch(
    '/api/staff/locations/:slug',
    as('PATCH', '/api/staff/locations/:slug', 'admin', {
      params: staffLocationParams,
      body: staffPatchLocationBody,
      response: { 200: envelope(staffLocation) },
    }),
    async (request) => ({ data: await staff.patchLocation(actor(request), request.params.slug, request.body) }),
  );
  app.post(
    '/api/staff/nodes',
    as('POST', '/api/staff/nodes', 'admin', {
      body: staffAddNodeBody,
      response: { 201: envelope(staffNodeWithToken) },
    }),
    async (request, reply) => reply.status(201).send({ data: await staff.addNode(actor(request), request.body) }),
  );
  app.patch(
    '/api/staff/nodes/:name',
    as('PATCH', '/api/staff/nodes/:name', 'admin', {
      params: staffNodeParams,
      body: staffPatchNodeBody,
      response: { 200: envelope(staffNode) },
    }),
    async (request) => ({ data: await staff.patchNode(actor(request), request.params.name, request.body) }),
  );
  app.post(
    '/api/staff/nodes/:name/token',
    as('POST', '/api/staff/nodes/:name/token', 'admin', {
      params: staffNodeParams,
      response: { 200: envelope(staffNodeWithToken) },
    }),
    async (request) => ({
      data: await staff.issueNodeToken(actor(request), request.params.name),
    }),
  );

  // --- jobs ------------------------------------------------------------------------------------
  app.get(
    '/api/staff/jobs',
    as('GET', '/api/staff/jobs', 'support', { querystring: staffJobsQuery, response: { 200: envelope(staffJobList) } }),
    async (request) => ({
      data: { items: await staff.jobs(request.query.state) },
    }),
  );
  app.post(
    '/api/staff/jobs/:queue/:id/retry',
    as('POST', '/api/staff/jobs/:queue/:id/retry', 'admin', {
      params: staffJobParams,
      response: { 200: envelope(staffJob) },
    }),
    async (request) => ({
      data: await staff.retryJob(actor(request), request.params.queue, request.params.id),
    }),
  );
}
