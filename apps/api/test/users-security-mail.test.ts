import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../src/lib/totp.js';
import type { Mailer, OutgoingMail } from '../src/mail/mailer.js';
import {
  PASSWORD,
  TestClient,
  createTestApp,
  mailTo,
  payWithSandbox,
  registerUser,
  uniqueEmail,
  type TestApp,
} from './helpers.js';

// Issue 20, "Security mails": two-factor on and off, a recovery code used, a sign-in from a
// browser the account has not been used in, and a refund are each mailed once, to the account's
// address, in its language, with what to do if it was not the owner; the real outbox (the
// mailer the app builds from its config) is read through /api/dev/mail.

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

type Mail = { subject: string; text: string; html: string };

let t: TestApp;
beforeAll(async () => {
  // TRUST_PROXY: the test names the client's address (X-Forwarded-For) so the mail's place is known.
  t = await createTestApp({
    TRUST_PROXY: 'true',
    LIMIT_LOGIN_PER_IP: '1000',
    LIMIT_REGISTER_PER_IP: '1000',
    JOBS: 'false',
  });
});
afterAll(async () => {
  await t?.close();
});

/** The mails to an address whose subject matches. */
async function mails(email: string, subject: RegExp): Promise<Mail[]> {
  return (await mailTo(new TestClient(t.app), t.app, email)).filter((m) => subject.test(m.subject));
}

async function signUp(language: 'en' | 'ru' | 'zh' = 'en') {
  const email = uniqueEmail('sec');
  const c = new TestClient(t.app);
  const { user } = await registerUser(c, email, { language });
  return { email, c, user };
}

/** A browser the account has never seen: a fresh client (no cookies) at a public address. */
function newBrowser(ip = '8.8.8.8') {
  return { c: new TestClient(t.app), headers: { 'user-agent': FIREFOX_LINUX, 'x-forwarded-for': ip } };
}

async function login(
  c: TestClient,
  email: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return c.post('/api/users/login', { email, password: PASSWORD, ...extra }, { headers });
}

/**
 * The "not you?" block: reset, profile and support links built the way the other mails build
 * theirs (the request's mail origin for account mails; the brand's origin, here with the dev
 * server's port, for billing mails), and the brand's help centre.
 */
function expectNotYou(m: Mail, origin = 'http://localhost') {
  expect(m.text).toContain(`${origin}/forgot-pass`);
  expect(m.text).toContain(`${origin}/profile`);
  expect(m.text).toContain(t.app.services.brands.all()[0]!.helpCenterUrl);
  expect(m.html).toContain(`href="${origin}/forgot-pass"`);
}
const BILLING_ORIGIN = 'http://localhost:8080';

async function turnOnTwoFactor(c: TestClient) {
  const secret = (await c.post('/api/profile/2fa/setup')).json().data.secret as string;
  const res = await c.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) });
  expect(res.statusCode, res.body).toBe(200);
  return { secret, codes: res.json().data.recoveryCodes as string[] };
}

describe('two-factor on and off', () => {
  it('each sends one notice in the account language (en), without the codes', async () => {
    const { email, c } = await signUp('en');
    const { codes } = await turnOnTwoFactor(c);
    const on = await mails(email, /^Two-factor sign-in is on/);
    expect(on).toHaveLength(1);
    expect(on[0]!.text).toMatch(/When: \d{1,2} \w+ 20\d\d/);
    expectNotYou(on[0]!);
    for (const code of codes) expect(on[0]!.text + on[0]!.html).not.toContain(code);

    expect((await c.post('/api/profile/2fa/disable', { password: PASSWORD, code: codes[0]! })).statusCode).toBe(200);
    const off = await mails(email, /^Two-factor sign-in is off/);
    expect(off).toHaveLength(1);
    expectNotYou(off[0]!);
    expect(await mails(email, /^Two-factor sign-in is on/)).toHaveLength(1);
  });

  it('in Russian for a Russian account', async () => {
    const { email, c } = await signUp('ru');
    await turnOnTwoFactor(c);
    const on = await mails(email, /Двухфакторный вход в .* включён/);
    expect(on).toHaveLength(1);
    expect(on[0]!.text).toContain('Если это были не вы');
    expect(on[0]!.text).toContain('http://localhost/forgot-pass');
  });
});

