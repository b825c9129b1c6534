import { expect, type Page } from '@playwright/test';
import { test } from './users';

/**
 * Dark mode: the system's scheme or the stored choice is applied by public/color-scheme.js in
 * <head>, before the app's code (no light flash), on server-rendered and browser-rendered pages.
 */
const scheme = (page: Page) => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
const bodyBackground = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
/** Red channel of an rgb() colour: dark surfaces are below 60, light ones above 200. */
const red = (rgb: string) => Number(/\d+/.exec(rgb)?.[0] ?? NaN);

test.describe('colour scheme', () => {
  test.skip(({ isMobile }) => isMobile, 'one project is enough: nothing here depends on the viewport');

  test('a dark system gets a dark page before the app starts; a stored choice wins over the system', async ({
    browser,
  }) => {
    const context = await browser.newContext({ colorScheme: 'dark' });
    const page = await context.newPage();
    // The app's code never arrives: what shows is the server's HTML and color-scheme.js.
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.goto('/sign-in');
    await expect(page.locator('#root :is(h1, h2)').first()).toBeVisible();
    expect(await scheme(page)).toBe('dark');
    expect(red(await bodyBackground(page))).toBeLessThan(60);

    await page.evaluate(() => localStorage.setItem('warren-color-scheme', 'light'));
    await page.goto('/sign-in');
    expect(await scheme(page)).toBe('light');
    expect(red(await bodyBackground(page))).toBeGreaterThan(200);
    await context.close();
  });

  test('the user menu switches the scheme and the browser keeps it', async ({ browser, freeUser }) => {
    test.setTimeout(90_000);
    const context = await browser.newContext({ colorScheme: 'light', storageState: freeUser });
    const page = await context.newPage();
    await page.goto('/dashboard');
    await expect(page.getByTestId('dashboard-email')).toBeVisible();
    expect(await scheme(page)).toBe('light');
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitemradio', { name: 'Dark' }).click();
    await expect(page.getByRole('menuitemradio', { name: 'Dark' })).toHaveAttribute('aria-checked', 'true');
    await expect.poll(() => scheme(page)).toBe('dark');
    await page.reload();
    await expect(page.getByTestId('dashboard-email')).toBeVisible();
    expect(await scheme(page)).toBe('dark');
    expect(red(await bodyBackground(page))).toBeLessThan(60);
    // The profile's switch shows the same choice.
    await page.goto('/profile');
    await expect(page.getByRole('radio', { name: 'Dark' })).toBeChecked();
    await page.getByText('System', { exact: true }).click();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('warren-color-scheme'))).toBe('auto');
    await expect.poll(() => scheme(page)).toBe('light');
    await context.close();
  });
});
