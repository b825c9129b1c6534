import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTRICTED_PATHS } from '@warren/contract';
import { decryptText, encryptText } from '../src/lib/secrets.js';
import { totpCode } from '../src/lib/totp.js';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import {
  PASSWORD,
  TestClient,
  createTestApp,
  linkParams,
  mailTo,
  registerUser,
  signedInCall,
  uniqueEmail,
  type TestApp,
} from './helpers.js';
import { pathSpellings } from './route-suites.js';

/**
 * A restricted host (a brand with mainProduct false, config/brands.json's proxy brand) sends
 * every call that carries an email, a password, a session token, a one-time code or a payment
 * encrypted under the brand key, and the API refuses their plain JSON there: the web app cannot
 * fall back to the clear calls by mistake. PGlite here; PostgreSQL with TEST_DATABASE_URL.
 */
const PROXY = 'proxy.localhost';
const KEY = 'q0Hn7QmZ0nS2b1uV7H3cJm0a9w8E5r2T1y4U6i8O0pA='; // config/brands.json, brand warren-proxy
const sealed = (payload: unknown) => encryptText(KEY, JSON.stringify(payload));
const opened = (res: LightMyRequestResponse) =>
  JSON.parse(decryptText(KEY, res.body)!) as Record<string, unknown> & {
    data: Record<string, unknown>;
    message?: string;
  };
const TEXT = { 'content-type': 'text/plain' };
const NEW_PASSWORD = 'a brand new password';
const ENCRYPTED_ONLY = 'This host accepts only the encrypted calls.';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false', LIMIT_LOGIN_PER_IP: '1000', LIMIT_REGISTER_PER_IP: '1000' });
  await t.app.ready();
  // A free location with a node, for the OpenVPN file.
  await addLocation(t.app.db, {
    slug: 'zz-restricted',
    countryCode: 'ZZ',
    country: { en: 'Freeland', ru: 'Фриленд', zh: '自由国' },
    city: { en: 'Libre', ru: 'Либре', zh: '自由城' },
    latitude: 0,
    longitude: 0,
    premium: false,
  });
  await addNode(t.app.db, { location: 'zz-restricted', name: 'zz-restricted-1', endpointHost: '198.51.100.20' });
});
afterAll(async () => {
  await t?.close();
});

/** A client on the proxy host that never sends a bearer header: the token travels inside the bodies. */
async function proxyUser(email = uniqueEmail('proxy')) {
  const c = new TestClient(t.app, { host: PROXY });
  const { token, user } = await registerUser(c, email);
  const call = (path: string, payload: Record<string, unknown> = {}, withToken = true) =>
    c.post(`/api/${path}`, sealed(withToken ? { token, ...payload } : payload), { headers: TEXT, auth: false });
  return { c, token, user, email, call };
}

/** Nothing of what the call carried or answered is readable in the answer or its headers. */
function assertNothingInClear(res: LightMyRequestResponse, secrets: string[]) {
  const clear = `${JSON.stringify(res.headers)}\n${res.body}`;
  for (const s of secrets) expect(clear.includes(s), `${res.raw.req.url} shows ${s} in clear`).toBe(false);
  expect(res.headers.authorization).toBeUndefined();
}

