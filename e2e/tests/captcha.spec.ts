import {
  expect,
  test,
  type APIRequestContext,
  type Browser,
  type BrowserContextOptions,
  type Page,
} from '@playwright/test';
import { CaptchaServer, FakeTurnstile } from './captcha-provider';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PASSWORD, SignInPage, SignUpPage, linkFromMail, logOut, uniqueEmail } from './helpers';

/**
 * The paths a buyer takes, on a server configured with a captcha (CAPTCHA_PROVIDER=turnstile,
 * its siteverify pointed at a local fake, the widget a test double: captcha-provider.ts says
 * why and how). Each call that needs a token (sign-up, sign-in, the reset request, every
 * payment) must bring one of its own: the fake refuses a token it did not issue or has seen.
 */
const SCREENSHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');
const provider = new FakeTurnstile();
const server = new CaptchaServer();
let request: APIRequestContext;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ playwright }, info) => {
  // One server for the file, in the desktop project's worker (the phone is looked at by the screenshots' test).
  test.skip(info.project.name !== 'desktop', 'one captcha server: the desktop project runs this file');
  test.setTimeout(120_000);
  const verifyUrl = await provider.start();
  await server.start({
    CAPTCHA_PROVIDER: 'turnstile',
    CAPTCHA_SECRET: provider.secret,
    CAPTCHA_SITE_KEY: provider.siteKey,
    CAPTCHA_VERIFY_URL: verifyUrl,
  });
  request = await playwright.request.newContext({ baseURL: server.baseURL });
});

test.afterAll(async () => {
  await request?.dispose();
  await Promise.allSettled([server.stop(), provider.stop()]);
});

async function open(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.baseURL, ...options });
  await provider.serveWidget(context);
  return context.newPage();
}

/** The tokens the page sent, by call. */
function recordTokens(page: Page): { path: string; token: unknown }[] {
  const sent: { path: string; token: unknown }[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (r.method() === 'POST' && url.pathname.startsWith('/api/') && r.postData()?.startsWith('{')) {
      sent.push({ path: url.pathname, token: (r.postDataJSON() as Record<string, unknown>)['g-recaptcha-response'] });
    }
  });
  return sent;
}

async function buyAtCheckout(page: Page, email: string) {
  await page.goto('/checkout');
  await expect(page.getByRole('combobox', { name: 'Language' })).toBeEnabled();
  await expect(page.frameLocator('[data-testid="captcha"] iframe').getByText('Success!')).toBeVisible();
  await page.getByTestId('plan-1-year').click();
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('radio', { name: /sandbox/i }).click();
  await page.getByTestId('pay-button').click();
}

test('a visitor buys at /checkout: the sign-up and the payment each bring a token of their own', async ({
  browser,
}, info) => {
  const page = await open(browser);
  const sent = recordTokens(page);
  const email = uniqueEmail('captcha-buyer', info);
  await buyAtCheckout(page, email);
  await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}/);
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await expect(page).toHaveURL(/\/thank-you$/);

  const calls = sent.filter((s) => ['/api/users/register', '/api/billing/createPayment'].includes(s.path));
  expect(calls.map((c) => c.path)).toEqual(['/api/users/register', '/api/billing/createPayment']);
  const tokens = calls.map((c) => c.token);
  for (const t of tokens) expect(provider.issued.has(String(t)), String(t)).toBe(true);
  expect(new Set(tokens).size).toBe(2);
  // The server redeemed each with the provider, once.
  for (const t of tokens)
    expect(provider.verifications.filter((v) => v.response === t)).toEqual([{ response: t, success: true, codes: [] }]);

  // An attacker replays the payment's token: the provider has seen it, the API says so (422, not a 5xx).
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  const xsrf = (await page.context().cookies()).find((c) => c.name === 'XSRF-TOKEN')!.value;
  const replay = await page.request.post('/api/billing/createPayment', {
    headers: { authorization: `Bearer ${token}`, 'x-xsrf-token': decodeURIComponent(xsrf) },
    data: { tariffId: 3, currency: 'USD', provider: 'sandbox', 'g-recaptcha-response': tokens[1] },
  });
  expect(replay.status()).toBe(422);
  expect((await replay.json()).errors['g-recaptcha-response']).toEqual(['The captcha check failed. Please try again.']);
  expect(provider.verifications.at(-1)).toMatchObject({
    response: tokens[1],
    success: false,
    codes: ['timeout-or-duplicate'],
  });
  await page.context().close();
});

