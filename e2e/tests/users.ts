import { expect, type APIRequestContext, type Browser, type BrowserContextOptions, type TestInfo } from '@playwright/test';
import { PASSWORD, SignUpPage, linkFromMail, uniqueEmail } from './helpers';

export type Storage = Exclude<BrowserContextOptions['storageState'], undefined>;

/**
 * Signed-in browsers for the accessibility and keyboard specs, made through the UI as a
 * customer does; each returns the browser storage (the session lives in local storage) to open
 * more pages as that user.
 */
export async function newFreeUser(browser: Browser, info: TestInfo, request: APIRequestContext): Promise<Storage> {
  const context = await browser.newContext();
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

/** A visitor buys the 1-year plan at /checkout with the sandbox provider, then verifies. */
export async function newPayingUser(browser: Browser, info: TestInfo, request: APIRequestContext): Promise<Storage> {
  return (await newPayingCustomer(browser, info, 'a11y-paid', request)).storage;
}

/** The same, with the customer's email and bearer token (the session lives in local storage). */
export async function newPayingCustomer(browser: Browser, info: TestInfo, tag: string, request?: APIRequestContext): Promise<{ email: string; token: string; storage: Storage }> {
  const context = await browser.newContext();
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
