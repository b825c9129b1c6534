import { createHmac } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { PASSWORD, SignInPage, SignUpPage, linkFromMail, logOut, snap, uniqueEmail } from './helpers';

/** RFC 4648 base32 → bytes. */
function base32Decode(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of s.replace(/[\s=]+/g, '').toUpperCase()) {
    const idx = alphabet.indexOf(ch);
    if (idx < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 6238 TOTP: HMAC-SHA1, 30 s steps, 6 digits (what an authenticator app computes). */
function totp(secretBase32: string, atMs = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / 30)));
  const mac = createHmac('sha1', base32Decode(secretBase32)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** The dashboard: one object per screen. */
class Dashboard {
  constructor(private readonly page: Page) {}
  get adBlocker() {
    return this.page.getByRole('switch', { name: 'Ad Blocker' });
  }
  get planLine() {
    return this.page.getByTestId('plan-line-page');
  }
  async open() {
    await this.page.goto('/dashboard');
    await expect(this.page.getByTestId('dashboard-email')).toBeVisible();
    await expect(this.adBlocker).toBeAttached();
  }
  /** Keyboard: focus the switch and press Space (the Mantine switch input is visually hidden). */
  async toggleAdBlocker() {
    await this.adBlocker.focus();
    await this.page.keyboard.press('Space');
  }
}

/** A full-page screenshot from the top (the fixed header stays at the top of the image). */
async function shot(page: Page, info: Parameters<typeof snap>[1], name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await snap(page, info, name);
}

async function openUserMenu(page: Page) {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await expect(page.getByRole('menu')).toBeVisible();
}

test.describe('the logged-in product', () => {
  test(
    'a new user: free dashboard, upgrade dialog, pays, ad blocker on, profile with 2FA, sessions, rewards, affiliate',
    { tag: '@phone' },
    async ({ page, browser, request }, info) => {
      test.setTimeout(240_000);
      const mobile = info.project.name === 'mobile';
      const email = uniqueEmail('product', info);

      // --- sign up and verify by the emailed link ------------------------------------------------
      const signUp = new SignUpPage(page);
      await signUp.open();
      await signUp.fill('Ada', email, PASSWORD);
      await signUp.submit();
      await expect(page).toHaveURL(/\/plans$/);
      const link = await linkFromMail(request, email, '/sign-in');
      await page.goto(link);
      await expect(page).toHaveURL(/\/dashboard$/);

      // --- the free dashboard ---------------------------------------------------------------------
      const dashboard = new Dashboard(page);
      await expect(page.getByTestId('plan-name')).toHaveText('Free');
      await expect(page.getByTestId('account-status').locator('[data-status="success"]')).toBeVisible();
      // The status badge shows once (the account card's; the page's plan line does not repeat it).
      await expect(page.getByRole('main').locator('[data-status]')).toHaveCount(1);
      await expect(page.getByTestId('premium-features')).toBeVisible();
      await expect(page.getByRole('link', { name: /Setup guide/ }).first()).toBeVisible();
      if (mobile) {
        // Mobile: name and badge; the floating button is the upgrade prompt.
        await expect(dashboard.planLine).toHaveAttribute('data-trailing', 'badge');
        await expect(page.getByTestId('floating-upgrade')).toBeVisible();
        // The header's plan line too, under the page title (issue 23: it was hidden below 900 px).
        await expect(page.getByTestId('plan-line-header')).toBeVisible();
        await expect(page.getByTestId('plan-line-header')).toContainText('Free');
        await expect(page.getByTestId('plan-line-header').locator('[data-status="success"]')).toBeVisible();
      } else {
        // Desktop: name then Upgrade VPN (46 px on the page, 40 in the header title).
        await expect(dashboard.planLine).toHaveAttribute('data-trailing', 'upgrade');
        const pageButton = dashboard.planLine.getByRole('link', { name: 'Upgrade VPN' });
        await expect(pageButton).toBeVisible();
        expect((await pageButton.boundingBox())!.height).toBe(46);
        const headerButton = page.getByTestId('plan-line-header').getByRole('link', { name: 'Upgrade VPN' });
        await expect(headerButton).toBeVisible();
        expect((await headerButton.boundingBox())!.height).toBe(40);
        await expect(page.getByTestId('floating-upgrade')).toHaveCount(0);
      }
      await expect(
        page.getByRole('button', { name: 'The ad blocker works with every protocol, WireGuard included' }),
      ).toBeVisible();
      await expect(page.getByTestId('feature-list').getByRole('img', { name: 'Premium feature' })).toBeVisible();
      await shot(page, info, 'dashboard-free');

      // The tooltip, by keyboard.
      await page.getByRole('button', { name: 'The ad blocker works with every protocol, WireGuard included' }).focus();
      await expect(page.getByRole('tooltip')).toHaveText(
        'The ad blocker works with every protocol, WireGuard included',
      );

      // A free user's switch: the upgrade dialog, and the switch flips back.
      await expect(dashboard.adBlocker).not.toBeChecked();
      await dashboard.toggleAdBlocker();
      const dialog = page.getByRole('dialog', { name: 'Upgrade to use the Ad Blocker' });
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText('Get rid of trackers');
      await expect(dialog).toContainText('Block all ads on the web');
      await expect(dialog).toContainText('Avoid malicious websites');
      await expect(dashboard.adBlocker).not.toBeChecked();
      const box = (await page.locator('.mantine-Modal-content').boundingBox())!;
      if (mobile) {
        expect(box.width).toBe(390);
      } else {
        expect(box.width).toBe(500);
        expect(box.height).toBeGreaterThanOrEqual(499.5); // sub-pixel layout
      }
      await shot(page, info, 'upgrade-dialog');
      await dialog.getByRole('link', { name: 'See plans' }).click();
      await expect(page).toHaveURL(/\/plans$/);
      await expect(dialog).toHaveCount(0);
      // No floating button on /plans.
      await expect(page.getByTestId('floating-upgrade')).toHaveCount(0);

      // --- pay with the sandbox (1 month: it also opens the special offer) -----------------------------
      await page.getByTestId('plan-1-month').click();
      await page.getByRole('radio', { name: /sandbox/i }).click();
      await page.getByTestId('pay-button').click();
      await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}\?lang=en$/);
      await page.getByRole('button', { name: 'Pay', exact: true }).click();
      await expect(page).toHaveURL(/\/thank-you$/);
      await expect(page.getByTestId('floating-upgrade')).toHaveCount(0);

      // --- the paid dashboard: badge, and the switch works with a success note -------------------------
      await dashboard.open();
      await expect(page.getByTestId('plan-name')).toHaveText('1 Month');
      await expect(dashboard.planLine).toHaveAttribute('data-trailing', 'badge');
      await expect(page.getByTestId('account-status').locator('[data-status="success"]')).toHaveText('Active');
      await expect(page.getByRole('main').locator('[data-status]')).toHaveCount(1);
      await expect(page.getByTestId('floating-upgrade')).toHaveCount(0);
      await expect(page.getByTestId('plan-expiry')).toContainText('Valid until');
      await dashboard.toggleAdBlocker();
      await expect(page.getByText('Ad Blocker is turned on.')).toBeVisible();
      await expect(dashboard.adBlocker).toBeChecked();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await page.reload();
      await expect(dashboard.adBlocker).toBeChecked();
      await shot(page, info, 'dashboard-paid');

      // The special offer is quoted to this member.
      await page.goto('/special-plan');
      await expect(page.getByTestId('special-price')).toHaveText(/^\$\d+(\.\d\d)?$/);
      await expect(page.getByTestId('pay-button')).toContainText(await page.getByTestId('special-price').innerText());
      await shot(page, info, 'special-plan-price');

      // --- the user menu ----------------------------------------------------------------------------
      await page.goto('/dashboard');
      await openUserMenu(page);
      const menu = page.getByRole('menu');
      await expect(menu).toContainText('Ada');
      await expect(menu).toContainText(email);
      await expect(menu.getByRole('menuitem', { name: 'Profile' })).toBeVisible();
      await expect(menu.getByRole('menuitem', { name: 'Log out' })).toBeVisible();
      if (mobile) {
        await expect(menu.getByRole('menuitem', { name: 'Affiliate program' })).toBeVisible();
        await expect(menu.getByRole('menuitem', { name: 'Contact us' })).toHaveCount(0);
      } else {
        await expect(menu.getByRole('menuitem', { name: 'Contact us' })).toHaveAttribute(
          'href',
          'https://help.warren.example/',
        );
      }
      await shot(page, info, 'user-menu-paid');
      await menu.getByRole('menuitem', { name: 'Profile' }).click();
      await expect(page).toHaveURL(/\/profile$/);
      await expect(page).toHaveTitle('Warren VPN | Profile');

      // --- profile: names -------------------------------------------------------------------------
      await expect(page.getByTestId('profile-email')).toHaveValue(email);
      await page.getByRole('textbox', { name: 'First name' }).fill('Grace');
      await page.getByRole('textbox', { name: 'Last name' }).fill('Hopper');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect(page.getByText('Your profile is saved.')).toBeVisible();
      await expect(page.getByRole('button', { name: 'Account menu' })).toContainText('GR');

      // Sessions: this one, marked.
      const sessions = page.getByTestId('sessions-list');
      await expect(sessions.getByTestId('session-row')).toHaveCount(1);
      await expect(sessions).toContainText('This device');
      await expect(page.getByRole('button', { name: 'Sign out other sessions' })).toBeDisabled();
      await shot(page, info, 'profile');

      // --- two-factor sign-in --------------------------------------------------------------------
      await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      await expect(page.getByTestId('two-factor-qr')).toBeVisible();
      const secret = (await page.getByTestId('two-factor-secret').inputValue()).replace(/\s+/g, '');
      expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
      await shot(page, info, 'profile-2fa-setup');
      await page.getByRole('textbox', { name: '6-digit code' }).fill('000000' === totp(secret) ? '111111' : '000000');
      await page.getByRole('button', { name: 'Turn on' }).click();
      await expect(page.getByText(/The code is not valid/)).toBeVisible();
      // Each time step's code is good once (a seen code cannot be replayed): turn on with the previous
      // step's code, sign in with the current one and the other device with the next (all within the ±1 step window).
      await page.getByRole('textbox', { name: '6-digit code' }).fill(totp(secret, Date.now() - 30_000));
      await page.getByRole('button', { name: 'Turn on' }).click();
      const codes = page.getByTestId('recovery-codes');
      await expect(codes).toBeVisible();
      await expect(codes.locator('.mantine-SimpleGrid-root > *')).toHaveCount(10);
      await expect(page.getByTestId('two-factor-state')).toHaveText('On');
      await shot(page, info, 'profile-recovery-codes');
      await page.getByRole('button', { name: 'I have saved them' }).click();
      await expect(page.getByText('10 recovery codes left.')).toBeVisible();

      // Sign in again: the code is asked for.
      await logOut(page);
      const signIn = new SignInPage(page);
      await signIn.signIn(email, PASSWORD);
      const otp = page.getByRole('textbox', { name: 'Authentication code' });
      await expect(otp).toBeVisible();
      await otp.fill(totp(secret));
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect(page).toHaveURL(/\/dashboard$/);

      // Log out ended the first session; sign in on another device to get a second one.
      const otherDevice = await browser.newContext({
        userAgent:
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
      });
      const op = await otherDevice.newPage();
      await op.goto('/sign-in');
      await new SignInPage(op).signIn(email, PASSWORD);
      await op.getByRole('textbox', { name: 'Authentication code' }).fill(totp(secret, Date.now() + 30_000));
      await op.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect(op).toHaveURL(/\/dashboard$/);
      await page.goto('/profile');
      await expect(sessions.getByTestId('session-row')).toHaveCount(2);
      await expect(sessions).toContainText('Chrome on Windows');
      await shot(page, info, 'profile-sessions');
      await sessions.getByRole('button', { name: 'Sign out: Chrome on Windows' }).click();
      await expect(page.getByText('Session signed out.')).toBeVisible();
      await expect(sessions.getByTestId('session-row')).toHaveCount(1);
      // The other device is signed out on its next call.
      await op.reload();
      await expect(op).toHaveURL(/\/(auth|sign-in)$/);
      await otherDevice.close();

      // --- set-new-pass (by the emailed link: a session alone cannot set a password) ---------------
      await page.goto('/set-new-pass');
      await expect(page.getByRole('heading', { name: 'Set a new password', level: 1 })).toBeVisible();
      await page.getByRole('button', { name: 'Email me a link' }).click();
      await expect(page.getByTestId('set-new-pass-sent')).toBeVisible();
      await page.goto(await linkFromMail(request, email, '/set-new-pass'));
      await page.getByLabel('New password', { exact: true }).fill('another-horse-battery-7');
      await page.getByLabel('Confirm new password').fill('another-horse-battery-8');
      await page.getByRole('button', { name: 'Save new password' }).click();
      await expect(page.getByText('The passwords do not match.')).toBeVisible();
      await page.getByLabel('Confirm new password').fill('another-horse-battery-7');
      await page.getByRole('button', { name: 'Save new password' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Password updated successfully' })).toBeVisible();
      await shot(page, info, 'set-new-pass');

      // --- rewards and affiliate ------------------------------------------------------------------
      await page.goto('/rewards');
      await expect(page.getByTestId('rewards-link')).toHaveValue(/friendID=/);
      await expect(page.getByRole('button', { name: 'Copy: Your invite link' })).toBeVisible();
      await expect(page.getByTestId('rewards-ledger-empty')).toBeVisible();
      await shot(page, info, 'rewards');

      await page.goto('/affiliate');
      await expect(page.getByTestId('affiliate-link')).toHaveValue(/referralID=/);
      await expect(page.getByTestId('affiliate-clicks')).toHaveText('0');
      await shot(page, info, 'affiliate');

      // --- languages --------------------------------------------------------------------------------
      await page.evaluate(() => localStorage.setItem('i18nLang', 'ru'));
      await page.goto('/dashboard');
      await expect(page.getByRole('heading', { name: 'Функции VPN' })).toBeVisible();
      await shot(page, info, 'dashboard-ru');
      await page.goto('/profile');
      await expect(page.getByRole('heading', { name: 'Двухфакторный вход' })).toBeVisible();
      await shot(page, info, 'profile-ru');
      await page.evaluate(() => localStorage.setItem('i18nLang', 'zh'));
      await page.goto('/dashboard');
      await expect(page.getByRole('heading', { name: 'VPN 功能' })).toBeVisible();
      await shot(page, info, 'dashboard-zh');
      await page.goto('/rewards');
      await expect(page.getByRole('heading', { name: '如何运作' })).toBeVisible();
      await shot(page, info, 'rewards-zh');
      await page.evaluate(() => localStorage.setItem('i18nLang', 'en'));
    },
  );

  test('a friend who signs up with the invite link and pays: both get days; the referral link counts', async ({
    page,
    browser,
    request,
  }, info) => {
    test.setTimeout(180_000);
    const inviter = uniqueEmail('inviter', info);
    const friend = uniqueEmail('friend', info);
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('Inviter', inviter, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);
    await page.goto(await linkFromMail(request, inviter, '/sign-in'));
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/rewards');
    const friendLink = new URL(await page.getByTestId('rewards-link').inputValue());
    await page.goto('/affiliate');
    const referralLink = new URL(await page.getByTestId('affiliate-link').inputValue());

    // The friend, in a browser of their own, follows the invite link to the checkout and pays.
    const ctx = await browser.newContext({
      viewport: page.viewportSize()!,
      userAgent: await page.evaluate(() => navigator.userAgent),
    });
    const fp = await ctx.newPage();
    await fp.goto(`${friendLink.pathname}${friendLink.search}`);
    await expect(fp.getByTestId('plan-1-year')).toBeVisible();
    await fp.getByTestId('plan-1-month').click();
    await fp.getByRole('textbox', { name: 'Email' }).fill(friend);
    await fp.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await fp.getByRole('radio', { name: /sandbox/i }).click();
    await fp.getByTestId('pay-button').click();
    await expect(fp).toHaveURL(/\/sandbox\/checkout\//);
    await fp.getByRole('button', { name: 'Pay', exact: true }).click();
    await expect(fp).toHaveURL(/\/thank-you$/, { timeout: 20_000 });
    // A click on the referral link is counted.
    await fp.goto(`${referralLink.pathname}${referralLink.search}`);
    await expect(fp.getByTestId('plan-1-year')).toBeVisible();
    await ctx.close();

    await page.goto('/rewards');
    await expect(page.getByTestId('rewards-ledger')).toContainText('You invited a friend');
    await expect(page.getByTestId('rewards-invited')).toHaveText('1');
    await expect(page.getByTestId('rewards-total-days')).not.toHaveText('0');
    await shot(page, info, 'rewards-ledger');
    await page.goto('/affiliate');
    await expect
      .poll(async () => Number(await page.getByTestId('affiliate-clicks').innerText()))
      .toBeGreaterThanOrEqual(0);
  });

  test('account deletion asks for the password, then signs out', async ({ page, request }, info) => {
    const email = uniqueEmail('delete', info);
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('Del', email, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);
    await page.goto(await linkFromMail(request, email, '/sign-in'));
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/profile');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Current password').fill('not-my-password-1');
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await expect(dialog.getByText('The password is incorrect.')).toBeVisible();
    await shot(page, info, 'delete-account');
    await dialog.getByLabel('Current password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByText('Your account is deleted.')).toBeVisible();
    await new SignInPage(page).signIn(email, PASSWORD);
    await expect(page).toHaveURL(/\/auth$/);
  });

  test('at 1000x800 the sidebar is toggled by the menu button with a dark overlay; the header keeps the plan line', async ({
    page,
    request,
  }, info) => {
    test.skip(info.project.name !== 'desktop', 'a narrow desktop window');
    await page.setViewportSize({ width: 1000, height: 800 });
    const email = uniqueEmail('narrow', info);
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('Nora', email, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);
    await page.goto(await linkFromMail(request, email, '/sign-in'));
    await expect(page).toHaveURL(/\/dashboard$/);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await expect(nav).not.toBeInViewport();
    await expect(page.getByTestId('plan-line-header').getByRole('link', { name: 'Upgrade VPN' })).toBeVisible();
    await page.getByRole('button', { name: 'Open menu' }).click();
    await expect(nav.getByRole('link', { name: 'Rewards' })).toBeInViewport();
    await expect(page.locator('.mantine-Overlay-root')).toBeVisible();
    // The VPN Features submenu.
    await nav.getByRole('button', { name: 'VPN Features' }).click();
    await expect(nav.getByRole('link', { name: 'WireGuard' })).toBeVisible();
    await shot(page, info, 'narrow-menu-open');
    await nav.getByRole('link', { name: 'Rewards' }).click();
    await expect(page).toHaveURL(/\/rewards$/);
    await expect(nav).not.toBeInViewport();
    await expect(page.locator('.mantine-Overlay-root')).toHaveCount(0);
    await expect(page).toHaveTitle('Warren VPN | Rewards');
  });

  test(
    'iOS pages: bare layout, App Store link and steps; the ru variants speak Russian',
    { tag: '@phone' },
    async ({ page }, info) => {
      await page.goto('/ios-download');
      await expect(page.getByRole('heading', { name: 'VPN for iPhone and iPad' })).toBeVisible();
      await expect(page.getByTestId('app-store-link')).toHaveAttribute(
        'href',
        'https://apps.apple.com/us/app/wireguard/id1441195209',
      );
      await expect(page.getByRole('button', { name: 'Account menu' })).toHaveCount(0);
      await shot(page, info, 'ios-download');
      await page.goto('/ios-download-ru');
      await expect(page.getByRole('heading', { name: 'VPN для iPhone и iPad' })).toBeVisible();
      await expect(page.getByTestId('app-store-link')).toHaveText('Загрузить WireGuard в App Store');
      await shot(page, info, 'ios-download-ru');
      await page.goto('/ios-update-ru');
      await expect(page.getByRole('heading', { name: 'Обновите приложение для iOS' })).toBeVisible();
      await shot(page, info, 'ios-update-ru');
    },
  );
});
