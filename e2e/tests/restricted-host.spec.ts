import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  expect as baseExpect,
  test,
  type APIRequestContext,
  type Page,
  type Request,
  type Response,
} from '@playwright/test';
import { BASE_URL } from '../playwright.config';
import { PASSWORD, SignInPage, linkFromMail, logOut, uniqueEmail } from './helpers';

/**
 * A restricted host (the proxy brand: mainProduct false, config/brands.json) sends every call
 * that carries personal or payment data encrypted under the brand key (README: Restricted
 * hosts). The browser's own requests and the answers it gets are recorded through a purchase,
 * the verification link, the profile, a password change, the SOCKS5 credentials, the dashboard (the
 * ad blocker, a WireGuard device and its config, the payment history and a receipt, the
 * subscription, sign-out), a reset, a sign-in, a one-time sign-in link and the account's deletion,
 * and none may carry a bearer header, the email, a password, a session or link token, a WireGuard
 * key or the payment's details in clear. The dashboard's calls go through the envelope
 * (/api/restrictedCall, README: Restricted hosts).
 */
// A long walk through many pages on a shared machine: each step may wait up to 30 s.
const expect = baseExpect.configure({ timeout: 30_000 });
const PROXY = `http://proxy.localhost:${new URL(BASE_URL).port}`;
const CHANGED_PASSWORD = 'a-changed-pass-3';
const NEW_PASSWORD = 'a-brand-new-pass-2';
const KEY = (
  JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../config/brands.json'), 'utf8')) as {
    brands: { hosts: string[]; restrictedKey: string | null }[];
  }
).brands.find((b) => b.hosts.includes('proxy.localhost'))!.restrictedKey!;

/** The API's text format: base64(iv || AES-256-GCM ciphertext || tag) under the brand key. */
function seal(payload: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(KEY, 'base64'), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}
function open<T>(text: string): T {
  const raw = Buffer.from(text, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(KEY, 'base64'), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return JSON.parse(
    Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8'),
  ) as T;
}

/** A WireGuard private key's public key (X25519, as `wg pubkey` prints it). */
function wgPublicKey(privateKey: string): string {
  const pkcs8 = Buffer.concat([
    Buffer.from('302e020100300506032b656e04220420', 'hex'),
    Buffer.from(privateKey, 'base64'),
  ]);
  return createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }))
    .export({ format: 'der', type: 'spki' })
    .subarray(-32)
    .toString('base64');
}

/** A one-time sign-in link minted the restricted way (the API, as a signed-in client of the proxy host would). */
async function mintOnetimeLink(request: APIRequestContext, token: string): Promise<string> {
  // Node does not resolve *.localhost: the loopback address with the proxy brand's Host.
  const headers = { host: new URL(PROXY).host };
  await request.get(`${BASE_URL}/api/brand`, { headers }); // the XSRF cookie, kept by the request context
  const xsrf = (await request.storageState()).cookies.find((c) => c.name === 'XSRF-TOKEN')!.value;
  const res = await request.post(`${BASE_URL}/api/users/restrictedOnetimeLinkByPromo`, {
    data: seal({ token }),
    headers: { ...headers, 'content-type': 'text/plain', 'x-xsrf-token': decodeURIComponent(xsrf) },
  });
  expect(res.status(), await res.text()).toBe(200);
  const url = new URL(open<{ data: { url: string } }>(await res.text()).data.url);
  return `${url.pathname}${url.search}`;
}

interface Recorded {
  method: string;
  path: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

interface Answered {
  path: string;
  status: number;
  headers: string;
  body: Promise<string>;
}

function record(page: Page, answers: Answered[] = []): Recorded[] {
  const seen: Recorded[] = [];
  page.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (url.origin !== PROXY) return;
    seen.push({
      method: r.method(),
      path: url.pathname,
      url: r.url(),
      authorization: r.headers().authorization,
      body: r.postData() ?? '',
    });
  });
  // The API's answers on this host: their headers and bodies (a rotated token, the email, a secret).
  page.on('response', (r: Response) => {
    const url = new URL(r.url());
    if (url.origin !== PROXY || !url.pathname.startsWith('/api/')) return;
    answers.push({
      path: url.pathname,
      status: r.status(),
      headers: JSON.stringify(r.headers()),
      body: r.text().catch(() => ''),
    });
  });
  return seen;
}

