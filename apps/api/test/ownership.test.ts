import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TestClient,
  createTestApp,
  linkParams,
  mailTo,
  registerUser,
  uniqueEmail,
  PASSWORD,
  type TestApp,
} from './helpers.js';
import { openApiOperations, rowsOf, SAFE_METHODS } from './route-suites.js';
import { createPasskey } from './webauthn-authenticator.js';

/**
 * Ownership matrix (issue 11): every route that takes an id, called by user B with user A's ids,
 * answers 404 (or the route's "invalid token" answer for emailed-token proofs) and changes none of
 * A's rows. The routes are found from the app (OpenAPI parameters and body fields that name a
 * record, and path parameters of every route): a new one fails this file until it is covered
 * here or listed as exempt with its reason.
 */

/** Field names that point at a record (an id, an emailed token, an idempotency key, a WireGuard key). */
const ID_FIELD = /(^id$|Id$|ID$|^token$|^idempotencyKey$|^publicKey$)/;

/** Routes that take an id-like field that is not somebody's record, with the reason. */
const EXEMPT = new Map<string, string>([
  ['POST /api/users/login', 'voluumID is attribution the browser reports about itself'],
  [
    'POST /api/users/register',
    'referral, friend and click ids are public codes or attribution about the new account itself',
  ],
  ['POST /api/users/session/set', "sessionID/voluumID are the caller's own attribution, stored on the caller"],
  ['POST /api/setup/features/state', 'a feature id of the public catalogue; the state is stored per signed-in user'],
  ['GET /api/billing/getLandingPriceList', 'referralID is a public referral code'],
  ['GET /api/billing/getGuestPriceData', 'tariffId is the public catalogue'],
  [
    'POST /api/billing/subscription/switch',
    "tariffId is the public catalogue; the switch acts on the signed-in member's own plan only (billing-switch.test.ts)",
  ],
  ['POST /api/affiliate/session/create', 'referralID is a public referral code'],
  ['POST /api/nodes/report', "a node reports its own public key, authenticated by the node's token"],
  [
    'GET /api/sub/:secret',
    "the stealth subscription: the 256-bit secret in the path is the credential (apps fetch it without a session), not a record id; a session changes nothing (stealth.test.ts: unknown, rotated and other accounts' secrets)",
  ],
  [
    'POST /api/billing/webhooks/:provider',
    'a provider name, not a record; the notification is verified by its signature',
  ],
  [
    'GET /sandbox/checkout/:id',
    "the sandbox provider's hosted page: the unguessable payment id is the capability, as at a real provider",
  ],
  [
    'POST /sandbox/checkout/:id',
    "the sandbox provider's hosted page: the unguessable payment id is the capability, as at a real provider",
  ],
  [
    'GET /api/billing/getStripePayment',
    'Stripe is not configured in this suite; idempotency keys are scoped per user by the same service code as createPayment (covered)',
  ],
  [
    'POST /api/billing/getPayssionPaymentData',
    'Payssion is not configured in this suite; same idempotency scoping as createPayment (covered)',
  ],
  [
    'POST /api/billing/getPayssionV2MandateOrDoPayment',
    'Payssion is not configured in this suite; same idempotency scoping as createPayment (covered)',
  ],
]);

let t: TestApp;
let a: TestClient;
let b: TestClient;
let aId: number;
let bEmail: string;
const wgKey = () =>
  generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');

/** A's records, made through the API. */
const A: {
  deviceId?: number;
  publicKey?: string;
  sessionId?: number;
  paymentId?: string;
  resetToken?: string;
  idempotencyKey: string;
  passkeyId?: number;
} = { idempotencyKey: 'owner-a-key-123456' };

