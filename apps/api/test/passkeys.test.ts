// Passkeys (modules/passkeys, issue 23): registration in the profile, sign-in without a password, a
// passkey as the second step after the password, the operator console's second step, and attacks.
// The authenticator is real software (test/webauthn-authenticator.ts): a P-256 key made with
// node:crypto, a 'none' attestation and assertions signed with it, so @simplewebauthn/server checks
// genuine signatures here; nothing on the server side is mocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../src/lib/totp.js';
import { PASSWORD, TestClient, createTestApp, mailTo, registerUser, uniqueEmail, type TestApp } from './helpers.js';
import { type SoftPasskey, assert, createPasskey } from './webauthn-authenticator.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false', LIMIT_REGISTER_PER_IP: '200', LIMIT_LOGIN_PER_IP: '500' });
  await t.app.ready();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const ORIGIN = 'http://localhost';
const P = {
  regOptions: '/api/profile/passkeys/register/options',
  regVerify: '/api/profile/passkeys/register/verify',
  list: '/api/profile/passkeys',
  rename: '/api/profile/passkeys/rename',
  remove: '/api/profile/passkeys/remove',
  options: '/api/users/passkey/options',
  login: '/api/users/passkey/login',
};

type Options = { challenge: string; rp: { id: string; name: string }; user: { id: string; name: string } };

async function customer() {
  const c = new TestClient(t.app);
  const email = uniqueEmail('pk');
  const { user } = await registerUser(c, email);
  return { c, email, id: user.id };
}

async function addPasskey(c: TestClient, name?: string, o: { origin?: string; rpId?: string; synced?: boolean } = {}) {
  const res = await c.post(P.regOptions, { password: PASSWORD });
  expect(res.statusCode, res.body).toBe(200);
  const options = res.json().data as Options;
  const made = createPasskey(options, { origin: o.origin ?? ORIGIN, rpId: o.rpId, synced: o.synced });
  const verify = await c.post(P.regVerify, { response: made.response, ...(name ? { name } : {}) });
  return { options, passkey: made.passkey, verify };
}