test('a restricted host sends no email, password, session or link token or payment details in clear', async ({
  browser,
  request,
}, info) => {
  test.setTimeout(420_000);
  const email = uniqueEmail('restricted', info);
  const answers: Answered[] = [];
  const viewport = { viewport: info.project.use.viewport ?? undefined };

  // A visitor buys with the sandbox provider at the proxy brand's checkout (one-step sign-up, then the payment).
  const buyer = await browser.newContext(viewport);
  const page = await buyer.newPage();
  const first = record(page, answers);
  await page.goto(`${PROXY}/checkout`);
  await expect(page.getByRole('combobox', { name: 'Language' })).toBeEnabled();
  await page.getByTestId('plan-1-year').click();
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('radio', { name: /sandbox/i }).click();
  await page.getByTestId('pay-button').click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}/);
  const paymentId = /sbx_[a-f0-9]{32}/.exec(page.url())![0];
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await expect(page).toHaveURL(/\/thank-you$/);
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  expect(token).toBeTruthy();
  // A reload restores the session through restrictedUserCheck.
  const checked = page.waitForRequest((r) => r.url().endsWith('/api/users/restrictedUserCheck'));
  await page.goto(`${PROXY}/plans`);
  await checked;
  await expect(page.getByTestId('pay-button')).toBeVisible();
  // The verification link from the mail (restrictedVerifyUser), then the profile (restrictedGet) and a password change.
  const verifyLink = await linkFromMail(request, email, '/sign-in');
  const verifyToken = new URLSearchParams(verifyLink.split('?')[1]).get('token')!;
  await page.goto(`${PROXY}${verifyLink}`);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto(`${PROXY}/profile`);
  await expect(page.getByRole('textbox', { name: 'Email' })).toHaveValue(email);
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password', { exact: true }).fill(CHANGED_PASSWORD);
  await page.getByLabel('Confirm new password').fill(CHANGED_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Password updated successfully')).toBeVisible();
  // The OpenVPN/SOCKS5 credentials (setup/services/restrictedGet): the password only inside an encrypted answer.
  await page.goto(`${PROXY}/setup/socks5-proxy`);
  const servicePassword = await page.getByTestId('service-password').inputValue();
  expect(servicePassword.length).toBeGreaterThanOrEqual(16);
  // The dashboard, whose calls go through the envelope: the ad blocker on (a paid plan)...
  await page.goto(`${PROXY}/dashboard`);
  const adBlocker = page.getByRole('switch', { name: 'Ad Blocker' });
  await expect(adBlocker).toBeAttached();
  await expect(adBlocker).not.toBeChecked();
  await adBlocker.focus();
  await page.keyboard.press('Space');
  await expect(page.getByText('Ad Blocker is turned on.')).toBeVisible();
  await expect(adBlocker).toBeChecked();
  await page.reload();
  await expect(adBlocker).toBeChecked();
  // ...a WireGuard device and its downloaded config (the key pair is made in the browser)...
  await page.goto(`${PROXY}/setup/wg`);
  const deviceName = 'Restricted tablet';
  await page.getByRole('textbox', { name: 'Device name' }).fill(deviceName);
  await page.getByTestId('add-device').click();
  await expect(page.getByTestId('fresh-config')).toBeVisible();
  await expect(page.getByTestId('wg-device')).toContainText(deviceName);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-conf').click()]);
  const conf = fs.readFileSync((await download.path())!, 'utf8');
  const privateKey = /PrivateKey\s*=\s*(\S+)/.exec(conf)![1]!;
  const devicePublicKey = wgPublicKey(privateKey);
  // ...the payment history with its receipt and the subscription...
  await page.goto(`${PROXY}/subscription`);
  await expect(page.getByTestId('subscription-status')).toHaveText('Active');
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  await expect(page.getByTestId('history-row')).toContainText('Paid');
  const receiptDownload = page.waitForEvent('download');
  await page.getByTestId('download-receipt').click();
  const receipt = await receiptDownload;
  expect(receipt.suggestedFilename()).toMatch(/^receipt-[A-Z-]+-\d{6}\.pdf$/);
  expect(
    fs
      .readFileSync((await receipt.path())!)
      .subarray(0, 5)
      .toString(),
  ).toBe('%PDF-');
  // ...and sign-out, which ends the session.
  await logOut(page);
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  await Promise.all(answers.map((a) => a.body));
  await buyer.close();

  // Another browser: the reset request, the new password from the mail, and a sign-in with it.
  const other = await browser.newContext(viewport);
  const page2 = await other.newPage();
  const second = record(page2, answers);
  await page2.goto(`${PROXY}/forgot-pass`);
  await page2.getByLabel('Email').fill(email);
  await page2.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page2.getByRole('status')).toBeVisible();
  const resetLink = await linkFromMail(request, email, '/reset-password');
  const resetToken = new URLSearchParams(resetLink.split('?')[1]).get('token')!;
  await page2.goto(`${PROXY}${resetLink}`);
  await page2.getByLabel('New password').fill(NEW_PASSWORD);
  await page2.getByLabel('Confirm password').fill(NEW_PASSWORD);
  await page2.getByRole('button', { name: 'Update password' }).click();
  await expect(page2).toHaveURL(/\/sign-in$/);
  await new SignInPage(page2).signIn(email, NEW_PASSWORD);
  await expect(page2).not.toHaveURL(/\/sign-in$/);
  const token2 = (await page2.evaluate(() => localStorage.getItem('token')))!;
  await Promise.all(answers.map((a) => a.body));
  await other.close();

  // A third browser opens a one-time sign-in link (restrictedOnetimeLogin) and deletes the account (restrictedAnnihilation).
  const onetimeLink = await mintOnetimeLink(request, token2);
  const onetimeToken = new URLSearchParams(onetimeLink.split('?')[1]).get('token')!;
  const third = await browser.newContext(viewport);
  const page3 = await third.newPage();
  const thirdSeen = record(page3, answers);
  await page3.goto(`${PROXY}${onetimeLink}`);
  await expect(page3).toHaveURL(/\/dashboard$/);
  const token3 = (await page3.evaluate(() => localStorage.getItem('token')))!;
  expect(token3).toBeTruthy();
  await page3.goto(`${PROXY}/profile`);
  await page3.getByRole('button', { name: 'Delete my account' }).click();
  const dialog = page3.getByRole('dialog', { name: 'Delete your account?' });
  await dialog.getByLabel('Current password').fill(NEW_PASSWORD);
  await dialog.getByRole('button', { name: 'Delete account' }).click();
  await expect(page3.getByText('Your account is deleted.')).toBeVisible();
  await Promise.all(answers.map((a) => a.body));
  await third.close();
  const seen = [...first, ...second, ...thirdSeen];

  // The calls went through the restricted variants, as text, without a bearer header.
  const calls = seen.filter((s) => s.path.startsWith('/api/') && s.method === 'POST' && /restricted/i.test(s.path));
  expect(calls.map((c) => c.path)).toEqual(
    expect.arrayContaining([
      '/api/users/restrictedRegister',
      '/api/billing/restrictedCreatePayment',
      '/api/users/restrictedUserCheck',
      '/api/users/restrictedVerifyUser',
      '/api/profile/restrictedGet',
      '/api/profile/restrictedPassword',
      '/api/users/restrictedRequestResetPassword',
      '/api/users/restrictedResetPassword',
      '/api/users/restrictedLogin',
      '/api/users/restrictedOnetimeLogin',
      '/api/users/restrictedAnnihilation',
      '/api/setup/services/restrictedGet',
    ]),
  );
  // No request on this host carries a bearer header at all: the dashboard's went through the envelope.
  for (const s of seen) expect(s.authorization, `${s.method} ${s.path}`).toBeUndefined();
  expect(seen.filter((s) => s.path === '/api/restrictedCall').length).toBeGreaterThan(5);
  // None of the plain calls that carry such data was made on this host.
  const plain = [
    '/api/users/register',
    '/api/users/login',
    '/api/users/requestResetPassword',
    '/api/users/resetPassword',
    '/api/users/info/get',
    '/api/billing/createPayment',
    '/api/users/verifyUser',
    '/api/users/onetimeLogin',
    '/api/users/annihilation',
    '/api/profile',
    '/api/profile/password',
    '/api/profile/update',
    '/api/setup/services/get',
    '/api/setup/stealth/get',
    '/api/setup/wg/get',
    '/api/setup/wg/devices/add',
    '/api/setup/features/get',
    '/api/setup/features/state',
    '/api/billing/payments',
    '/api/billing/subscription',
    '/api/users/logout',
    '/api/rewards',
  ];
  expect(
    seen.filter((s) => plain.includes(s.path) || /^\/api\/billing\/payments\//.test(s.path)).map((s) => s.path),
  ).toEqual([]);

  // No request body or address on this host carries the data in clear. An emailed link's token is
  // in the address of the page the mail opens (README: not yet encrypted), never in an API call.
  const secrets = [
    email,
    encodeURIComponent(email),
    PASSWORD,
    CHANGED_PASSWORD,
    NEW_PASSWORD,
    token,
    token2,
    token3,
    '"tariffId"',
    '"provider"',
    'idempotencyKey',
    'password',
  ];
  const linkTokens = [verifyToken, resetToken, onetimeToken];
  // The dashboard's data: the device (its keys and name) and the payment (its id, amounts, receipt).
  // The payment's id is in the address of the provider's page (the sandbox stands in for it), never in an API call.
  const dashboard = [
    privateKey,
    devicePublicKey,
    encodeURIComponent(devicePublicKey),
    deviceName,
    'amountMinor',
    'receipt-',
    '%PDF',
  ];
  for (const s of seen) {
    if (s.path.startsWith('/api/'))
      for (const secret of [...dashboard, paymentId])
        expect(`${s.url}\n${s.body}`.includes(secret), `${s.method} ${s.path} carries ${secret}`).toBe(false);
    for (const secret of [...secrets, ...linkTokens]) {
      expect(s.body.includes(secret), `${s.method} ${s.path} carries ${secret} in its body`).toBe(false);
      if (secret === 'password' || (linkTokens.includes(secret) && !s.path.startsWith('/api/'))) continue;
      expect(s.url.includes(secret), `${s.method} ${s.url} carries ${secret} in its address`).toBe(false);
    }
  }
  // No answer of the API on this host shows them either: not the session (not even a rotated one, in a header), not the email.
  expect(answers.length).toBeGreaterThan(10);
  for (const a of answers) {
    const text = `${a.headers}\n${await a.body}`;
    expect(
      (JSON.parse(a.headers) as Record<string, string>).authorization,
      `the answer of ${a.path} has an Authorization header`,
    ).toBeUndefined();
    for (const secret of [
      email,
      token,
      token2,
      token3,
      PASSWORD,
      CHANGED_PASSWORD,
      NEW_PASSWORD,
      servicePassword,
      ...linkTokens,
      ...dashboard,
      paymentId,
    ]) {
      expect(text.includes(secret), `the answer of ${a.path} shows ${secret}`).toBe(false);
    }
  }
  // The data did travel, sealed: the envelope's answers, opened with the page's key, hold the device, the payment history and the receipt.
  // (A body the browser no longer held when asked, after its page went on, reads empty.)
  const sealedBodies = (
    await Promise.all(answers.filter((a) => a.path === '/api/restrictedCall' && a.status === 200).map((a) => a.body))
  ).filter((b) => b !== '');
  expect(sealedBodies.length).toBeGreaterThan(5);
  const inside = sealedBodies.map((b) => JSON.stringify(open(b)));
  for (const carried of [devicePublicKey, deviceName, 'amountMinor', 'tariffName', 'bodyBase64'])
    expect(
      inside.some((t) => t.includes(carried)),
      `no envelope carried ${carried}`,
    ).toBe(true);
});