describe('a recovery code used to sign in', () => {
  it('sends one notice with the codes left (zh); the same code replayed signs nobody in and sends nothing', async () => {
    const { email, c } = await signUp('zh');
    const { codes } = await turnOnTwoFactor(c);
    const { c: other, headers } = newBrowser();
    expect((await login(other, email, { otp: codes[3]! }, headers)).statusCode).toBe(200);
    const used = await mails(email, /恢复码登录/);
    expect(used).toHaveLength(1);
    expect(used[0]!.text).toContain('剩余恢复码：9 个');
    expect(used[0]!.text).toContain('Linux 上的 Firefox');
    expect(used[0]!.text).toContain('美国'); // 8.8.8.8, in Chinese
    expect(used[0]!.text).not.toContain(codes[3]!);
    expectNotYou(used[0]!);
    // A recovery-code sign-in from a new browser is one mail, not two.
    expect(await mails(email, /新的登录/)).toHaveLength(0);

    // Replayed, once and in parallel: refused, and no mail.
    const replays = await Promise.all(
      Array.from({ length: 5 }, () => login(new TestClient(t.app), email, { otp: codes[3]! }, headers)),
    );
    expect(replays.map((r) => r.statusCode)).toEqual([422, 422, 422, 422, 422]);
    expect(await mails(email, /恢复码登录/)).toHaveLength(1);
  });
});

describe('a sign-in from a new browser', () => {
  it('sends one notice with the browser, the place and the time; the same browser again sends none', async () => {
    const { email, c } = await signUp('en');
    // The browser that signed up is known: signing in there again is not new.
    expect((await login(c, email, {}, { 'user-agent': FIREFOX_LINUX })).statusCode).toBe(200);
    expect(await mails(email, /^New sign-in/)).toHaveLength(0);

    const { c: other, headers } = newBrowser('8.8.8.8');
    expect((await login(other, email, {}, headers)).statusCode).toBe(200);
    const fresh = await mails(email, /^New sign-in/);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.text).toContain('Browser: Firefox on Linux');
    expect(fresh[0]!.text).toContain('Approximate place: United States');
    expect(fresh[0]!.text).toMatch(/When: .+ UTC/);
    expect(fresh[0]!.text).not.toContain('8.8.8.8');
    expectNotYou(fresh[0]!);

    // The same browser (its cookie) again, from another address: known.
    expect((await login(other, email, {}, { ...headers, 'x-forwarded-for': '1.1.1.1' })).statusCode).toBe(200);
    expect(await mails(email, /^New sign-in/)).toHaveLength(1);
  });

  it('in Russian, with an unknown place for a private address', async () => {
    const { email } = await signUp('ru');
    const other = new TestClient(t.app);
    expect(
      (await login(other, email, {}, { 'user-agent': SAFARI_IPHONE, 'x-forwarded-for': '10.1.2.3' })).statusCode,
    ).toBe(200);
    const fresh = await mails(email, /^Новый вход/);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.text).toContain('Браузер: Safari, iOS');
    expect(fresh[0]!.text).toContain('Примерное место: неизвестно');
  });

  it('the browser that opened the verification link is not new', async () => {
    const { email, user } = await signUp('en');
    const verify = (await mails(email, /^Confirm your email/))[0]!;
    const token = decodeURIComponent(/token=([^\s&]+)/.exec(verify.text)![1]!);
    const phone = new TestClient(t.app);
    expect((await phone.post('/api/users/verifyUser', { userId: user.id, token })).statusCode).toBe(200);
    expect((await login(phone, email, {}, { 'x-forwarded-for': '8.8.8.8' })).statusCode).toBe(200);
    expect(await mails(email, /^New sign-in/)).toHaveLength(0);
    // A third browser is new.
    expect((await login(new TestClient(t.app), email, {}, { 'x-forwarded-for': '8.8.8.8' })).statusCode).toBe(200);
    expect(await mails(email, /^New sign-in/)).toHaveLength(1);
  });

  it('a one-time sign-in link opened in a new browser is a sign-in from it', async () => {
    const { email, c } = await signUp('en');
    const minted = await c.get('/api/users/onetimeLinkByPromo');
    expect(minted.statusCode, minted.body).toBe(200);
    const url = new URL(minted.json().data.url as string);
    const other = new TestClient(t.app);
    const res = await other.post(
      '/api/users/onetimeLogin',
      { userID: Number(url.searchParams.get('userID')), token: url.searchParams.get('token') },
      { headers: { 'user-agent': SAFARI_IPHONE } },
    );
    expect(res.statusCode, res.body).toBe(200);
    const fresh = await mails(email, /^New sign-in/);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.text).toContain('Browser: Safari on iOS');
    expect(fresh[0]!.text + fresh[0]!.html).not.toContain(url.searchParams.get('token')!);
  });

  it('100 parallel sign-ins from one new browser send one mail; 30 from a script without cookies send at most 3', async () => {
    const { email } = await signUp('en');
    const browser = new TestClient(t.app);
    browser.cookies['warren-browser'] = 'b'.repeat(43);
    const same = await Promise.all(
      Array.from({ length: 100 }, () => login(browser, email, {}, { 'x-forwarded-for': '8.8.8.8' })),
    );
    // The account's own sign-in budget lets some through at once and slows the rest (429): each success is a sign-in of the new browser.
    expect(same.filter((r) => r.statusCode === 200).length).toBeGreaterThan(1);
    expect(same.every((r) => r.statusCode === 200 || r.statusCode === 429)).toBe(true);
    expect(await mails(email, /^New sign-in/)).toHaveLength(1);

    // Each cookie-less try is a browser never seen: the per-account budget caps the notices.
    const { email: second } = await signUp('en');
    const script = new TestClient(t.app);
    await script.primeXsrf();
    const cookieless = await Promise.all(
      Array.from({ length: 30 }, () => login(script, second, {}, { 'x-forwarded-for': '8.8.8.8' })),
    );
    expect(cookieless.filter((r) => r.statusCode === 200).length).toBeGreaterThan(3);
    const notices = await mails(second, /^New sign-in/);
    expect(notices.length).toBeGreaterThanOrEqual(1);
    expect(notices.length).toBeLessThanOrEqual(3);
  });
});

