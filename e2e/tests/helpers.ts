import AxeBuilder from '@axe-core/playwright';
import { expect, type APIRequestContext, type Page, type TestInfo, type WorkerInfo } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const screenshotDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

export function uniqueEmail(tag: string, info: TestInfo | WorkerInfo): string {
  return `e2e-${tag}-${info.project.name}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
}

export const PASSWORD = 'correct-horse-battery-9';

/** Saves e2e/screenshots/{project}-{name}.png. */
export async function snap(page: Page, info: TestInfo, name: string): Promise<void> {
  fs.mkdirSync(screenshotDir, { recursive: true });
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await page.screenshot({ path: path.join(screenshotDir, `${info.project.name}-${name}.png`), fullPage: true });
}

interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

/** The newest mail to `to` whose text has a link to `pathname`; returns that link's path + query. */
export async function linkFromMail(request: APIRequestContext, to: string, pathname: string): Promise<string> {
  let found: string | null = null;
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/dev/mail?to=${encodeURIComponent(to)}`);
        if (!res.ok()) return null;
        const body = (await res.json()) as { data: Mail[] };
        for (const mail of [...body.data].reverse()) {
          const m = new RegExp(`https?://[^\\s"'<>]+${pathname.replace('/', '\\/')}\\?[^\\s"'<>]+`).exec(mail.text);
          if (m) {
            const url = new URL(m[0].replace(/&amp;/g, '&'));
            found = `${url.pathname}${url.search}`;
            return found;
          }
        }
        return null;
      },
      { timeout: 15_000, message: `a mail to ${to} with a ${pathname} link` },
    )
    .not.toBeNull();
  return found!;
}

export class SignUpPage {
  constructor(private readonly page: Page) {}
  async open(base = '') {
    await this.page.goto(`${base}/sign-up`);
  }
  async fill(name: string, email: string, password: string, confirmation = password) {
    await this.page.getByLabel('Name').fill(name);
    await this.page.getByRole('textbox', { name: 'Email' }).fill(email);
    await this.page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await this.page.getByRole('textbox', { name: 'Confirm password' }).fill(confirmation);
  }
  async submit() {
    await this.page.getByRole('button', { name: 'Create account' }).click();
  }
}

export class SignInPage {
  constructor(private readonly page: Page) {}
  async open(path = '/sign-in') {
    await this.page.goto(path);
  }
  async signIn(email: string, password: string) {
    await this.page.getByRole('textbox', { name: 'Email' }).fill(email);
    await this.page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await this.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }
}

/** Logs out through the user menu (the sidebar may be closed on mobile; the menu is in the header). */
export async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/auth$/);
}

/** WCAG 2.2 AA violations (axe, the rules of a11y.spec.ts) on the page as it is now: rule and first target. */
async function axeNow(page: Page): Promise<string[]> {
  await page.evaluate(() => document.fonts.ready);
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`);
}

/**
 * Light and dark screens of the page as it is now, kept outside the repository for a look (in
 * `dir`), each without an axe violation; the page is left light.
 */
export async function lightAndDarkShots(page: Page, info: TestInfo, name: string, dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const shot = (suffix: string) =>
    page.screenshot({ path: path.join(dir, `${info.project.name}-${name}-${suffix}.png`), fullPage: true });
  await shot('light');
  expect(await axeNow(page), `${name} light`).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.evaluate(() => document.documentElement.setAttribute('data-mantine-color-scheme', 'dark'));
  await shot('dark');
  expect(await axeNow(page), `${name} dark`).toEqual([]);
  await page.evaluate(() => document.documentElement.setAttribute('data-mantine-color-scheme', 'light'));
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A new user signs up and opens the emailed link while signed in: verified, on the dashboard. */
export async function newVerifiedUser(page: Page, request: APIRequestContext, email: string, name = 'Hedy Lamarr') {
  const signUp = new SignUpPage(page);
  await signUp.open();
  await signUp.fill(name, email, PASSWORD);
  await signUp.submit();
  await expect(page).toHaveURL(/\/plans$/);
  const link = await linkFromMail(request, email, '/sign-in');
  // Opened while signed in, the link verifies and goes on to the dashboard.
  await page.goto(link);
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** A signed-in user buys the 1-year plan at /plans with the sandbox provider: back on /thank-you, the plan active. */
export async function payWithSandbox(page: Page) {
  await page.goto('/plans');
  await page.getByTestId('plan-1-year').click();
  await page.getByRole('radio', { name: /sandbox/i }).click();
  await page.getByTestId('pay-button').click();
  await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}\?lang=en$/);
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  // Back from the provider (the return page, then /thank-you), the plan is active.
  await expect(page).not.toHaveURL(/\/sandbox\//);
  await expect(page.getByTestId('thank-you-plan')).toHaveText('1 Year', { timeout: 15_000 });
}

/** axe (WCAG 2.0-2.2 A and AA, as a11y.spec.ts) on the page as it is now: the rule ids that fail, with every target. */
export async function axeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The same state in the dark scheme (the app follows the system's): no axe violation, a screenshot, then light again. */
export async function checkDark(page: Page, info: TestInfo, name: string) {
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
  expect(await axeViolations(page)).toEqual([]);
  await snap(page, info, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'light');
}