describe('restricted hosts refuse the plain calls', () => {
  // The class: every route of the OpenAPI document whose request names one of these fields, or
  // whose answer holds one, is refused on a restricted host. A new plain route that takes a
  // password, an email, a link or session token, a code or a payment, or answers an email, a
  // secret or a link, fails here until it refuses such a host (and gets its restricted twin).
  const SENT = /^(email|password|currentPassword|password_confirmation|token|otp|code|idempotencyKey)$/;
  const ANSWERED = /^(email|password|token|secret|otpauthUrl|recoveryCodes|url)$/;
  /** Routes that match on purpose, each with its reason. */
  const EXEMPT: Record<string, string> = {
    'GET /api/setup/downloads/get': 'public download links',
    'POST /api/affiliate/session/create': "the referral visit's page address",
  };
  it('every plain route that takes or answers an email, password, token, code or payment is refused (403), whatever the spelling', async () => {
    const doc = t.app.swagger() as {
      paths: Record<
        string,
        Record<
          string,
          {
            description?: string;
            parameters?: { name: string; in: string }[];
            requestBody?: unknown;
            responses?: Record<string, unknown>;
          }
        >
      >;
    };
    const names = (schema: unknown, out = new Set<string>()): Set<string> => {
      if (schema && typeof schema === 'object') {
        const s = schema as Record<string, unknown>;
        if (s.properties && typeof s.properties === 'object') for (const k of Object.keys(s.properties)) out.add(k);
        for (const v of Object.values(s)) names(v, out);
      }
      return out;
    };
    const sensitive: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        const key = `${m.toUpperCase()} ${p}`;
        // The staff console (its own cookie session, operators only) and the nodes' API (node tokens) are not the customers' web app.
        if (
          !p.startsWith('/api/') ||
          p.startsWith('/api/staff/') ||
          p.startsWith('/api/nodes/') ||
          op.description?.startsWith('Body: text/plain') ||
          EXEMPT[key]
        )
          continue;
        const sent = [
          ...(op.parameters ?? []).filter((q) => q.in === 'query').map((q) => q.name),
          ...names(op.requestBody),
        ];
        const answered = [...names(op.responses?.['200'] ?? op.responses?.['201'])];
        if (!sent.some((f) => SENT.test(f)) && !answered.some((f) => ANSWERED.test(f))) continue;
        sensitive.push(key);
      }
    }
    // The walk found the known ones (so an empty walk cannot pass).
    expect(sensitive).toEqual(
      expect.arrayContaining([
        'POST /api/users/login',
        'POST /api/users/register',
        'POST /api/users/requestResetPassword',
        'POST /api/users/resetPassword',
        'POST /api/users/verifyUser',
        'POST /api/users/resendVerificationByLink',
        'POST /api/users/onetimeLogin',
        'GET /api/users/onetimeLinkByPromo',
        'POST /api/users/annihilation',
        'GET /api/users/info/get',
        'GET /api/profile',
        'POST /api/profile/update',
        'POST /api/profile/password',
        'POST /api/users/setNewPassword',
        'POST /api/profile/2fa/setup',
        'POST /api/profile/2fa/enable',
        'POST /api/profile/2fa/disable',
        'GET /api/setup/services/get',
        'POST /api/setup/services/credentials/reset',
        'GET /api/setup/stealth/get',
        'POST /api/setup/stealth/reset',
        'POST /api/billing/createPayment',
        'GET /api/billing/getStripePayment',
        'POST /api/billing/getPayssionPaymentData',
        'POST /api/billing/getPayssionV2MandateOrDoPayment',
      ]),
    );
    const { c, email } = await proxyUser();
    const refused: string[] = [];
    const answered: string[] = [];
    for (const key of sensitive) {
      const [method, path] = key.split(' ') as ['GET' | 'POST', string];
      const url = path.replace(/\{(\w+)\}/g, '1');
      // Without a bearer header (a call with one is refused at the door on this host: restricted-envelope.test.ts), so that the route's own refusal is what answers.
      const res = await c.request({
        method,
        url,
        auth: false,
        ...(method === 'POST'
          ? {
              payload: {
                email,
                password: PASSWORD,
                token: 'x'.repeat(40),
                userId: 1,
                userID: 1,
                code: '123456',
                tariffId: 3,
                currency: 'USD',
              },
            }
          : {}),
      });
      (res.statusCode === 403 && res.json().message === ENCRYPTED_ONLY ? refused : answered).push(
        `${key} → ${res.statusCode}`,
      );
      // Other spellings of the path reach the same route (refused) or none: never an answer with the data.
      for (const spelling of pathSpellings(url)) {
        const other = await c.request({
          method,
          url: spelling,
          auth: false,
          ...(method === 'POST' ? { payload: { password: PASSWORD } } : {}),
        });
        expect(other.statusCode, `${method} ${spelling}: ${other.body.slice(0, 200)}`).not.toBeGreaterThanOrEqual(500);
        if (other.statusCode < 300) {
          expect(String(other.headers['content-type']), `${method} ${spelling} answered`).toMatch(/^text\/html/);
          expect(other.body).not.toContain(email);
        }
      }
    }
    expect(answered, 'plain calls a restricted host still answers').toEqual([]);
  });

  it('the main host keeps the plain calls', async () => {
    const main = new TestClient(t.app);
    await registerUser(main);
    expect((await main.get('/api/users/info/get')).statusCode).toBe(200);
    expect((await main.get('/api/profile')).statusCode).toBe(200);
    expect(
      (await main.post('/api/billing/createPayment', { tariffId: 3, currency: 'USD', provider: 'sandbox' })).statusCode,
    ).toBe(200);
  });
});

