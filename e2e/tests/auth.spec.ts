import { expect, test } from '@playwright/test';
import { PASSWORD, SignInPage, SignUpPage, linkFromMail, logOut, snap, uniqueEmail } from './helpers';
import { BASE_URL } from '../playwright.config';

test.describe('auth: sign-up, sign-in, verification, reset', () => {
  test(
    'sign up, verify by the emailed link, sign in, land on the dashboard',
    { tag: '@phone' },
    async ({ page, request }, info) => {
      const email = uniqueEmail('signup', info);
      const signUp = new SignUpPage(page);
      await signUp.open();
      await expect(page).toHaveTitle('Warren VPN | Create account');
      await snap(page, info, 'sign-up');
      await signUp.fill('Ada Lovelace', email, PASSWORD);
      await signUp.submit();

      // A new user is unverified: sign-up lands on /plans with the resend prompt.
      await expect(page).toHaveURL(/\/plans$/);
      await expect(page.getByRole('button', { name: 'Resend Email' })).toBeVisible();
      await expect(page).toHaveTitle('Warren VPN | Prices & Plans');
      await snap(page, info, 'plans-unverified');

      // Guarded pages send an unverified user back to /plans with the catalogue message.
      await page.goto('/dashboard');
      await expect(page).toHaveURL(/\/plans$/);
      await expect(page.getByText("You haven't verified your email yet.", { exact: false })).toBeVisible();

      await logOut(page);

      const link = await linkFromMail(request, email, '/sign-in');
      expect(link).toMatch(/^\/sign-in\?userId=\d+&token=/);
      await page.goto(link);
      await expect(page.getByText("You've been succesfully verified, please login.")).toBeVisible();
      await snap(page, info, 'sign-in-verified');

      await new SignInPage(page).signIn(email, PASSWORD);
      await expect(page).toHaveURL(/\/dashboard$/);
      await expect(page.getByTestId('dashboard-email')).toHaveText(email);
      await expect(page.getByTestId('account-status')).toContainText('Active');
      await expect(page.getByTestId('account-status').locator('[data-status="success"]')).toBeVisible();
      await expect(page).toHaveTitle('Warren VPN | Account Dashboard');
      await snap(page, info, 'dashboard');

      // Logged-in users visiting an auth page go to the dashboard.
      await page.goto('/sign-in');
      await expect(page).toHaveURL(/\/dashboard$/);

      if (info.project.name === 'mobile') {
        const menu = page.getByRole('navigation', { name: 'Main menu' });
        await expect(menu).not.toBeInViewport();
        await page.getByRole('button', { name: 'Open menu' }).click();
        await expect(menu.getByRole('link', { name: 'Server locations' })).toBeInViewport();
        await snap(page, info, 'menu-open');
        await menu.getByRole('link', { name: 'Server locations' }).click();
        await expect(page).toHaveURL(/\/server-locations$/);
        await expect(menu).not.toBeInViewport();
      } else {
        await page.getByRole('button', { name: 'Account menu' }).click();
        await expect(page.getByRole('menu')).toContainText(email);
        await snap(page, info, 'user-menu');
        await page.keyboard.press('Escape');
      }
    },
  );

  test('the verification link opened while logged in verifies on /plans and goes to the dashboard', async ({
    page,
    request,
  }, info) => {
    const email = uniqueEmail('plans-verify', info);
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('', email, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);

    const link = await linkFromMail(request, email, '/sign-in');
    await page.goto(link);
    await expect(page.getByText("You've successfully verified your account.")).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('dashboard-email')).toHaveText(email);
  });

  test('a wrong password shows the server message', async ({ page }, info) => {
    const signIn = new SignInPage(page);
    await signIn.open();
    await expect(page).toHaveTitle('Warren VPN | Sign in');
    await snap(page, info, 'sign-in');
    await signIn.signIn(uniqueEmail('nobody', info), 'wrong-password-1');
    await expect(page.getByText('These credentials do not match our records.').first()).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in$/);
    await snap(page, info, 'sign-in-error');
  });

  test('sign-up validation shows field errors under the fields', { tag: '@phone' }, async ({ page }, info) => {
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('X', 'not-an-email', 'short', 'other');
    await signUp.submit();
    await expect(page.getByText('Enter a valid email address.')).toBeVisible();
    await expect(page.getByText('The password must be at least 8 characters.')).toBeVisible();
    await expect(page).toHaveURL(/\/sign-up$/);
    await snap(page, info, 'sign-up-errors');
  });

  test('forgot password and reset by the emailed link', async ({ page, request }, info) => {
    const email = uniqueEmail('reset', info);
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('Reset Me', email, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);
    await logOut(page);

    await page.goto('/forgot-pass');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByRole('status')).toBeVisible();
    await snap(page, info, 'forgot-sent');

    const link = await linkFromMail(request, email, '/reset-password');
    await page.goto(link);
    await page.getByLabel('New password').fill('a-brand-new-pass-2');
    await page.getByLabel('Confirm password').fill('a-brand-new-pass-2');
    await page.getByRole('button', { name: 'Update password' }).click();
    await expect(page.getByText('Password updated successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in$/);

    await new SignInPage(page).signIn(email, 'a-brand-new-pass-2');
    await expect(page).toHaveURL(/\/plans$/);
  });

  test('unknown paths go to the start page; guarded pages need a login', async ({ page }) => {
    await page.goto('/no-such-page');
    await expect(page).toHaveURL(/\/$/);
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/sign-in$/);
  });

  test('the language switcher stores the language', async ({ page }, info) => {
    await page.goto('/sign-in');
    // The browser's own select: the system picker on phones.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('ru');
    await expect(page.getByRole('button', { name: 'Войти', exact: true })).toBeVisible();
    await expect(page).toHaveTitle('Warren VPN | Вход');
    expect(await page.evaluate(() => localStorage.getItem('i18nLang'))).toBe('ru');
    await snap(page, info, 'sign-in-ru');
    await expect(page.getByRole('combobox', { name: 'Язык' })).toHaveValue('ru');
    await page.getByRole('combobox', { name: 'Язык' }).selectOption({ label: '中文' });
    await expect(page.getByRole('button', { name: '登录', exact: true })).toBeVisible();
    await snap(page, info, 'sign-in-zh');
  });
});