beforeAll(async () => {
  t = await createTestApp();
  await t.app.ready();
  a = new TestClient(t.app);
  const aEmail = uniqueEmail('owner-a');
  aId = (await registerUser(a, aEmail)).user.id;
  const verify = linkParams((await mailTo(a, t.app, aEmail)).map((m) => m.text).join('\n'), '/sign-in');
  expect((await a.post('/api/users/verifyUser', verify)).statusCode).toBe(200);
  A.publicKey = wgKey();
  const device = await a.post('/api/setup/wg/devices/add', { name: 'A laptop', publicKey: A.publicKey });
  expect(device.statusCode, device.body).toBe(201);
  A.deviceId = device.json().data.device.id;
  // A second session of A's (another browser).
  const a2 = new TestClient(t.app);
  expect((await a2.post('/api/users/login', { email: aEmail, password: PASSWORD })).statusCode).toBe(200);
  const sessions = (await a.get('/api/profile/sessions')).json().data.items as { id: number; current: boolean }[];
  A.sessionId = sessions.find((s) => !s.current)!.id;
  // A passkey of A's (a software authenticator, test/webauthn-authenticator.ts).
  const pkOptions = (await a.post('/api/profile/passkeys/register/options', { password: PASSWORD })).json().data;
  const pk = await a.post('/api/profile/passkeys/register/verify', {
    response: createPasskey(pkOptions, { origin: 'http://localhost' }).response,
    name: 'A key',
  });
  expect(pk.statusCode, pk.body).toBe(200);
  A.passkeyId = pk.json().data.id;
  const payment = await a.post('/api/billing/createPayment', {
    tariffId: 2,
    currency: 'USD',
    provider: 'sandbox',
    returnPath: '/thank-you',
    idempotencyKey: A.idempotencyKey,
  });
  expect(payment.statusCode, payment.body).toBe(200);
  A.paymentId = payment.json().data.paymentId;

  b = new TestClient(t.app);
  bEmail = uniqueEmail('intruder-b');
  await registerUser(b, bEmail);
  // B is a verified member too, so that a refusal means "not yours", not "not activated".
  const bVerify = linkParams((await mailTo(b, t.app, bEmail)).map((m) => m.text).join('\n'), '/sign-in');
  expect((await b.post('/api/users/verifyUser', bVerify)).statusCode).toBe(200);
  // A's reset token, as if it had leaked: B must not use it on B's own session either.
  await a.post('/api/users/requestResetPassword', { email: aEmail });
  A.resetToken = linkParams((await mailTo(a, t.app, aEmail)).map((m) => m.text).join('\n'), '/reset-password').token;
});
afterAll(async () => {
  await t?.close();
});

/** B's own emailed proofs: the tokens B legitimately holds, presented with A's user id. */
async function bTokens() {
  const verify = linkParams((await mailTo(b, t.app, bEmail)).map((m) => m.text).join('\n'), '/sign-in');
  await b.post('/api/users/requestResetPassword', { email: bEmail });
  const reset = linkParams((await mailTo(b, t.app, bEmail)).map((m) => m.text).join('\n'), '/reset-password');
  const link = new URL((await b.get('/api/users/onetimeLinkByPromo')).json().data.url as string);
  return { verify: verify.token, reset: reset.token, onetime: link.searchParams.get('token')! };
}