describe('refunds', () => {
  it('a money-back refund from the dashboard sends one notice (ru), with the amount and payment', async () => {
    const { email, c } = await signUp('ru');
    await payWithSandbox(t.app, c);
    const [payment] = (await c.get('/api/billing/payments')).json().data.items as { paymentId: string }[];
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => c.post(`/api/billing/payments/${payment!.paymentId}/refund`, {})),
    );
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    const refund = await mails(email, /^Возврат средств/);
    expect(refund).toHaveLength(1);
    expect(refund[0]!.text).toContain(payment!.paymentId);
    expect(refund[0]!.text).toMatch(/\d+\.\d\d [A-Z]{3}/);
    expect(refund[0]!.text).toContain(`${BILLING_ORIGIN}/subscription`);
    expect(refund[0]!.text).toContain('Если это были не вы');
    expectNotYou(refund[0]!, BILLING_ORIGIN);
  });

  it('an operator (console or CLI) refund and a provider-initiated refund each send one notice (en)', async () => {
    const { email, c } = await signUp('en');
    await payWithSandbox(t.app, c);
    await payWithSandbox(t.app, c);
    const items = (await c.get('/api/billing/payments')).json().data.items as { paymentId: string }[];
    await t.app.billing.operator.refund(items[0]!.paymentId, { force: true });
    // The provider refunds on its side (a refund or chargeback there): its state is re-read and applied.
    const [row] = await t.app.db.query<{ provider_ref: string }>(
      'select provider_ref from payments where public_id = $1',
      [items[1]!.paymentId],
    );
    await t.app.db.query(`update sandbox_payments set status = 'refunded' where id = $1`, [row!.provider_ref]);
    const payment = (
      await t.app.db.query<Record<string, unknown>>('select * from payments where public_id = $1', [
        items[1]!.paymentId,
      ])
    )[0]!;
    await t.app.billing.reconciliation.reconcile(payment as never, {
      providerRef: row!.provider_ref,
      status: 'refunded',
    });
    await t.app.billing.reconciliation.reconcile(payment as never, {
      providerRef: row!.provider_ref,
      status: 'refunded',
    });
    const refunds = await mails(email, /^A refund was made/);
    expect(refunds).toHaveLength(2);
    expect(refunds.map((m) => /Payment (pay_\w+)/.exec(m.text)?.[1]).sort()).toEqual(
      items.map((i) => i.paymentId).sort(),
    );
    for (const m of refunds) expectNotYou(m, BILLING_ORIGIN);
  });
});