test.describe('proxy brand', () => {
  const PROXY = `http://proxy.localhost:${new URL(BASE_URL).port}`;

  test('shows Proxy in the title and signs up through the restricted call', async ({ page }, info) => {
    const restricted: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/users/restricted'))
        restricted.push(`${r.method()} ${new URL(r.url()).pathname} ${r.headers()['content-type'] ?? ''}`);
    });
    await page.goto(`${PROXY}/sign-up`);
    await expect(page).toHaveTitle(/Proxy/);
    await expect(page).toHaveTitle('Warren Proxy | Create account');
    await snap(page, info, 'proxy-sign-up');

    const email = uniqueEmail('proxy', info);
    const signUp = new SignUpPage(page);
    await signUp.fill('Proxy User', email, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);
    expect(restricted).toEqual([expect.stringMatching(/^POST \/api\/users\/restrictedRegister text\/plain/)]);
    await expect(page.getByRole('button', { name: 'Resend Email' })).toBeVisible();
    await expect(page.locator('body')).not.toContainText(/\bVPN\b/);
    await snap(page, info, 'proxy-plans');

    await logOut(page);
    await new SignInPage(page).signIn(email, PASSWORD);
    await expect(page).toHaveURL(/\/plans$/);
    expect(restricted.some((r) => r.startsWith('POST /api/users/restrictedLogin'))).toBe(true);
  });
});