/** Each covered route: B's call with A's id; `expected` is what B must get. */
type Case = {
  body: Record<string, unknown>;
  expected: number[];
  check?: (res: { statusCode: number; body: string }) => void;
};
const COVERED: Record<string, (tokens: Awaited<ReturnType<typeof bTokens>>) => Case[]> = {
  'POST /api/setup/wg/devices/rename': () => [{ body: { id: A.deviceId, name: 'pwned' }, expected: [404] }],
  'POST /api/setup/wg/devices/revoke': () => [{ body: { id: A.deviceId }, expected: [404] }],
  // B may not put a key of B's choosing on A's device (issue 23), nor change how long A's key lives.
  'POST /api/setup/wg/devices/rotate': () => [
    { body: { id: A.deviceId, previousKey: A.publicKey, publicKey: wgKey() }, expected: [404] },
  ],
  'POST /api/setup/wg/devices/lifetime': () => [{ body: { id: A.deviceId, days: 1 }, expected: [404] }],
  // Another account may not register A's WireGuard key: the node would route A's tunnel to B's peer.
  'POST /api/setup/wg/devices/add': () => [
    { body: { name: 'same key', publicKey: A.publicKey }, expected: [409, 422] },
  ],
  'POST /api/profile/sessions/revoke': () => [{ body: { id: A.sessionId }, expected: [404] }],
  'POST /api/profile/passkeys/rename': () => [{ body: { id: A.passkeyId, name: 'pwned' }, expected: [404] }],
  'POST /api/profile/passkeys/remove': () => [{ body: { id: A.passkeyId, password: PASSWORD }, expected: [404] }],
  'POST /api/staff/passkeys/remove': () => staffCase({ id: A.passkeyId, password: PASSWORD }),
  'POST /api/users/resetPassword': (tk) => [
    {
      body: { userId: aId, token: tk.reset, password: 'taken over 123', password_confirmation: 'taken over 123' },
      expected: [404, 422],
    },
  ],
  'POST /api/users/verifyUser': (tk) => [{ body: { userId: aId, token: tk.verify }, expected: [404, 422] }],
  'POST /api/users/onetimeLogin': (tk) => [{ body: { userID: aId, token: tk.onetime }, expected: [404, 422] }],
  // Answers 200 whatever it is given (no account probing); what matters is that nothing of A's moves.
  'POST /api/users/resendVerificationByLink': (tk) => [
    { body: { userId: aId, token: tk.verify }, expected: [200, 404, 422] },
  ],
  // A reset token issued to A, presented on B's session: refused, and neither password changes.
  'POST /api/users/setNewPassword': () => [
    {
      body: { token: A.resetToken, password: 'taken over 123', password_confirmation: 'taken over 123' },
      expected: [403, 404, 422],
    },
  ],
  // An idempotency key A used: B gets a payment of B's own (or a refusal), never A's.
  'POST /api/billing/createPayment': () => [
    {
      body: {
        tariffId: 2,
        currency: 'USD',
        provider: 'sandbox',
        returnPath: '/thank-you',
        idempotencyKey: A.idempotencyKey,
      },
      expected: [200, 409, 422],
      check: (res) => expect(res.body).not.toContain(A.paymentId!),
    },
  ],
  // A's payment: no receipt and no refund for B (issue 13).
  'GET /api/billing/payments/:publicId/receipt': () => [{ body: { publicId: A.paymentId }, expected: [404] }],
  'POST /api/billing/payments/:publicId/refund': () => [{ body: { publicId: A.paymentId }, expected: [404] }],
  // The operator console (issue 15): B's customer token is no staff credential, whatever record it names.
  'GET /api/staff/customers/:id': () => staffCase({ id: aId }),
  'POST /api/staff/customers/:id/grant-days': () => staffCase({ id: aId, days: 30, reason: 'give me days' }),
  'POST /api/staff/customers/:id/refund': () => staffCase({ id: aId, paymentId: A.paymentId, reason: 'give me money' }),
  'POST /api/staff/customers/:id/resend-verification': () => staffCase({ id: aId }),
  'POST /api/staff/customers/:id/auto-renew-off': () => staffCase({ id: aId }),
  'POST /api/staff/customers/:id/sign-out-all': () => staffCase({ id: aId, reason: 'sign A out' }),
  'POST /api/staff/customers/:id/reset-service-credentials': () => staffCase({ id: aId, reason: 'reset A' }),
  'POST /api/staff/customers/:id/disable': () => staffCase({ id: aId, reason: 'disable A' }),
  'POST /api/staff/customers/:id/enable': () => staffCase({ id: aId, reason: 'enable A' }),
  'POST /api/staff/customers/:id/affiliate-portal': () => staffCase({ id: aId, enabled: true, reason: 'portal for A' }),
  'POST /api/staff/customers/:id/delete': () => staffCase({ id: aId, reason: 'delete A' }),
  'GET /api/staff/audit': () => staffCase({ targetUserId: aId }),
  'PATCH /api/staff/locations/:slug': () => staffCase({ slug: 'de-frankfurt', premium: false }),
  'POST /api/staff/nodes': () =>
    staffCase({ location: 'de-frankfurt', name: 'b-node', endpointHost: 'b.example.net', publicKey: A.publicKey }),
  'PATCH /api/staff/nodes/:name': () => staffCase({ name: 'de-frankfurt-1', enabled: false }),
  'POST /api/staff/nodes/:name/token': () => staffCase({ name: 'de-frankfurt-1' }),
  'POST /api/staff/jobs/:queue/:id/retry': () =>
    staffCase({ queue: 'billing-renew', id: '00000000-0000-4000-8000-000000000000' }),
};
/** A staff route called with B's customer token (well-formed, so the answer is about the credential): 401. */
function staffCase(body: Record<string, unknown>): Case[] {
  return [{ body, expected: [401] }];
}

