import {
  test as base,
  expect,
  type APIRequestContext,
  type Browser,
  type BrowserContextOptions,
  type TestInfo,
  type WorkerInfo,
} from '@playwright/test';
import { PASSWORD, SignUpPage, linkFromMail, uniqueEmail } from './helpers';

export type Storage = Exclude<BrowserContextOptions['storageState'], undefined>;

/**
 * Signed-in browsers for the accessibility and keyboard specs, made through the UI as a
 * customer does; each returns the browser storage (the session lives in local storage) to open
 * more pages as that user.
 */
export async function newFreeUser(
  browser: Browser,
  info: TestInfo | WorkerInfo,
  request: APIRequestContext,
  options: BrowserContextOptions = {},
): Promise<Storage> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const email = uniqueEmail('a11y-free', info);
  const signUp = new SignUpPage(page);
  await signUp.open();
  await signUp.fill('Ada Lovelace', email, PASSWORD);
  await signUp.submit();
  await expect(page).toHaveURL(/\/plans$/);
  // Opened while signed in, the verification link verifies and goes on to the dashboard.
  await page.goto(await linkFromMail(request, email, '/sign-in'));
  await expect(page).toHaveURL(/\/dashboard$/);
  const state = await context.storageState();
  await context.close();
  return state;
}

export interface PayingCustomer {
  email: string;
  token: string;
  storage: Storage;
}

/** A visitor buys the 1-year plan at /checkout with the sandbox provider, then verifies: email, bearer token, browser storage (the session lives in local storage). */
export async function newPayingCustomer(
  browser: Browser,
  info: TestInfo | WorkerInfo,
  tag: string,
  request?: APIRequestContext,
  options: BrowserContextOptions = {},
): Promise<PayingCustomer> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const email = uniqueEmail(tag, info);
  await page.goto('/checkout');
  // The page is rendered on the server: a click before the app takes over (the language switcher turns on) is lost.
  await expect(page.getByRole('combobox', { name: 'Language' })).toBeEnabled();
  await page.getByTestId('plan-1-year').click();
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('radio', { name: /sandbox/i }).click();
  await page.getByTestId('pay-button').click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}/);
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await expect(page).toHaveURL(/\/thank-you$/);
  await page.goto(await linkFromMail(request ?? page.request, email, '/sign-in'));
  await expect(page).toHaveURL(/\/dashboard$/);
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  const storage = await context.storageState();
  await context.close();
  return { email, token, storage };
}

/**
 * One free user and one paying customer per worker (a worker runs one project's tests, one at a
 * time), made on first use, for the tests that only look at pages as them (accessibility,
 * console, keyboard, colour scheme, floating button; the staff spec's "no console code"). A test
 * that changes its user (pays, grants, refunds, deletes) makes its own. Two workers never share
 * one: each makes its own.
 */
export const test = base.extend<object, { freeUser: Storage; payingCustomer: PayingCustomer }>({
  freeUser: [
    async ({ browser, playwright }, use, info) => {
      const options = contextOptions(info);
      const request = await playwright.request.newContext({ baseURL: options.baseURL });
      await use(await newFreeUser(browser, info, request, options));
      await request.dispose();
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  payingCustomer: [
    async ({ browser, playwright }, use, info) => {
      const options = contextOptions(info);
      const request = await playwright.request.newContext({ baseURL: options.baseURL });
      await use(await newPayingCustomer(browser, info, 'paying', request, options));
      await request.dispose();
    },
    { scope: 'worker', timeout: 120_000 },
  ],
});

/** The project's browser settings (a worker fixture gets no test's defaults). */
function contextOptions(info: WorkerInfo): BrowserContextOptions {
  const { baseURL, viewport, userAgent, deviceScaleFactor, isMobile, hasTouch } = info.project.use;
  return { baseURL, viewport, userAgent, deviceScaleFactor, isMobile, hasTouch };
}