describe('a failing mail transport', () => {
  it('fails no sign-in, no two-factor change and no refund', async () => {
    let tried = 0;
    const failing: Mailer = {
      async send(_m: OutgoingMail) {
        tried++;
        throw new Error('SMTP down');
      },
      close() {},
    };
    const down = await createTestApp({ JOBS: 'false' }, { mailer: failing });
    try {
      const c = new TestClient(down.app);
      const email = uniqueEmail('down');
      await registerUser(c, email);
      const { codes } = await (async () => {
        const secret = (await c.post('/api/profile/2fa/setup')).json().data.secret as string;
        const res = await c.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) });
        expect(res.statusCode, res.body).toBe(200);
        return { codes: res.json().data.recoveryCodes as string[] };
      })();
      const other = new TestClient(down.app);
      const res = await other.post(
        '/api/users/login',
        { email, password: PASSWORD, otp: codes[0]! },
        { headers: { 'user-agent': FIREFOX_LINUX } },
      );
      expect(res.statusCode, res.body).toBe(200);
      expect((await c.post('/api/profile/2fa/disable', { password: PASSWORD, code: codes[1]! })).statusCode).toBe(200);
      expect((await new TestClient(down.app).post('/api/users/login', { email, password: PASSWORD })).statusCode).toBe(
        200,
      );
      await payWithSandbox(down.app, c);
      const [payment] = (await c.get('/api/billing/payments')).json().data.items as { paymentId: string }[];
      expect((await c.post(`/api/billing/payments/${payment!.paymentId}/refund`, {})).statusCode).toBe(200);
      await down.app.settle();
      // verify, 2FA on, recovery code, 2FA off, new browser, receipt, refund: each tried, each failed, none failed its action.
      expect(tried).toBeGreaterThanOrEqual(7);
    } finally {
      await down.close();
    }
  });
});

describe('the browser cookie', () => {
  it('is set by a successful sign-in only; in production __Host-, Secure, httpOnly, 400 days; a malformed value is replaced', async () => {
    const prod = await createTestApp({
      JOBS: 'false',
      NODE_ENV: 'production',
      APP_SECRET: 'a-production-secret-of-at-least-32-characters',
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
      SANDBOX_PAYMENTS: 'false',
    });
    try {
      const email = uniqueEmail('prod');
      await registerUser(new TestClient(prod.app), email);
      const c = new TestClient(prod.app);
      const wrong = await c.post('/api/users/login', { email, password: 'not the password' });
      expect(wrong.statusCode).toBe(422);
      expect(wrong.cookies.find((k) => k.name.includes('warren-browser'))).toBeUndefined();
      const res = await c.post(
        '/api/users/login',
        { email, password: PASSWORD },
        { cookies: { '__Host-warren-browser': 'x; Domain=evil.example' } },
      );
      expect(res.statusCode).toBe(200);
      const cookie = res.cookies.find((k) => k.name === '__Host-warren-browser') as {
        value: string;
        secure?: boolean;
        httpOnly?: boolean;
        path?: string;
        domain?: string;
        maxAge?: number;
        sameSite?: string;
      };
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, path: '/', sameSite: 'Lax', maxAge: 400 * 86_400 });
      expect(cookie.domain).toBeUndefined();
      expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await prod.app.settle();
      // Only an HMAC of it is stored.
      const rows = await prod.app.db.query<{ browser_hash: string }>('select browser_hash from known_browsers');
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((r) => r.browser_hash)).not.toContain(cookie.value);
    } finally {
      await prod.close();
    }
  });
});
