import { expect, type Page } from '@playwright/test';
import { test } from './users';

/**
 * The keyboard paths of the logged-in shell: skip link, the drawer below 1200 px, the user
 * menu and a dialog giving focus back to what opened them. Desktop project only: the drawer is
 * tested at 1000 px, where it is a drawer on any device.
 */
test.describe('keyboard', () => {
  test.skip(({ isMobile }) => isMobile, 'the phone project has no keyboard; the drawer is tested at 1000 px here');

  const focused = (page: Page) =>
    page.evaluate(() => document.activeElement?.closest('[id]')?.id ?? document.activeElement?.tagName);

  test('skip link, drawer, user menu and the upgrade dialog work from the keyboard', async ({ browser, freeUser }) => {
    test.setTimeout(90_000);
    const context = await browser.newContext({ storageState: freeUser, viewport: { width: 1000, height: 800 } });
    const page = await context.newPage();
    await page.goto('/dashboard');
    await expect(page.getByTestId('dashboard-email')).toBeVisible();

    // The first Tab reaches the skip link, which takes focus to the page's content.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to main content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await expect(page.locator('main#main-content')).toBeFocused();

    // Below 1200 px the closed drawer is out of the tab order.
    const burger = page.getByRole('button', { name: 'Open menu' });
    await expect(burger).toHaveAttribute('aria-expanded', 'false');
    const navLink = page.locator('#app-navbar').getByRole('link', { name: 'Server locations' }).first();
    await navLink.evaluate((el: HTMLElement) => el.focus());
    await expect(navLink).not.toBeFocused();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await focused(page), `Tab ${i + 1} stays out of the closed drawer`).not.toBe('app-navbar');
    }

    // Opening it moves focus in; Escape closes it and gives focus back to the burger.
    await burger.focus();
    await page.keyboard.press('Enter');
    const closeButton = page.getByRole('button', { name: 'Close menu' });
    await expect(closeButton).toHaveAttribute('aria-expanded', 'true');
    expect(await focused(page)).toBe('app-navbar');
    await page.keyboard.press('Escape');
    await expect(burger).toHaveAttribute('aria-expanded', 'false');
    await expect(burger).toBeFocused();

    // A page chosen in the drawer: the drawer closes, focus is on the page.
    await page.keyboard.press('Enter');
    await expect(closeButton).toHaveAttribute('aria-expanded', 'true');
    await navLink.focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/server-locations$/);
    await expect(page.locator('main#main-content')).toBeFocused();
    await expect(burger).toHaveAttribute('aria-expanded', 'false');

    // The user menu: Escape closes it and focus returns to its button.
    await page.goto('/dashboard');
    const account = page.getByRole('button', { name: /Account menu/ });
    await account.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('menu')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('menu')).toBeHidden();
    await expect(page.getByRole('button', { name: /Account menu/ })).toBeFocused();

    // A dialog: the free user's Ad Blocker switch opens the upgrade dialog; Escape gives focus back.
    const adBlocker = page.getByRole('switch', { name: 'Ad Blocker' });
    await adBlocker.focus();
    await page.keyboard.press('Space');
    const dialog = page.getByRole('dialog', { name: 'Upgrade to use the Ad Blocker' });
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(adBlocker).toBeFocused();
    await context.close();
  });

  test('signed-out, checkout and iOS pages have a skip link to their content too', async ({ page }) => {
    for (const path of ['/sign-in', '/sign-up', '/checkout', '/checkout-15', '/ios-download', '/ios-update-ru']) {
      await page.goto(path);
      await expect(page.locator('#root h1').first()).toBeVisible();
      // The server-rendered form is inert until the app takes it over.
      await expect(page.locator('#root fieldset:disabled')).toHaveCount(0);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('Tab');
      const skip = page.getByTestId('skip-link');
      await expect(skip, path).toBeFocused();
      await expect(skip, path).toBeInViewport();
      await expect(skip, path).toHaveAccessibleName(
        path.endsWith('-ru') ? 'Перейти к содержимому' : 'Skip to main content',
      );
      await page.keyboard.press('Enter');
      await expect(page.locator('main'), path).toBeFocused();
      // The next Tab goes on into the page, not back to the header.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('main')), path).toBe(true);
    }
  });
});
