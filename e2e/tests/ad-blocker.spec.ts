import os from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import { lightAndDarkShots } from './helpers';
import { newPayingCustomer, test } from './users';

/**
 * The ad blocker's categories on the dashboard (issue 23): what the switch blocks, chosen per
 * account, saved as ticked, kept across a reload; a free user's tick offers the upgrade. Screens
 * light and dark at both sizes, each axe-clean.
 */
const SHOTS = process.env.AD_BLOCKER_SHOTS_DIR ?? path.join(os.tmpdir(), 'warren-ad-blocker-shots');

test.describe('ad blocker categories', () => {
  test('a customer chooses what the ad blocker blocks, and the choice holds @phone', async ({
    browser,
    request,
  }, info) => {
    const customer = await newPayingCustomer(browser, info, 'adblock-cat', request, { ...info.project.use });
    const context = await browser.newContext({ ...info.project.use, storageState: customer.storage });
    const page = await context.newPage();
    await page.goto('/dashboard');
    const panel = page.getByTestId('feature-list');
    const group = panel.getByRole('group', { name: 'What it blocks' });
    await expect(group).toBeVisible();
    // Never chosen: ads and trackers, the switch's meaning; the switch itself is off.
    await expect(group.getByRole('checkbox', { name: /^Ads/ })).toBeChecked();
    await expect(group.getByRole('checkbox', { name: /^Trackers/ })).toBeChecked();
    for (const name of [/^Malware/, /^Adult/, /^Gambling/])
      await expect(group.getByRole('checkbox', { name })).not.toBeChecked();
    await expect(group).toContainText('Saved for when the ad blocker is on.');

    // The switch by keyboard (its label covers the input), as product.spec does.
    await panel.getByRole('switch', { name: 'Ad Blocker' }).focus();
    await page.keyboard.press('Space');
    await expect(page.getByText('Ad Blocker is turned on.')).toBeVisible();
    await expect(group).toContainText('WireGuard follows a change within seconds');
    await group.getByRole('checkbox', { name: /^Malware/ }).click();
    await expect(page.getByText('Ad blocker categories saved.')).toBeVisible();
    await group.getByRole('checkbox', { name: /^Trackers/ }).click();
    await expect(group.getByRole('checkbox', { name: /^Trackers/ })).not.toBeChecked();

    // What the API holds, and what the page shows after a reload.
    const saved = await page.request.get('/api/setup/features/categories', {
      headers: { authorization: `Bearer ${customer.token}` },
    });
    expect((await saved.json()).data).toEqual({ enabled: true, categories: ['ads', 'malware'] });
    await page.reload();
    await expect(group.getByRole('checkbox', { name: /^Malware/ })).toBeChecked();
    await expect(group.getByRole('checkbox', { name: /^Trackers/ })).not.toBeChecked();
    await expect(page.getByText('Ad blocker categories saved.')).toHaveCount(0, { timeout: 10_000 });
    // A full-page shot from the top, nothing focused (a focused skip link would sit in the picture).
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      window.scrollTo(0, 0);
    });
    await lightAndDarkShots(page, info, 'dashboard-ad-blocker', SHOTS);
    await context.close();
  });

  test("a free user's tick offers the upgrade and changes nothing", async ({ browser, freeUser }, info) => {
    const context = await browser.newContext({ ...info.project.use, storageState: freeUser });
    const page = await context.newPage();
    await page.goto('/dashboard');
    const group = page.getByTestId('feature-list').getByRole('group', { name: 'What it blocks' });
    await group.getByRole('checkbox', { name: /^Gambling/ }).click();
    await expect(page.getByRole('dialog', { name: 'Upgrade to use the Ad Blocker' })).toBeVisible();
    await expect(group.getByRole('checkbox', { name: /^Gambling/ })).not.toBeChecked();
    await context.close();
  });
});