test('sign-up, sign-in, the reset request and a payment on /plans each pass the captcha', async ({ browser }, info) => {
  const page = await open(browser);
  const sent = recordTokens(page);
  const email = uniqueEmail('captcha-auth', info);
  const signUp = new SignUpPage(page);
  await signUp.open();
  await signUp.fill('Captcha User', email, PASSWORD);
  await signUp.submit();
  await expect(page).toHaveURL(/\/plans$/);

  // /plans: the signed-in member pays; the widget sits above Pay.
  await expect(page.frameLocator('[data-testid="captcha"] iframe').getByText('Success!')).toBeVisible();
  await page.getByRole('radio', { name: /sandbox/i }).click();
  await page.getByTestId('pay-button').click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}/);
  await page.goBack();
  await expect(page).toHaveURL(/\/plans$/);

  await logOut(page);
  await page.goto('/forgot-pass');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('status')).toBeVisible();
  await page.goto(await linkFromMail(request, email, '/reset-password'));
  await page.getByLabel('New password').fill('a-brand-new-pass-2');
  await page.getByLabel('Confirm password').fill('a-brand-new-pass-2');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await new SignInPage(page).signIn(email, 'a-brand-new-pass-2');
  await expect(page).toHaveURL(/\/plans$/);

  const needing = sent.filter((s) =>
    /\/api\/(users\/(register|login|requestResetPassword)|billing\/createPayment)$/.test(s.path),
  );
  expect(needing.map((s) => s.path)).toEqual([
    '/api/users/register',
    '/api/billing/createPayment',
    '/api/users/requestResetPassword',
    '/api/users/login',
  ]);
  for (const s of needing) expect(provider.redeemed.has(String(s.token)), s.path).toBe(true);
  expect(new Set(needing.map((s) => s.token)).size).toBe(needing.length);
  await page.context().close();
});

test('the provider down: the buyer is told so, nothing breaks, and the next try goes through', async ({
  browser,
}, info) => {
  const page = await open(browser);
  const email = uniqueEmail('captcha-down', info);
  provider.down = true;
  try {
    await buyAtCheckout(page, email);
    await expect(
      page.getByText(
        'The security check could not be loaded or reached. Check your connection and try again in a few minutes.',
      ),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/checkout$/);
  } finally {
    provider.down = false;
  }
  // Back up: Pay again takes a new token and goes to the provider.
  await page.getByTestId('pay-button').click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}/);
  await page.context().close();
});

test("the provider's script blocked: the checkout says why instead of waiting", async ({ browser }, info) => {
  const context = await browser.newContext({ baseURL: server.baseURL });
  await context.route('https://challenges.cloudflare.com/**', (route) => route.abort('connectionrefused'));
  const page = await context.newPage();
  await page.goto('/checkout');
  await expect(page.getByTestId('captcha-status')).toHaveText(
    'The security check could not be loaded or reached. Check your connection and try again in a few minutes.',
  );
  await page.getByRole('textbox', { name: 'Email' }).fill(uniqueEmail('captcha-blocked', info));
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('radio', { name: /sandbox/i }).click();
  await page.getByTestId('pay-button').click();
  await expect(page.getByTestId('pay-button')).toBeEnabled();
  await expect(page).toHaveURL(/\/checkout$/);
  await context.close();
});

test('screenshots: the checkout with the captcha widget, phone and desktop, light and dark', async ({ browser }) => {
  test.setTimeout(240_000);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const [name, viewport, mobile] of [
      ['desktop', { width: 1280, height: 800 }, false],
      ['phone', { width: 390, height: 844 }, true],
    ] as const) {
      const page = await open(browser, {
        colorScheme,
        viewport,
        isMobile: mobile,
        hasTouch: mobile,
        deviceScaleFactor: mobile ? 2 : 1,
      });
      await page.goto('/checkout');
      await expect(page.frameLocator('[data-testid="captcha"] iframe').getByText('Success!')).toBeVisible();
      // The widget fits the page: no sideways scrolling on the phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      // Not snap(): the page never goes network-idle with the double's iframe in it; the widget has said Success above.
      await page.screenshot({
        path: path.join(SCREENSHOTS, `captcha-${name}-${colorScheme}-checkout.png`),
        fullPage: true,
      });
      // A full-page capture of an emulated phone leaves the provider's iframe blank: the widget in view as well.
      await page.getByTestId('pay-button').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SCREENSHOTS, `captcha-${name}-${colorScheme}-checkout-widget.png`) });
      await page.context().close();
    }
  }
});
