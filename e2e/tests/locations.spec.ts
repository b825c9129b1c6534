import { expect, test, type Page } from '@playwright/test';
import { checkDark, axeViolations, newVerifiedUser, payWithSandbox, snap, uniqueEmail } from './helpers';

/** /server-locations (the locations feature) as a new user meets it: free locations open, premium blurred; then paid, all open. */

/** /server-locations: the cards, loaded (no skeletons). */
async function openLocations(page: Page) {
  await page.goto('/server-locations');
  await expect(page.getByRole('heading', { level: 1, name: 'VPN server locations' })).toBeVisible();
  await expect(page.getByTestId('location').first()).toBeVisible();
  return page.getByTestId('location');
}

test.describe('server locations', { tag: '@phone' }, () => {
  test('a new user sees the server list (premium blurred, search, the plan filter), then pays and sees premium locations', async ({
    page,
    request,
  }, info) => {
    test.setTimeout(150_000);
    const email = uniqueEmail('locations', info);
    await newVerifiedUser(page, request, email);

    await test.step('/server-locations as a free user: free locations open, premium blurred with a crown, search filters', async () => {
      const locations = await openLocations(page);
      const total = await locations.count();
      expect(total).toBeGreaterThanOrEqual(30);
      const blurred = locations.and(page.locator('[data-blur="1"]'));
      const open = locations.and(page.locator('[data-blur="0"]'));
      expect(await blurred.count()).toBeGreaterThan(0);
      expect(await open.count()).toBeGreaterThan(0);
      // Premium (blurred) locations are listed first.
      await expect(locations.first()).toHaveAttribute('data-blur', '1');
      // A blurred card: the names are blurred, it wears the Premium crown badge and offers the upgrade.
      const firstBlurred = blurred.first();
      await expect(firstBlurred.getByText('Premium', { exact: true })).toBeVisible();
      await expect(firstBlurred.locator('.mantine-Badge-root svg')).toBeVisible();
      await expect(firstBlurred.getByRole('link', { name: 'Upgrade to unlock' })).toBeVisible();
      const filter = await firstBlurred
        .locator('div[class*="blurText"]')
        .first()
        .evaluate((el) => getComputedStyle(el).filter);
      expect(filter).toContain('blur');
      // Free locations show their name plainly, a Free badge and their load.
      const firstOpen = open.first();
      await expect(firstOpen.getByText('Free', { exact: true })).toBeVisible();
      expect(await firstOpen.locator('[class*="blurText"]').count()).toBe(0);
      await expect(page.getByText(/premium locations are waiting for you/)).toBeVisible();
      await snap(page, info, 'vpn-server-locations-free');

      // Search narrows the list; the city and the country both match; nonsense matches nothing.
      const city = (await firstOpen.locator('p').first().textContent())!.trim();
      const search = page.getByRole('textbox', { name: 'Search country or city' });
      await search.fill(city.slice(0, 5).toUpperCase());
      await expect.poll(() => locations.count()).toBeLessThan(total);
      await expect(locations.filter({ hasText: city }).first()).toBeVisible();
      await snap(page, info, 'vpn-server-locations-search');
      await search.fill('zzzz-nowhere');
      await expect(locations).toHaveCount(0);
      await expect(page.getByText('No locations match your search.')).toBeVisible();
      await search.fill('');
      await expect(locations).toHaveCount(total);

      // "Available on my plan" hides what the plan does not reach; the order of the rest stays.
      const openCities = await open.locator('p:first-of-type').allTextContents();
      const onPlan = page.getByRole('switch', { name: 'Available on my plan' });
      await onPlan.check();
      await expect(blurred).toHaveCount(0);
      expect(await locations.locator('p:first-of-type').allTextContents()).toEqual(openCities);
      expect(await axeViolations(page)).toEqual([]);
      await snap(page, info, 'vpn-server-locations-on-plan');
      await checkDark(page, info, 'vpn-server-locations-on-plan');
      await onPlan.uncheck();
      await expect(locations).toHaveCount(total);
    });

    await test.step('pay with the sandbox: premium locations are open', async () => {
      await payWithSandbox(page);

      const locations = await openLocations(page);
      expect(await locations.count()).toBeGreaterThanOrEqual(30);
      await expect(locations.and(page.locator('[data-blur="1"]'))).toHaveCount(0);
      // Every location is the customer's now: no Free/Premium badge sells them what they have (issue 23).
      await expect(locations.getByTestId('tier-badge')).toHaveCount(0);
      await expect(locations.filter({ hasText: 'Premium' })).toHaveCount(0);
      expect(await page.locator('[class*="blurText"]').count()).toBe(0);
      await expect(locations.getByRole('link', { name: 'Upgrade to unlock' })).toHaveCount(0);
      await expect(page.getByText(/premium locations are waiting for you/)).toHaveCount(0);
      // No badge is squeezed by a long country name (“United Arab Emirates”).
      const squeezed = await page
        .locator('.mantine-Badge-label')
        .evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.textContent));
      expect(squeezed).toEqual([]);
      await snap(page, info, 'vpn-server-locations-paid');
    });
  });
});