describe('ownership matrix: user B with user A ids', () => {
  it('every route that takes an id is covered here or exempt with a reason', () => {
    const detected = new Set<string>();
    for (const op of openApiOperations(t.app)) {
      const fields = [...Object.keys(op.bodySchema?.properties ?? {}), ...op.parameters.map((p) => p.name)];
      if (fields.some((f) => ID_FIELD.test(f)) || op.url.includes(':')) detected.add(`${op.method} ${op.url}`);
    }
    // Routes left out of the OpenAPI document still show their path parameters.
    for (const r of t.app.routeList)
      if (r.url.includes(':') && r.method !== 'HEAD' && !r.url.startsWith('/api/docs'))
        detected.add(`${r.method} ${r.url}`);
    const unaccounted = [...detected].filter((k) => !(k in COVERED) && !EXEMPT.has(k));
    expect(unaccounted, 'routes that take an id: add a case to COVERED or a reason to EXEMPT').toEqual([]);
    const stale = [...Object.keys(COVERED), ...EXEMPT.keys()].filter((k) => !detected.has(k));
    expect(stale, 'entries for routes that no longer take an id').toEqual([]);
    for (const reason of EXEMPT.values()) expect(reason.length).toBeGreaterThan(20);
  });

  it("B's calls with A's ids are refused and change none of A's rows", async () => {
    const tokens = await bTokens();
    const before = await rowsOf(t.app, aId);
    const failures: string[] = [];
    for (const [key, cases] of Object.entries(COVERED)) {
      const [method, route] = key.split(' ') as [string, string];
      for (const c of cases(tokens)) {
        // Path parameters come from the case's body: `/x/:publicId` with { publicId } calls /x/<A's id>.
        const body = { ...c.body };
        const url = route.replace(/:(\w+)/g, (_, name: string) => {
          const value = String(body[name]);
          delete body[name];
          return encodeURIComponent(value);
        });
        const res = SAFE_METHODS.has(method)
          ? await b.get(`${url}?${new URLSearchParams(body as Record<string, string>)}`)
          : await b.request({ method: method as 'POST', url, payload: body });
        if (!c.expected.includes(res.statusCode))
          failures.push(`${key} ${JSON.stringify(c.body)}: ${res.statusCode} ${res.body.slice(0, 160)}`);
        c.check?.(res);
        const after = await rowsOf(t.app, aId);
        if (JSON.stringify(after) !== JSON.stringify(before)) failures.push(`${key}: changed A's rows`);
      }
    }
    expect(failures).toEqual([]);
    expect(await rowsOf(t.app, aId)).toEqual(before);
    // A is still whole: signed in, device and second session in place.
    const devices = (await a.get('/api/setup/wg/get')).json().data.devices as { id: number; name: string }[];
    expect(devices).toEqual([expect.objectContaining({ id: A.deviceId, name: 'A laptop' })]);
    expect(((await a.get('/api/profile/sessions')).json().data.items as { id: number }[]).map((s) => s.id)).toContain(
      A.sessionId,
    );
  }, 30_000);

  it('the matrix does test something: A with the same calls succeeds', async () => {
    expect((await a.post('/api/setup/wg/devices/rename', { id: A.deviceId, name: 'A laptop' })).statusCode).toBe(200);
    expect((await a.post('/api/profile/sessions/revoke', { id: A.sessionId })).statusCode).toBe(200);
  });
});