describe('the restricted calls', () => {
  it('restrictedUserCheck and restrictedCreatePayment take the token inside the encrypted body and answer encrypted', async () => {
    const { token, user, call } = await proxyUser();
    const check = await call(RESTRICTED_PATHS.userCheck);
    expect(check.statusCode, check.body).toBe(200);
    assertNothingInClear(check, [user.email, token]);
    expect((opened(check).data.user as { email: string }).email).toBe(user.email);
    // A made-up token: 401, like any signed-out call.
    expect((await call(RESTRICTED_PATHS.userCheck, { token: 'y'.repeat(43) })).statusCode).toBe(401);

    const pay = { tariffId: 3, currency: 'USD', provider: 'sandbox', idempotencyKey: 'restricted-key-1' };
    const res = await call(RESTRICTED_PATHS.createPayment, pay);
    expect(res.statusCode, res.body).toBe(200);
    assertNothingInClear(res, [token, 'restricted-key-1']);
    const data = opened(res).data as { paymentId: string; provider: string; redirectUrl: string };
    expect(data).toMatchObject({ provider: 'sandbox', paymentId: expect.any(String) });
    // The same attempt again (a replayed body) is the same payment: the idempotency key travels inside the body.
    expect(opened(await call(RESTRICTED_PATHS.createPayment, pay)).data.paymentId).toBe(data.paymentId);
    // Plain JSON, a bearer header (refused at the door on this host), no token inside, or a wrong provider: refused, never a 5xx.
    const proxy = new TestClient(t.app, { host: PROXY });
    expect(
      (await proxy.post('/api/billing/restrictedCreatePayment', { tariffId: 3, currency: 'USD', provider: 'sandbox' }))
        .statusCode,
    ).toBe(400);
    proxy.token = token;
    const withBearer = await proxy.post(
      '/api/billing/restrictedCreatePayment',
      sealed({ tariffId: 3, currency: 'USD', provider: 'sandbox' }),
      { headers: TEXT },
    );
    expect(withBearer.statusCode).toBe(403);
    expect(withBearer.json().message).toBe(ENCRYPTED_ONLY);
    const noToken = await proxy.post(
      '/api/billing/restrictedCreatePayment',
      sealed({ tariffId: 3, currency: 'USD', provider: 'sandbox' }),
      { headers: TEXT, auth: false },
    );
    expect(noToken.statusCode).toBe(422);
    expect(noToken.json().errors.token).toEqual(['The session token is required.']);
    expect(
      (await call(RESTRICTED_PATHS.createPayment, { tariffId: 3, currency: 'USD', provider: 'bitcoin' })).statusCode,
    ).toBe(422);
  });

  it('restrictedResetPassword sets the new password from the emailed link; the link works once', async () => {
    const { c, email, call } = await proxyUser();
    expect((await call(RESTRICTED_PATHS.requestResetPassword, { email }, false)).statusCode).toBe(200);
    const mail = (await mailTo(c, t.app, email)).find((m) => m.text.includes('/reset-password?'))!;
    const link = linkParams(mail.text, '/reset-password');
    const body = {
      userId: link.userId,
      token: link.token,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    };
    const res = await call(RESTRICTED_PATHS.resetPassword, body, false);
    expect(res.statusCode, res.body).toBe(200);
    expect(opened(res).message).toBe('Password updated successfully');
    expect((await call(RESTRICTED_PATHS.resetPassword, body, false)).statusCode).toBe(422);
    expect((await call(RESTRICTED_PATHS.login, { email, password: NEW_PASSWORD }, false)).statusCode).toBe(200);
  });

  it('the profile and the password change: encrypted both ways, the old password ends, other sessions end, a replay changes nothing', async () => {
    const { c, token, email, call } = await proxyUser();
    const profile = await call(RESTRICTED_PATHS.profile);
    expect(profile.statusCode, profile.body).toBe(200);
    assertNothingInClear(profile, [email, token]);
    expect(opened(profile).data).toMatchObject({ email, twoFactorEnabled: false });
    const update = await call(RESTRICTED_PATHS.updateProfile, { firstName: 'Ada' });
    expect(update.statusCode, update.body).toBe(200);
    assertNothingInClear(update, [email, token, 'Ada']);
    expect(opened(update).data).toMatchObject({ email, firstName: 'Ada' });

    const other = opened(await call(RESTRICTED_PATHS.login, { email, password: PASSWORD }, false)).data.token as string;
    const change = { currentPassword: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD };
    const wrong = await call(RESTRICTED_PATHS.changePassword, { ...change, currentPassword: 'not the password' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.currentPassword).toEqual(['The current password is incorrect.']);
    expect(wrong.body).not.toContain('not the password');
    const body = sealed({ token, ...change });
    const res = await c.post('/api/profile/restrictedPassword', body, { headers: TEXT, auth: false });
    expect(res.statusCode, res.body).toBe(200);
    assertNothingInClear(res, [token, NEW_PASSWORD, PASSWORD]);
    expect(opened(res).message).toBe('Password updated successfully');
    // The other session ended; this one goes on; the old password no longer signs in.
    expect((await call(RESTRICTED_PATHS.userCheck, { token: other })).statusCode).toBe(401);
    expect((await call(RESTRICTED_PATHS.userCheck)).statusCode).toBe(200);
    expect((await call(RESTRICTED_PATHS.login, { email, password: PASSWORD }, false)).statusCode).toBe(422);
    // The captured body again: its current password is no longer right.
    expect((await c.post('/api/profile/restrictedPassword', body, { headers: TEXT, auth: false })).statusCode).toBe(
      422,
    );
    expect((await call(RESTRICTED_PATHS.login, { email, password: NEW_PASSWORD }, false)).statusCode).toBe(200);
    expect((await mailTo(c, t.app, email)).some((m) => /password/i.test(m.subject))).toBe(true);
  });

  it('verifyUser and resendVerificationByLink from the emailed link; parallel opens of one link verify once', async () => {
    const { c, email, user, call } = await proxyUser();
    const mail = (await mailTo(c, t.app, email)).find((m) => m.text.includes('/sign-in?userId='))!;
    const link = linkParams(mail.text, '/sign-in');
    const resend = await call(RESTRICTED_PATHS.resendVerificationByLink, link, false);
    expect(resend.statusCode, resend.body).toBe(200);
    assertNothingInClear(resend, [link.token]);
    const fresh = (await mailTo(c, t.app, email))
      .filter((m) => m.text.includes('/sign-in?userId='))
      .map((m) => linkParams(m.text, '/sign-in'))
      .find((l) => l.token !== link.token)!;
    // Eight tabs open the same link at once: one verifies, the others hear it was already done.
    const body = sealed({ userId: fresh.userId, token: fresh.token, clickID: 'click-1' });
    const all = await Promise.all(
      Array.from({ length: 8 }, () => c.post('/api/users/restrictedVerifyUser', body, { headers: TEXT, auth: false })),
    );
    const statuses = all.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      statuses.join(),
    ).toBe(true);
    const ok = all.find((r) => r.statusCode === 200)!;
    assertNothingInClear(ok, [email, fresh.token]);
    expect(opened(ok).data.user).toMatchObject({ id: user.id, email, verified: 1 });
    // The superseded link and a made-up one: refused with the link's message.
    const stale = await call(RESTRICTED_PATHS.verifyUser, link, false);
    expect([409, 422]).toContain(stale.statusCode);
    expect(
      (await call(RESTRICTED_PATHS.verifyUser, { userId: user.id, token: 'z'.repeat(32) }, false)).statusCode,
    ).toBe(422);
  });

  it('a one-time sign-in link: minted and used encrypted, once, even in parallel', async () => {
    const { c, token, call } = await proxyUser();
    const minted = await call(RESTRICTED_PATHS.onetimeLink, { promocode: 'SPRING' });
    expect(minted.statusCode, minted.body).toBe(200);
    const url = new URL(opened(minted).data.url as string);
    const linkToken = url.searchParams.get('token')!;
    assertNothingInClear(minted, [linkToken, token]);
    expect(url.origin).toBe('http://proxy.localhost');
    const body = sealed({ userID: Number(url.searchParams.get('userID')), token: linkToken });
    const all = await Promise.all(
      Array.from({ length: 8 }, () =>
        c.post('/api/users/restrictedOnetimeLogin', body, { headers: TEXT, auth: false }),
      ),
    );
    const statuses = all.map((r) => r.statusCode);
    expect(
      statuses.filter((s) => s === 200),
      statuses.join(),
    ).toHaveLength(1);
    expect(
      statuses.every((s) => s === 200 || s === 422),
      statuses.join(),
    ).toBe(true);
    const ok = all.find((r) => r.statusCode === 200)!;
    const session = opened(ok).data.token as string;
    assertNothingInClear(ok, [session, linkToken]);
    expect((await call(RESTRICTED_PATHS.userCheck, { token: session })).statusCode).toBe(200);
    // A replay of the captured body after its use: the link is spent.
    expect((await c.post('/api/users/restrictedOnetimeLogin', body, { headers: TEXT, auth: false })).statusCode).toBe(
      422,
    );
  });

  it('two-factor setup, enable and disable: the secret, the codes and the password only encrypted', async () => {
    const { email, token, call } = await proxyUser();
    const setup = await call(RESTRICTED_PATHS.twoFactorSetup);
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret, otpauthUrl } = opened(setup).data as { secret: string; otpauthUrl: string };
    assertNothingInClear(setup, [secret, otpauthUrl.slice(0, 20), token]);
    const enable = await call(RESTRICTED_PATHS.twoFactorEnable, { code: totpCode(secret, Date.now() - 30_000) });
    expect(enable.statusCode, enable.body).toBe(200);
    const codes = opened(enable).data.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    assertNothingInClear(enable, codes);
    expect(
      (await call(RESTRICTED_PATHS.login, { email, password: PASSWORD, otp: totpCode(secret, Date.now()) }, false))
        .statusCode,
    ).toBe(200);
    const disable = await call(RESTRICTED_PATHS.twoFactorDisable, { password: PASSWORD, code: codes[0] });
    expect(disable.statusCode, disable.body).toBe(200);
    expect(opened(disable).message).toBe('Two-factor sign-in is off.');
  });

  it('setNewPassword: the session (sessionToken) and the mailed link token inside the body', async () => {
    const { c, token, email, call } = await proxyUser();
    // sendLink carries no data: the session alone asks for the mail (through the envelope, as every other signed-in call here).
    expect((await signedInCall(c, 'POST', '/api/users/setNewPassword/sendLink', {})).statusCode).toBe(200);
    const mailed = /\/set-new-pass\?token=([^\s&]+)/.exec(
      (await mailTo(c, t.app, email)).map((m) => m.text).join('\n'),
    )![1]!;
    const change = {
      sessionToken: token,
      token: decodeURIComponent(mailed),
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    };
    const mismatch = await call(RESTRICTED_PATHS.setNewPassword, { ...change, password_confirmation: 'other' }, false);
    expect(mismatch.json().errors.password_confirmation).toEqual(['The password confirmation does not match.']);
    // Without the session inside the body: refused (and a bearer header is refused at the door on this host).
    expect(
      (
        await c.post('/api/users/restrictedSetNewPassword', sealed({ ...change, sessionToken: undefined }), {
          headers: TEXT,
          auth: false,
        })
      ).statusCode,
    ).toBe(422);
    expect(
      (
        await c.post('/api/users/restrictedSetNewPassword', sealed({ ...change, sessionToken: undefined }), {
          headers: TEXT,
        })
      ).statusCode,
    ).toBe(403);
    const res = await call(RESTRICTED_PATHS.setNewPassword, change, false);
    expect(res.statusCode, res.body).toBe(200);
    assertNothingInClear(res, [token, NEW_PASSWORD]);
    // The link works once, and its field error keeps the plain call's name.
    const again = await call(RESTRICTED_PATHS.setNewPassword, change, false);
    expect(again.statusCode).toBe(422);
    expect(Object.keys(again.json().errors)).toEqual(['token']);
    expect((await call(RESTRICTED_PATHS.login, { email, password: NEW_PASSWORD }, false)).statusCode).toBe(200);
  });

  it('account deletion: the password encrypted; a wrong one is a field message; the deleted session is gone for a replay', async () => {
    const { c, token, email, call } = await proxyUser();
    const wrong = await call(RESTRICTED_PATHS.annihilation, { password: 'not the password' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.password).toEqual(['The password is incorrect.']);
    const body = sealed({ token, password: PASSWORD });
    const res = await c.post('/api/users/restrictedAnnihilation', body, { headers: TEXT, auth: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(opened(res).message).toBe('Account deleted');
    assertNothingInClear(res, [token, PASSWORD, email]);
    expect((await c.post('/api/users/restrictedAnnihilation', body, { headers: TEXT, auth: false })).statusCode).toBe(
      401,
    );
    expect((await call(RESTRICTED_PATHS.login, { email, password: PASSWORD }, false)).statusCode).toBe(422);
  });

  it("the VPN's own credentials: OpenVPN/SOCKS5 and stealth, read and reset encrypted", async () => {
    const { token, call } = await proxyUser();
    const services = await call(RESTRICTED_PATHS.services, { langCode: 'en' });
    expect(services.statusCode, services.body).toBe(200);
    expect(services.headers['cache-control']).toBe('no-store');
    const { credentials } = opened(services).data as { credentials: { username: string; password: string } };
    assertNothingInClear(services, [credentials.password, credentials.username, token]);
    const reset = await call(RESTRICTED_PATHS.resetServiceCredentials);
    expect(reset.statusCode, reset.body).toBe(200);
    const fresh = opened(reset).data as { password: string };
    expect(fresh.password).not.toBe(credentials.password);
    assertNothingInClear(reset, [fresh.password, token]);
    // Stealth is paid: a free plan hears 403 as from the plain call; once paid, the subscription URL comes encrypted.
    expect((await call(RESTRICTED_PATHS.stealth, { langCode: 'en' })).statusCode).toBe(403);
    const pay = await call(RESTRICTED_PATHS.createPayment, {
      tariffId: 2,
      currency: 'USD',
      provider: 'sandbox',
      returnPath: '/thank-you',
    });
    const { redirectUrl } = opened(pay).data as { redirectUrl: string };
    await t.app.inject({
      method: 'POST',
      url: new URL(redirectUrl).pathname,
      headers: { host: PROXY, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=pay',
    });
    await t.app.settle();
    const stealth = await call(RESTRICTED_PATHS.stealth, { langCode: 'en' });
    expect(stealth.statusCode, stealth.body).toBe(200);
    const { subscriptionUrl } = opened(stealth).data as { subscriptionUrl: string };
    const secret = subscriptionUrl.split('/').pop()!;
    assertNothingInClear(stealth, [secret, token]);
    // The Keenetic .ovpn file (a paid plan downloads it) carries them: encrypted too, and the plain download is refused here.
    const credentialsNow = opened(await call(RESTRICTED_PATHS.services, { langCode: 'en' })).data.credentials as {
      password: string;
    };
    const ovpn = await call(RESTRICTED_PATHS.openvpnConfig, {
      location: 'zz-restricted',
      protocol: 'udp',
      variant: 'keenetic',
      langCode: 'en',
    });
    expect(ovpn.statusCode, ovpn.body).toBe(200);
    expect((opened(ovpn).data as { text: string }).text).toContain(credentialsNow.password);
    assertNothingInClear(ovpn, [credentialsNow.password, token]);
    const plain = new TestClient(t.app, { host: PROXY });
    plain.token = token;
    expect((await plain.get('/api/setup/openvpn/config?location=zz-restricted&variant=keenetic')).statusCode).toBe(403);
    const again = await call(RESTRICTED_PATHS.resetStealth, { langCode: 'en' });
    expect(again.statusCode, again.body).toBe(200);
    const next = (opened(again).data as { subscriptionUrl: string }).subscriptionUrl.split('/').pop()!;
    expect(next).not.toBe(secret);
    assertNothingInClear(again, [next, token]);
  });

  it('a rotated session token comes back inside the encrypted answer, never in a clear Authorization header', async () => {
    const { token, call } = await proxyUser();
    await t.app.db.query(`update auth_tokens set created_at = created_at - interval '3 days' where rotated_at is null`);
    const res = await call(RESTRICTED_PATHS.profile);
    expect(res.statusCode, res.body).toBe(200);
    const rotated = opened(res).rotatedToken as string;
    expect(rotated).toMatch(/^[\w-]{20,}$/);
    expect(rotated).not.toBe(token);
    assertNothingInClear(res, [rotated, token]);
    expect((await call(RESTRICTED_PATHS.userCheck, { token: rotated })).statusCode).toBe(200);
  });
});

describe('hostile restricted bodies', () => {
  const signedIn = [
    RESTRICTED_PATHS.profile,
    RESTRICTED_PATHS.changePassword,
    RESTRICTED_PATHS.annihilation,
    RESTRICTED_PATHS.twoFactorSetup,
    RESTRICTED_PATHS.twoFactorEnable,
    RESTRICTED_PATHS.twoFactorDisable,
    RESTRICTED_PATHS.onetimeLink,
    RESTRICTED_PATHS.setNewPassword,
    RESTRICTED_PATHS.createPayment,
    RESTRICTED_PATHS.stripePayment,
    RESTRICTED_PATHS.services,
    RESTRICTED_PATHS.resetServiceCredentials,
    RESTRICTED_PATHS.openvpnConfig,
    RESTRICTED_PATHS.stealth,
    RESTRICTED_PATHS.resetStealth,
    RESTRICTED_PATHS.updateProfile,
  ];
  const all = Object.values(RESTRICTED_PATHS);

  it('garbage ciphertext is a 400 with a clear message on every restricted call, never a 5xx, and changes nothing', async () => {
    const { c, token } = await proxyUser();
    const counts = async () =>
      (
        await t.app.db.query<{ n: number }>(
          `select (select count(*) from users) + (select count(*) from payments) + (select count(*) from email_tokens) as n`,
        )
      )[0]!.n;
    const before = await counts();
    const garbage: [string, string, RegExp][] = [
      ['not base64', '%%% not base64 %%%', /could not be decrypted/],
      ['too short', 'AAAA', /could not be decrypted/],
      ['random bytes', Buffer.alloc(64, 7).toString('base64'), /could not be decrypted/],
      [
        'another key',
        encryptText(Buffer.alloc(32, 1).toString('base64'), JSON.stringify({ token })),
        /could not be decrypted/,
      ],
      [
        'a flipped bit',
        (() => {
          const b = Buffer.from(sealed({ token }), 'base64');
          b[20]! ^= 1;
          return b.toString('base64');
        })(),
        /could not be decrypted/,
      ],
      ['empty', '', /encrypted text|could not be decrypted/],
      ['not JSON inside', encryptText(KEY, 'not json {'), /not valid JSON/],
    ];
    for (const path of all) {
      for (const [what, text, message] of garbage) {
        const res = await c.post(`/api/${path}`, text, { headers: TEXT, auth: false });
        expect(res.statusCode, `${path} with ${what}: ${res.body}`).toBe(400);
        expect(res.json().message, `${path} with ${what}`).toMatch(message);
      }
      // Plain JSON and well-encrypted values of the wrong shape.
      expect((await c.post(`/api/${path}`, { token }, { auth: false })).statusCode, `${path} as JSON`).toBe(400);
      for (const v of [null, [], 42, 'text']) {
        const res = await c.post(`/api/${path}`, sealed(v), { headers: TEXT, auth: false });
        expect(res.statusCode, `${path} with ${JSON.stringify(v)}: ${res.body}`).toBe(422);
      }
    }
    for (const path of signedIn) {
      const res = await c.post(
        `/api/${path}`,
        sealed({
          token: 'x'.repeat(43),
          sessionToken: 'x'.repeat(43),
          location: 'zz-restricted',
          langCode: 'en',
          password: PASSWORD,
          currentPassword: PASSWORD,
          password_confirmation: PASSWORD,
          code: '123456',
          tariffId: 3,
          currency: 'USD',
        }),
        { headers: TEXT, auth: false },
      );
      expect(res.statusCode, `${path} with a made-up session`).toBe(401);
    }
    expect(await counts()).toBe(before);
  });

  it('an encrypted call on a host that is not restricted is a 400 (no key there), whatever it carries', async () => {
    const { token, email } = await proxyUser();
    const main = new TestClient(t.app);
    for (const path of Object.values(RESTRICTED_PATHS)) {
      const res = await main.post(`/api/${path}`, sealed({ token, email, password: PASSWORD }), {
        headers: TEXT,
        auth: false,
      });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      expect(res.json().message).toBe('Restricted calls are not available on this host.');
    }
  });
});
