import { expect, type Page, type TestInfo } from '@playwright/test';
import os from 'node:os';
import path from 'node:path';
import { lightAndDarkShots } from './helpers';
import { newPayingCustomer, test } from './users';

/** Light and dark screens, each audited by axe: $LAYOUT_SHOTS_DIR or the temp dir. */
const shots = (page: Page, info: TestInfo, name: string) =>
  lightAndDarkShots(page, info, name, process.env.LAYOUT_SHOTS_DIR ?? path.join(os.tmpdir(), 'warren-layout-shots'));

test.describe('the shell and pages as a paying customer sees them', { tag: '@phone' }, () => {
  test('billing is in the sidebar (the drawer on a phone): plan, payments and receipts in one place', async ({
    browser,
    isMobile,
    payingCustomer,
  }, info) => {
    const context = await browser.newContext({ ...info.project.use, storageState: payingCustomer.storage });
    const page = await context.newPage();
    await page.goto('/dashboard');
    if (isMobile) await page.getByRole('button', { name: 'Open menu' }).click();
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    const billing = nav.getByRole('link', { name: 'Billing' });
    await expect(billing).toBeVisible();
    await billing.click();
    await expect(page).toHaveURL(/\/subscription$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Billing');
    await expect(page.getByTestId('subscription-card')).toBeVisible();
    await expect(page.getByTestId('history-row')).toHaveCount(1);
    await expect(page.getByTestId('download-receipt')).toBeVisible();
    if (isMobile) await page.getByRole('button', { name: 'Open menu' }).click();
    // The page is marked as the current one in the menu.
    await expect(nav.getByRole('link', { name: 'Billing' })).toHaveAttribute('aria-current', 'page');
    await shots(page, info, 'billing-in-sidebar');
    await context.close();
  });

  test('the header names the plan on a phone too, under the page title, inside the header', async ({
    browser,
    payingCustomer,
  }, info) => {
    const context = await browser.newContext({ ...info.project.use, storageState: payingCustomer.storage });
    const page = await context.newPage();
    await page.goto('/dashboard');
    const line = page.getByTestId('plan-line-header');
    await expect(line).toBeVisible();
    await expect(line).toContainText('1 Year');
    await expect(line.locator('[data-status="success"]')).toBeVisible();
    // Inside the 62 px header, not overlapping the title.
    const header = (await page.locator('header').first().boundingBox())!;
    const box = (await line.boundingBox())!;
    const title = (await page.getByRole('heading', { level: 1 }).boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(header.y);
    expect(box.y + box.height).toBeLessThanOrEqual(header.y + header.height);
    expect(box.y >= title.y + title.height - 1 || box.x >= title.x + title.width - 1).toBe(true);
    await shots(page, info, 'header-plan-line');
    await context.close();
  });

  test('nothing cut or misplaced: the payment status, location names, setup buttons, snackbars; no upsell badge on what the customer has', async ({
    browser,
    payingCustomer,
  }, info) => {
    const context = await browser.newContext({ ...info.project.use, storageState: payingCustomer.storage });
    const page = await context.newPage();
    /** Elements whose text is cut (an ellipsis or overflow), by their text. */
    const cut = (selector: string) =>
      page
        .locator(selector)
        .evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent));

    // The payment history's status reads whole ("Paid", not "PA…").
    await page.goto('/subscription');
    await expect(page.getByTestId('history-status')).toHaveText('Paid');
    expect(await cut('[data-testid="history-status"], [data-testid="history-status"] .mantine-Badge-label')).toEqual(
      [],
    );
    await shots(page, info, 'billing-history');

    // Server locations: every one is the customer's, so no Free/Premium badge; the names are whole.
    await page.goto('/server-locations');
    const locations = page.getByTestId('location');
    await expect(locations.first()).toBeVisible();
    expect(await locations.count()).toBeGreaterThanOrEqual(30);
    await expect(locations.getByTestId('tier-badge')).toHaveCount(0);
    await expect(page.getByText('Johannesburg', { exact: true })).toBeVisible();
    expect(await cut('[data-testid="location"] p')).toEqual([]);
    await shots(page, info, 'locations-paid');

    // The setup guide's buttons: the label centred in its button, with room above and below, one line or two.
    await page.goto('/setup/downloads');
    const buttons = page.locator('[data-testid^="client-"] a.mantine-Button-root');
    await expect(buttons.first()).toBeVisible();
    const offsets = await buttons.evaluateAll((els) =>
      els.map((el) => {
        const b = el.getBoundingClientRect();
        // The text itself (a range), not the label's box with its padding.
        const range = document.createRange();
        range.selectNodeContents(el.querySelector('.mantine-Button-label')!);
        const l = range.getBoundingClientRect();
        return { text: el.textContent, top: l.top - b.top, bottom: b.bottom - l.bottom };
      }),
    );
    expect(offsets.length).toBeGreaterThan(5);
    for (const o of offsets) {
      expect(Math.abs(o.top - o.bottom), `${o.text}: ${o.top} above, ${o.bottom} below`).toBeLessThanOrEqual(2);
      expect(o.bottom, `${o.text}`).toBeGreaterThanOrEqual(4);
    }
    await shots(page, info, 'downloads');

    // A snackbar opens under the header, never over the page title and the plan line.
    await page.goto('/dashboard');
    // The ad blocker's switch says so in a snackbar; switched back after, the shared customer is as before.
    const adBlocker = page.getByRole('switch', { name: 'Ad Blocker' });
    await expect(adBlocker).not.toBeChecked();
    await adBlocker.focus();
    await page.keyboard.press('Space');
    const snack = page.locator('.mantine-Notification-root').first();
    await expect(snack).toContainText('Ad Blocker is turned on.');
    const header = (await page.locator('header').first().boundingBox())!;
    expect((await snack.boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height);
    // No snackbar container spreads over the page (one stretched from the header to the bottom took every click).
    const containers = await page
      .locator('.mantine-Notifications-root')
      .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().height));
    expect(Math.max(...containers)).toBeLessThan(300);
    await expect(adBlocker).toBeEnabled();
    await page.screenshot({
      path: path.join(
        process.env.LAYOUT_SHOTS_DIR ?? path.join(os.tmpdir(), 'warren-layout-shots'),
        `${info.project.name}-snackbar.png`,
      ),
    });
    await page.keyboard.press('Space');
    await expect(adBlocker).not.toBeChecked();
    await context.close();
  });

  test('an abandoned checkout: "Processing" while it may still be paid, "Not completed" after a day', async ({
    browser,
    request,
  }, info) => {
    const customer = await newPayingCustomer(browser, info, 'abandon', request, { ...info.project.use });
    const context = await browser.newContext({ ...info.project.use, storageState: customer.storage });
    const page = await context.newPage();
    // A second checkout, left at the provider's page.
    await page.goto('/plans');
    await page.getByTestId('plan-1-month').click();
    await page.getByRole('radio', { name: /sandbox/i }).click();
    await page.getByTestId('pay-button').click();
    await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}/);
    await page.goto('/subscription');
    const rows = page.getByTestId('history-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText('Processing');
    await expect(rows.last()).toContainText('Paid');
    // A day later the API answers 'expired' for it (apps/api/test/billing-history.test.ts ages it in the
    // database; this server's clock cannot move): here the answer is aged in flight, only to look at the page.
    await page.route('**/api/billing/payments', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { data: { items: { status: string }[] } };
      for (const i of body.data.items) if (i.status === 'pending') i.status = 'expired';
      await route.fulfill({ response: res, json: body });
    });
    await page.reload();
    await expect(rows.first()).toContainText('Not completed');
    await expect(rows.first().getByTestId('expired-note')).toContainText('once the payment provider confirms it');
    await shots(page, info, 'billing-abandoned');
    await context.close();
  });
});