test.describe('signed-out pages come rendered from the server', () => {
  test('sign-in shows before any script runs, in the browser language, its form waiting for the app', async ({
    browser,
  }, info) => {
    const context = await browser.newContext({
      baseURL: BASE_URL,
      javaScriptEnabled: false,
      locale: 'ru-RU',
      viewport: info.project.use.viewport ?? undefined,
    });
    const page = await context.newPage();
    await page.goto('/sign-in');
    await expect(page).toHaveTitle('Warren VPN | Вход');
    await expect(page.getByRole('heading', { name: 'С возвращением' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Войти' })).toBeDisabled();
    await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
    await snap(page, info, 'sign-in-server-render');
    await context.close();
  });

  test('the app takes the HTML over without rendering it again and without errors', async ({ page }) => {
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('pageerror', (e) => void errors.push(e.message));
    await page.addInitScript(() => {
      const removed: string[] = [];
      (window as unknown as { removedFromRoot: string[] }).removedFromRoot = removed;
      new MutationObserver((records) => {
        for (const r of records)
          if ((r.target as Element).id === 'root') for (const n of r.removedNodes) removed.push(n.nodeName);
      }).observe(document, { childList: true, subtree: true });
    });
    for (const path of ['/sign-in', '/sign-up', '/forgot-pass']) {
      await page.goto(path);
      // Enabled once the app has taken the page over.
      await expect(page.getByRole('button', { name: /^(Sign in|Create account|Send reset link)$/ })).toBeEnabled();
      expect(await page.evaluate(() => (window as unknown as { removedFromRoot: string[] }).removedFromRoot)).toEqual(
        [],
      );
    }
    // The iOS pages (no form): React has attached itself to the server's heading, and nothing was replaced.
    for (const path of [
      '/ios-download',
      '/ios-download-ru',
      '/ios-update-ru',
      '/checkout',
      '/checkout-ru',
      '/checkout-lifetime',
    ]) {
      await page.goto(path);
      await page.waitForFunction(() =>
        Object.keys(document.querySelector('#root h1') ?? {}).some((k) => k.startsWith('__reactFiber')),
      );
      expect(
        await page.evaluate(() => (window as unknown as { removedFromRoot: string[] }).removedFromRoot),
        path,
      ).toEqual([]);
    }
    expect(errors).toEqual([]);
  });

  test('a server-rendered page asks for its code only after its first paint, and keeps its element ids when the app takes over', async ({
    page,
  }) => {
    await page.addInitScript(() => {
      const changes: string[] = [];
      (window as unknown as { idChanges: string[] }).idChanges = changes;
      new MutationObserver((records) => {
        for (const r of records) changes.push(`${r.oldValue} -> ${(r.target as Element).id}`);
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['id'], attributeOldValue: true });
    });
    for (const path of ['/checkout', '/sign-up']) {
      await page.goto(path);
      await expect(page.getByRole('textbox', { name: 'Email' })).toBeEnabled();
      const { fcp, firstScript } = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
        firstScript: Math.min(
          ...performance
            .getEntriesByType('resource')
            .filter((r) => /\/assets\/.+\.js$/.test(r.name))
            .map((r) => r.startTime),
        ),
      }));
      // public/boot.js waits for the paint: the page's HTML, styles and images had the link to themselves.
      expect(firstScript, path).toBeGreaterThan(fcp);
      // Labels, descriptions and radio groups point at the ids the server rendered (apps/web/src/lib/mantine-use-id.ts).
      expect(await page.evaluate(() => (window as unknown as { idChanges: string[] }).idChanges), path).toEqual([]);
    }
  });

  test("a checkout shows its prices before any script runs, in the currency of the visitor's country, its form waiting for the app", async ({
    browser,
  }, info) => {
    const context = await browser.newContext({
      baseURL: BASE_URL,
      javaScriptEnabled: false,
      locale: 'en-US',
      viewport: info.project.use.viewport ?? undefined,
    });
    const page = await context.newPage();
    await page.goto('/checkout');
    // 127.0.0.1 is the server's default country (US): dollars.
    await expect(page.getByTestId('checkout-total')).toHaveText(/^\$\d+\.\d\d$/);
    await expect(page.getByTestId('pay-button')).toContainText('$');
    await expect(page.getByRole('textbox', { name: 'Email' })).toBeDisabled();
    // A variant with its own currency.
    await page.goto('/checkout-lifetime-ru');
    await expect(page.getByTestId('checkout-total')).toContainText('₽');
    await snap(page, info, 'checkout-lifetime-ru-server-render');
    await context.close();
  });

  test('the iOS pages show before any script runs, the -ru ones in Russian whatever the browser language', async ({
    browser,
  }, info) => {
    const context = await browser.newContext({
      baseURL: BASE_URL,
      javaScriptEnabled: false,
      locale: 'en-US',
      viewport: info.project.use.viewport ?? undefined,
    });
    const page = await context.newPage();
    await page.goto('/ios-download');
    await expect(page).toHaveTitle('Warren VPN | VPN for iPhone and iPad');
    await expect(page.getByTestId('app-store-link')).toHaveAttribute('href', /^https:\/\/apps\.apple\.com\//);
    await page.goto('/ios-update-ru');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
    await expect(page.getByRole('heading', { level: 1 })).toContainText(/[а-яА-Я]/);
    await expect(page).toHaveTitle(/^Warren VPN \| [^a-z]*[а-яА-Я]/);
    await snap(page, info, 'ios-update-ru-server-render');
    await context.close();
  });

  test('a stored language other than the browser one: the app renders its own language instead', async ({ page }) => {
    await page.addInitScript(() => localStorage.setItem('i18nLang', 'zh'));
    await page.goto('/sign-in');
    await expect(page.getByRole('heading', { name: '欢迎回来' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh');
  });
});
