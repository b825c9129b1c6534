import { expect, test, type Page, type Request } from '@playwright/test';
import { BASE_URL } from '../playwright.config';
import { PASSWORD, SignInPage, linkFromMail, uniqueEmail } from './helpers';

/**
 * A restricted host (the proxy brand: mainProduct false, config/brands.json) sends every call
 * that carries personal or payment data encrypted under the brand key (spec section 6). The
 * browser's own requests are recorded through a purchase, a sign-in and a password reset, and
 * none may carry the email, a password, the session token or the payment's details in clear.
 */
const PROXY = `http://proxy.localhost:${new URL(BASE_URL).port}`;
const NEW_PASSWORD = 'a-brand-new-pass-2';

interface Recorded {
  method: string;
  path: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

function record(page: Page): Recorded[] {
  const seen: Recorded[] = [];
  page.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (url.origin !== PROXY) return;
    seen.push({ method: r.method(), path: url.pathname, url: r.url(), authorization: r.headers().authorization, body: r.postData() ?? '' });
  });
  return seen;
}

test('a restricted host sends no email, password, session token or payment details in clear', async ({ browser, request }, info) => {
  test.setTimeout(120_000);
  const email = uniqueEmail('restricted', info);
  const seen: Recorded[] = [];

  // A visitor buys with the sandbox provider at the proxy brand's checkout (one-step sign-up, then the payment).
  const buyer = await browser.newContext({ viewport: info.project.use.viewport ?? undefined });
  const page = await buyer.newPage();
  const first = record(page);
  await page.goto(`${PROXY}/checkout`);
  await expect(page.getByRole('combobox', { name: 'Language' })).toBeEnabled();
  await page.getByTestId('plan-1-year').click();
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('radio', { name: /sandbox/i }).click();
  await page.getByTestId('pay-button').click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}/);
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await expect(page).toHaveURL(/\/thank-you$/);
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  expect(token).toBeTruthy();
  // A reload restores the session through restrictedUserCheck.
  const checked = page.waitForRequest((r) => r.url().endsWith('/api/users/restrictedUserCheck'));
  await page.goto(`${PROXY}/plans`);
  await checked;
  await expect(page.getByTestId('pay-button')).toBeVisible();
  await buyer.close();

  // Another browser: the reset request, the new password from the mail, and a sign-in with it.
  const other = await browser.newContext({ viewport: info.project.use.viewport ?? undefined });
  const page2 = await other.newPage();
  const second = record(page2);
  await page2.goto(`${PROXY}/forgot-pass`);
  await page2.getByLabel('Email').fill(email);
  await page2.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page2.getByRole('status')).toBeVisible();
  await page2.goto(`${PROXY}${await linkFromMail(request, email, '/reset-password')}`);
  await page2.getByLabel('New password').fill(NEW_PASSWORD);
  await page2.getByLabel('Confirm password').fill(NEW_PASSWORD);
  await page2.getByRole('button', { name: 'Update password' }).click();
  await expect(page2).toHaveURL(/\/sign-in$/);
  await new SignInPage(page2).signIn(email, NEW_PASSWORD);
  await expect(page2).not.toHaveURL(/\/sign-in$/);
  await other.close();
  seen.push(...first, ...second);

  // The calls went through the restricted variants, as text, without a bearer header.
  const calls = seen.filter((s) => s.path.startsWith('/api/') && s.method === 'POST' && /restricted/i.test(s.path));
  expect(calls.map((c) => c.path)).toEqual(
    expect.arrayContaining([
      '/api/users/restrictedRegister',
      '/api/billing/restrictedCreatePayment',
      '/api/users/restrictedUserCheck',
      '/api/users/restrictedRequestResetPassword',
      '/api/users/restrictedResetPassword',
      '/api/users/restrictedLogin',
    ]),
  );
  for (const c of calls) expect(c.authorization, c.path).toBeUndefined();
  // None of the plain calls that carry such data was made on this host.
  const plain = ['/api/users/register', '/api/users/login', '/api/users/requestResetPassword', '/api/users/resetPassword', '/api/users/info/get', '/api/billing/createPayment'];
  expect(seen.filter((s) => plain.includes(s.path)).map((s) => s.path)).toEqual([]);

  // No request body or address on this host carries the data in clear.
  const secrets = [email, encodeURIComponent(email), PASSWORD, NEW_PASSWORD, token, '"tariffId"', '"provider"', 'idempotencyKey', 'password'];
  for (const s of seen) {
    for (const secret of secrets) {
      expect(s.body.includes(secret), `${s.method} ${s.path} carries ${secret} in its body`).toBe(false);
      if (secret !== 'password') expect(s.url.includes(secret), `${s.method} ${s.url} carries ${secret} in its address`).toBe(false);
    }
  }
});