async function signInOptions(browser: TestClient) {
  const res = await browser.post(P.options, { use: 'sign-in' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { challenge: string; rpId: string; allowCredentials?: unknown[]; userVerification: string };
}

async function passkeySignIn(
  browser: TestClient,
  pk: SoftPasskey,
  extra: Parameters<typeof assert>[2] = { origin: ORIGIN },
) {
  const options = await signInOptions(browser);
  return browser.post(P.login, { response: assert(pk, options, extra) });
}

describe('passkeys in the profile', () => {
  it('adds a passkey with the password again, lists it, renames it, and the owner is mailed', async () => {
    const { c, email } = await customer();
    const wrong = await c.post(P.regOptions, { password: 'not my password' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.password).toBeDefined();

    const { options, verify } = await addPasskey(c, 'My laptop');
    expect(verify.statusCode, verify.body).toBe(200);
    // The options are the brand's RP and ask for a discoverable, user-verifying credential.
    expect(options.rp).toEqual({ id: 'localhost', name: expect.any(String) });
    expect(options).toMatchObject({
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    // The user handle is opaque: neither the account id nor the email.
    expect(Buffer.from(options.user.id, 'base64url').length).toBe(32);

    const list = (await c.get(P.list)).json().data.items;
    expect(list).toEqual([
      { id: expect.any(Number), name: 'My laptop', createdAt: expect.any(String), lastUsedAt: null, synced: false },
    ]);
    expect((await c.post(P.rename, { id: list[0].id, name: '  Work laptop ' })).statusCode).toBe(200);
    expect((await c.get(P.list)).json().data.items[0].name).toBe('Work laptop');

    const mails = await mailTo(c, t.app, email);
    const added = mails.find((m) => /passkey was added/i.test(m.subject));
    expect(added?.text).toContain('“My laptop”');
  });

  it('refuses a registration for another origin or RP ID, a replayed one, and one from another session', async () => {
    const { c } = await customer();
    expect((await addPasskey(c, 'x', { origin: 'http://evil.example' })).verify.statusCode).toBe(422);
    expect((await addPasskey(c, 'x', { rpId: 'evil.example' })).verify.statusCode).toBe(422);

    const { options, verify } = await addPasskey(c, 'ok');
    expect(verify.statusCode).toBe(200);
    // The same options again (its challenge is spent): a new key over the old challenge is refused.
    const again = createPasskey(options, { origin: ORIGIN });
    const replay = await c.post(P.regVerify, { response: again.response });
    expect(replay.statusCode).toBe(422);
    expect(replay.json().errors.response[0]).toMatch(/expired/);

    // A challenge is bound to the session that asked: another session of the same account cannot use it.
    const other = new TestClient(t.app);
    other.token = (
      await other.post('/api/users/login', {
        email: (await c.get('/api/users/info/get')).json().data.email,
        password: PASSWORD,
      })
    ).json().data.token;
    const fresh = (await c.post(P.regOptions, { password: PASSWORD })).json().data as Options;
    const stolen = await other.post(P.regVerify, { response: createPasskey(fresh, { origin: ORIGIN }).response });
    expect(stolen.statusCode).toBe(422);
    expect((await c.get(P.list)).json().data.items).toHaveLength(1);
  });

  it("cannot rename or remove another account's passkey; removing needs the password and is mailed", async () => {
    const a = await customer();
    const b = await customer();
    await addPasskey(a.c, 'A key');
    const aId = (await a.c.get(P.list)).json().data.items[0].id;
    expect((await b.c.post(P.rename, { id: aId, name: 'mine now' })).statusCode).toBe(404);
    expect((await b.c.post(P.remove, { id: aId, password: PASSWORD })).statusCode).toBe(404);
    expect((await a.c.post(P.remove, { id: aId, password: 'wrong wrong' })).statusCode).toBe(422);
    expect((await a.c.get(P.list)).json().data.items[0].name).toBe('A key');
    expect((await a.c.post(P.remove, { id: aId, password: PASSWORD })).statusCode).toBe(200);
    expect((await a.c.get(P.list)).json().data.items).toEqual([]);
    const mails = await mailTo(a.c, t.app, a.email);
    expect(mails.find((m) => /passkey was removed/i.test(m.subject))?.text).toContain('“A key”');
  });

  it('answers bad input with 422 and field messages, never a 5xx', async () => {
    const { c } = await customer();
    const bodies: unknown[] = [
      {},
      { response: 'x' },
      { response: { id: 'a', rawId: 'a', type: 'public-key', response: {} } },
      {
        response: {
          id: '!!',
          rawId: '!!',
          type: 'public-key',
          response: { clientDataJSON: 'a', attestationObject: 'b' },
        },
      },
      {
        response: {
          id: 'a'.repeat(5000),
          rawId: 'a',
          type: 'public-key',
          response: { clientDataJSON: 'a', attestationObject: 'b' },
        },
      },
      // Well-formed but garbage: the client data is not JSON.
      {
        response: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' },
        },
      },
    ];
    for (const body of bodies) {
      const res = await c.post(P.regVerify, body);
      expect(res.statusCode, res.body).toBe(422);
      expect(Object.keys(res.json().errors ?? {}).length, res.body).toBeGreaterThan(0);
    }
    for (const name of ['', 'x'.repeat(65), 'a\u0000b', 'rtl\u202e']) {
      const res = await c.post(P.rename, { id: 1, name });
      expect(res.statusCode, `${JSON.stringify(name)} ${res.body}`).toBe(422);
      expect(res.json().errors.name).toBeDefined();
    }
    expect((await c.post(P.rename, { id: 'x', name: 'ok' })).statusCode).toBe(422);
    expect((await c.post(P.remove, { id: 99999999999, password: PASSWORD })).statusCode).toBe(422);
    const login = await new TestClient(t.app).post(P.login, {
      response: {
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key',
        response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
      },
    });
    expect(login.statusCode).toBe(422);
    expect(login.json().errors.response).toBeDefined();
  });

  it('needs a session for the profile calls, and the path spelled another way is no way around it', async () => {
    const anon = new TestClient(t.app);
    expect((await anon.get(P.list)).statusCode).toBe(401);
    expect((await anon.post(P.regOptions, { password: PASSWORD })).statusCode).toBe(401);
    for (const url of [
      '/%61pi/profile/passkeys',
      '/api/profile/%70asskeys',
      '/API/profile/passkeys',
      '/api//profile/passkeys',
    ])
      expect([401, 404]).toContain((await anon.get(url)).statusCode);
  });
});

describe('signing in with a passkey', () => {
  it('signs in with no password; last used is recorded; the same assertion cannot be replayed', async () => {
    const { c, id } = await customer();
    const { passkey } = await addPasskey(c, 'Phone');
    const browser = new TestClient(t.app);
    const options = await signInOptions(browser);
    // Discoverable: the options name no credentials (that would tell a stranger which ones exist).
    expect(options.allowCredentials ?? []).toEqual([]);
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    const response = assert(passkey, options, { origin: ORIGIN });
    const res = await browser.post(P.login, { response });
    expect(res.statusCode, res.body).toBe(200);
    browser.token = res.json().data.token;
    expect((await browser.get('/api/users/info/get')).json().data.id).toBe(id);
    expect((await c.get(P.list)).json().data.items[0].lastUsedAt).not.toBeNull();

    const replay = await browser.post(P.login, { response });
    expect(replay.statusCode).toBe(422);
    expect(replay.json().errors.response[0]).toMatch(/expired/);
  });

  it('refuses a wrong origin, a wrong RP ID, no user verification, a counter going backwards, a forged signature', async () => {
    const { c } = await customer();
    const { passkey } = await addPasskey(c, 'Key');
    const browser = new TestClient(t.app);
    expect((await passkeySignIn(browser, passkey, { origin: 'http://evil.example' })).statusCode).toBe(422);
    expect((await passkeySignIn(browser, passkey, { origin: 'http://localhost:1' })).statusCode).toBe(422);
    expect((await passkeySignIn(browser, passkey, { origin: ORIGIN, rpId: 'evil.example' })).statusCode).toBe(422);
    expect((await passkeySignIn(browser, passkey, { origin: ORIGIN, userVerified: false })).statusCode).toBe(422);
    expect((await passkeySignIn(browser, passkey, { origin: ORIGIN, counter: 50 })).statusCode).toBe(200);
    expect((await passkeySignIn(browser, passkey, { origin: ORIGIN, counter: 49 })).statusCode).toBe(422);
    expect((await passkeySignIn(browser, passkey, { origin: ORIGIN, counter: 50 })).statusCode).toBe(422);
    // Another key signing for this credential id.
    const impostor = createPasskey(
      { challenge: 'x', rp: { id: 'localhost' }, user: { id: passkey.userHandle } },
      { origin: ORIGIN },
    ).passkey;
    impostor.credentialId = passkey.credentialId;
    expect((await passkeySignIn(browser, impostor, { origin: ORIGIN, counter: 99 })).statusCode).toBe(422);
    expect((await passkeySignIn(browser, passkey, { origin: ORIGIN, counter: 51 })).statusCode).toBe(200);
  });

  it('a challenge is single use, bound to the browser that asked, and refused when it was signed for another', async () => {
    const { c } = await customer();
    const { passkey } = await addPasskey(c, 'Key');
    const asker = new TestClient(t.app);
    const options = await signInOptions(asker);
    // Another browser (no cookie of the asker) presenting an assertion over the asker's challenge.
    const thief = new TestClient(t.app);
    await thief.primeXsrf();
    const stolen = await thief.post(P.login, { response: assert(passkey, options, { origin: ORIGIN }) });
    expect(stolen.statusCode).toBe(422);
    // A challenge the server never issued.
    const made = await asker.post(P.login, {
      response: assert(passkey, options, { origin: ORIGIN, challenge: 'A'.repeat(43) }),
    });
    expect(made.statusCode).toBe(422);
    // The asker's own challenge still works once, then is spent.
    expect((await asker.post(P.login, { response: assert(passkey, options, { origin: ORIGIN }) })).statusCode).toBe(
      200,
    );
    expect((await asker.post(P.login, { response: assert(passkey, options, { origin: ORIGIN }) })).statusCode).toBe(
      422,
    );
  });

  it('parallel verifications of one challenge: exactly one passes', async () => {
    const { c } = await customer();
    const { passkey } = await addPasskey(c, 'Key', { synced: true });
    const browser = new TestClient(t.app);
    const options = await signInOptions(browser);
    // Synced passkeys report counter 0 each time, so only the challenge can stop the second one.
    const responses = Array.from({ length: 6 }, () => assert(passkey, options, { origin: ORIGIN, synced: true }));
    const results = await Promise.all(responses.map((response) => browser.post(P.login, { response })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 422, 422, 422, 422, 422]);
    expect((await c.get(P.list)).json().data.items[0].synced).toBe(true);
  });

  it('parallel assertions with one counter value over different challenges: only one passes', async () => {
    const { c } = await customer();
    const { passkey } = await addPasskey(c, 'Key');
    const browsers = [new TestClient(t.app), new TestClient(t.app), new TestClient(t.app)];
    const options = await Promise.all(browsers.map(signInOptions));
    const results = await Promise.all(
      browsers.map((b, i) =>
        b.post(P.login, { response: assert(passkey, options[i]!, { origin: ORIGIN, counter: 7 }) }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 422, 422]);
  });

  it('a suspended account cannot sign in with its passkey; an erased account loses its passkeys', async () => {
    const { c, id } = await customer();
    const { passkey } = await addPasskey(c, 'Key');
    await t.app.db.query(`update users set account_status = 'Suspended' where id = $1`, [id]);
    expect((await passkeySignIn(new TestClient(t.app), passkey)).statusCode).toBe(403);
    await t.app.db.query(`update users set account_status = 'Active' where id = $1`, [id]);
    await c.post(P.options, { use: 'sign-in' });
    expect((await c.post('/api/users/annihilation', { password: PASSWORD })).statusCode).toBe(200);
    expect(await t.app.db.query('select id from passkeys where user_id = $1', [id])).toEqual([]);
    expect(await t.app.db.query('select user_id from webauthn_challenges where user_id = $1', [id])).toEqual([]);
    expect((await passkeySignIn(new TestClient(t.app), passkey)).statusCode).toBe(422);
  });
});

describe('a passkey as the second step after the password', () => {
  async function withTwoFactor() {
    const a = await customer();
    const secret = (await a.c.post('/api/profile/2fa/setup')).json().data.secret;
    expect(
      (await a.c.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) })).statusCode,
    ).toBe(200);
    const { passkey } = await addPasskey(a.c, 'Key');
    return { ...a, passkey };
  }

  it("is accepted instead of the code, and another account's passkey is not", async () => {
    const a = await withTwoFactor();
    const b = await withTwoFactor();
    const browser = new TestClient(t.app);
    const noCode = await browser.post('/api/users/login', { email: a.email, password: PASSWORD });
    expect(noCode.json().errors.otp).toBeDefined();

    // B's genuine passkey after A's password.
    let options = await signInOptions(browser);
    const other = await browser.post('/api/users/login', {
      email: a.email,
      password: PASSWORD,
      passkey: assert(b.passkey, options, { origin: ORIGIN }),
    });
    expect(other.statusCode).toBe(422);
    expect(other.json().errors.otp).toBeDefined();

    // A's passkey without user verification is enough here (the password was the first factor).
    options = await signInOptions(browser);
    const ok = await browser.post('/api/users/login', {
      email: a.email,
      password: PASSWORD,
      passkey: assert(a.passkey, options, { origin: ORIGIN, userVerified: false }),
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.user.id).toBe(a.id);

    // The wrong password with A's passkey: still the password's answer.
    options = await signInOptions(browser);
    const wrong = await browser.post('/api/users/login', {
      email: a.email,
      password: 'wrong wrong',
      passkey: assert(a.passkey, options, { origin: ORIGIN }),
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.email).toBeDefined();
  });

  it('a passkey sign-in alone satisfies two-factor sign-in', async () => {
    const a = await withTwoFactor();
    const res = await passkeySignIn(new TestClient(t.app), a.passkey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.user).toMatchObject({ id: a.id, twoFactorEnabled: true });
  });
});

describe('staff sign-in with a passkey', () => {
  it('registers from the console and signs in with password + passkey instead of a code', async () => {
    const member = new TestClient(t.app);
    const email = uniqueEmail('staffpk');
    const { user } = await registerUser(member, email);
    const secret = (await member.post('/api/profile/2fa/setup')).json().data.secret;
    const enabled = await member.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) });
    const recovery = enabled.json().data.recoveryCodes as string[];
    await t.app.services.staff.grantRole(email, 'support');

    const consoleBrowser = new TestClient(t.app);
    expect(
      (await consoleBrowser.post('/api/staff/session', { email, password: PASSWORD, code: recovery[0] })).statusCode,
    ).toBe(200);
    const opt = await consoleBrowser.post('/api/staff/passkeys/register/options', { password: PASSWORD });
    expect(opt.statusCode, opt.body).toBe(200);
    const made = createPasskey(opt.json().data, { origin: ORIGIN });
    const reg = await consoleBrowser.post('/api/staff/passkeys/register/verify', {
      response: made.response,
      name: 'Console key',
    });
    expect(reg.statusCode, reg.body).toBe(200);
    expect(
      (await consoleBrowser.get('/api/staff/passkeys')).json().data.items.map((p: { name: string }) => p.name),
    ).toEqual(['Console key']);

    const fresh = new TestClient(t.app);
    const missing = await fresh.post('/api/staff/session', { email, password: PASSWORD });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors.code).toBeDefined();
    // The customer sign-in's challenge is no staff challenge.
    const customerOptions = await signInOptions(fresh);
    const wrongPurpose = await fresh.post('/api/staff/session', {
      email,
      password: PASSWORD,
      passkey: assert(made.passkey, customerOptions, { origin: ORIGIN }),
    });
    expect(wrongPurpose.statusCode).toBe(422);
    const options = (await fresh.post('/api/staff/session/passkey-options', { use: 'second-step' })).json().data;
    const response = assert(made.passkey, options, { origin: ORIGIN });
    const ok = await fresh.post('/api/staff/session', { email, password: PASSWORD, passkey: response });
    expect(ok.statusCode, ok.body).toBe(200);
    const [row] = await t.app.db.query<{ detail: { secondFactor: string } }>(
      `select detail from staff_audit where action = 'sign-in' and target_user_id = $1 order by id desc limit 1`,
      [user.id],
    );
    expect(row?.detail.secondFactor).toBe('passkey');
    // Replayed at another sign-in: refused with the generic answer.
    const replay = await new TestClient(t.app).post('/api/staff/session', {
      email,
      password: PASSWORD,
      passkey: response,
    });
    expect(replay.statusCode).toBe(422);
  });
});

describe("a staff member's passkeys in the staff audit log", () => {
  type Row = { action: string; actor: string; role: string; detail: { name: string; where: string }; ip: string };
  const rows = async (userId: number) =>
    t.app.db.query<Row>(
      `select action, actor, role, detail, ip from staff_audit
        where target_user_id = $1 and action like 'passkey-%' order by seq`,
      [userId],
    );

  it("adding and removing one in the console or the profile is audited; a customer's is not", async () => {
    const member = new TestClient(t.app);
    const email = uniqueEmail('staffpkaudit');
    const { user } = await registerUser(member, email);
    const secret = (await member.post('/api/profile/2fa/setup')).json().data.secret;
    const enabled = await member.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) });
    const recovery = enabled.json().data.recoveryCodes as string[];
    await t.app.services.staff.grantRole(email, 'support');
    const consoleBrowser = new TestClient(t.app);
    expect(
      (await consoleBrowser.post('/api/staff/session', { email, password: PASSWORD, code: recovery[0] })).statusCode,
    ).toBe(200);

    // In the console.
    const opt = await consoleBrowser.post('/api/staff/passkeys/register/options', { password: PASSWORD });
    const made = createPasskey(opt.json().data, { origin: ORIGIN });
    const reg = await consoleBrowser.post('/api/staff/passkeys/register/verify', {
      response: made.response,
      name: 'Console key',
    });
    expect(reg.statusCode, reg.body).toBe(200);
    // In the profile (the same account's passkeys: a second step of the console's sign-in too).
    const fromProfile = await addPasskey(member, 'Phone');
    expect(fromProfile.verify.statusCode).toBe(200);
    const wrongPassword = await consoleBrowser.post('/api/staff/passkeys/remove', {
      id: fromProfile.verify.json().data.id,
      password: 'not the password',
    });
    expect(wrongPassword.statusCode).toBe(422);
    const removed = await consoleBrowser.post('/api/staff/passkeys/remove', {
      id: fromProfile.verify.json().data.id,
      password: PASSWORD,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await member.post(P.remove, { id: reg.json().data.id, password: PASSWORD })).statusCode).toBe(200);

    expect((await rows(user.id)).map((r) => [r.action, r.detail.name, r.detail.where, r.actor, r.role])).toEqual([
      ['passkey-add', 'Console key', 'console', email, 'support'],
      ['passkey-add', 'Phone', 'profile', email, 'support'],
      ['passkey-remove', 'Phone', 'console', email, 'support'],
      ['passkey-remove', 'Console key', 'profile', email, 'support'],
    ]);
    // The console's audit view lists them (its words: apps/web/src/features/staff/lib/audit-words.ts).
    const page = await consoleBrowser.get(`/api/staff/audit?targetUserId=${user.id}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(
      (page.json().data.items as { action: string }[]).filter((e) => e.action.startsWith('passkey-')),
    ).toHaveLength(4);
    // The chain still verifies with the new rows.
    expect((await t.app.services.staff.verifyAudit()).ok).toBe(true);

    // A customer's passkeys are not staff business.
    const c = await customer();
    expect((await addPasskey(c.c, 'Laptop')).verify.statusCode).toBe(200);
    expect(await rows(c.id)).toEqual([]);
  });
});

describe('where the relying party comes from', () => {
  it('a forged Host header gets the registry brand origin, never its own', async () => {
    const forged = new TestClient(t.app, { host: 'evil.example' });
    const res = await forged.post(P.options, { use: 'sign-in' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.rpId).toBe('localhost');
    const { c } = await customer();
    const { passkey } = await addPasskey(c, 'Key');
    // Signed by the browser on evil.example for evil.example: refused whatever Host it is sent with.
    const options = await signInOptions(forged);
    const forgedRes = await forged.post(P.login, {
      response: assert(passkey, options, { origin: 'http://evil.example', rpId: 'evil.example' }),
    });
    expect(forgedRes.statusCode).toBe(422);
  });

  it('under NODE_ENV=production: the https origin of the brand, the __Host- browser cookie, an http origin refused', async () => {
    const prod = await createTestApp({
      JOBS: 'false',
      NODE_ENV: 'production',
      APP_SECRET: 'a-production-secret-of-at-least-32-characters',
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
      SANDBOX_PAYMENTS: 'false',
    });
    try {
      const c = new TestClient(prod.app);
      await registerUser(c, uniqueEmail('pkprod'));
      const first = (await c.post(P.regOptions, { password: PASSWORD })).json().data as Options;
      expect(first.rp.id).toBe('localhost');
      const http = await c.post(P.regVerify, {
        response: createPasskey(first, { origin: 'http://localhost' }).response,
      });
      expect(http.statusCode).toBe(422);
      const second = (await c.post(P.regOptions, { password: PASSWORD })).json().data as Options;
      const made = createPasskey(second, { origin: 'https://localhost' });
      expect((await c.post(P.regVerify, { response: made.response, name: 'Prod key' })).statusCode).toBe(200);

      const browser = new TestClient(prod.app);
      const options = await browser.post(P.options, { use: 'sign-in' });
      expect(options.statusCode, options.body).toBe(200);
      const cookie = ([] as string[])
        .concat(options.headers['set-cookie'] ?? [])
        .find((h) => h.startsWith('__Host-warren-browser='));
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/Secure/i);
      const data = options.json().data as { challenge: string };
      expect(
        (await browser.post(P.login, { response: assert(made.passkey, data, { origin: 'http://localhost' }) }))
          .statusCode,
      ).toBe(422);
      const again = (await browser.post(P.options, { use: 'sign-in' })).json().data as { challenge: string };
      const ok = await browser.post(P.login, {
        response: assert(made.passkey, again, { origin: 'https://localhost' }),
      });
      expect(ok.statusCode, ok.body).toBe(200);
    } finally {
      await prod.close();
    }
  });
});
