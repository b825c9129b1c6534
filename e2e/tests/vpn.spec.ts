import fs from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { PASSWORD, SignUpPage, linkFromMail, snap, uniqueEmail } from './helpers';

/** A new user signs up and opens the emailed link while signed in: verified, on the dashboard. */
async function newVerifiedUser(page: Page, request: Parameters<typeof linkFromMail>[0], email: string) {
  const signUp = new SignUpPage(page);
  await signUp.open();
  await signUp.fill('Hedy Lamarr', email, PASSWORD);
  await signUp.submit();
  await expect(page).toHaveURL(/\/plans$/);
  const link = await linkFromMail(request, email, '/sign-in');
  await page.goto(link);
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** axe (WCAG 2.0-2.2 A and AA, as a11y.spec.ts) on the page as it is now: the rule ids that fail. */
async function axeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The same state in the dark scheme (the app follows the system's): no axe violation, a screenshot, then light again. */
async function checkDark(page: Page, info: Parameters<typeof snap>[1], name: string) {
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
  expect(await axeViolations(page)).toEqual([]);
  await snap(page, info, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'light');
}

/** /server-locations: the cards, loaded (no skeletons). */
async function openLocations(page: Page) {
  await page.goto('/server-locations');
  await expect(page.getByRole('heading', { level: 1, name: 'VPN server locations' })).toBeVisible();
  await expect(page.getByTestId('location').first()).toBeVisible();
  return page.getByTestId('location');
}

test.describe('VPN pages', { tag: '@phone' }, () => {
  test('a new user sees the server list, the setup guide and the apps, adds a WireGuard device, gets its config and QR code, revokes it, then pays and sees premium locations', async ({
    page,
    request,
  }, info) => {
    // A long journey (sign-up, four pages, a device, axe in both schemes, a payment): more than the default minute on a phone.
    test.setTimeout(150_000);
    const email = uniqueEmail('vpn', info);
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

    await test.step('/setup shows the official clients for the visitor’s OS, /setup/downloads every system', async () => {
      const systems = page.waitForResponse(
        (r) => r.url().endsWith('/api/dashboard/operationSystems') && r.status() === 200,
      );
      await page.goto('/setup');
      await systems;
      const guide = page.getByTestId('setup-guide');
      await expect(guide).toBeVisible();
      // Desktop Chromium on Linux gets the Linux clients, the iPhone user agent the iOS ones.
      const mobile = info.project.name === 'mobile';
      await expect(guide.getByRole('heading', { level: 3 })).toHaveText(mobile ? 'iOS' : 'Linux');
      await expect(guide.getByText('Your device')).toBeVisible();
      const wg = guide.getByTestId(mobile ? 'client-wgIos' : 'client-wgLinux');
      await expect(wg.getByRole('listitem')).toHaveCount(3);
      await expect(
        wg.getByRole('link', { name: mobile ? 'Get WireGuard on the App Store' : 'Get WireGuard (wireguard-tools)' }),
      ).toHaveAttribute(
        'href',
        mobile ? 'https://apps.apple.com/us/app/wireguard/id1441195209' : 'https://www.wireguard.com/install/',
      );
      await expect(page.getByRole('main').getByRole('link', { name: 'WireGuard', exact: true })).toBeVisible();
      await snap(page, info, 'vpn-setup');

      await page.getByRole('link', { name: 'All downloads' }).click();
      await expect(page).toHaveURL(/\/setup\/downloads$/);
      for (const id of [1, 2, 3, 4, 7, 8]) await expect(page.getByTestId(`os-${id}`)).toBeVisible();
      await expect(
        page.getByTestId('os-1').getByRole('link', { name: 'Download the WireGuard installer' }),
      ).toHaveAttribute('href', 'https://download.wireguard.com/windows-client/wireguard-installer.exe');
      await expect(page.getByTestId('os-2').getByRole('link', { name: 'Get Tunnelblick' })).toHaveAttribute(
        'href',
        'https://tunnelblick.net/',
      );
      await expect(
        page.getByTestId('os-7').getByRole('link', { name: 'Get WireGuard on Google Play' }),
      ).toHaveAttribute('href', 'https://play.google.com/store/apps/details?id=com.wireguard.android');
      // Warren ships no apps of its own: nothing from a placeholder host.
      await expect(page.getByTestId('brand-apps')).toHaveCount(0);
      await expect(page.locator('a[href*=".example"]')).toHaveCount(0);
      await snap(page, info, 'vpn-downloads');
    });

    await test.step('/setup/wg: add a named device, see its config, QR code, download it, revoke it', async () => {
      // As a user gets there: the sidebar on a desktop, the menu behind the burger on a phone (the
      // sidebar's links are off-screen until it is opened).
      const menu = page.getByRole('navigation', { name: 'Main menu' });
      if (info.project.name === 'mobile') {
        await expect(menu).not.toBeInViewport();
        await page.getByRole('button', { name: 'Open menu' }).click();
        await expect(menu).toBeInViewport();
      }
      await menu.getByRole('link', { name: 'WireGuard' }).click();
      await expect(page).toHaveURL(/\/setup\/wg$/);
      await expect(page.getByRole('heading', { level: 1, name: 'WireGuard configuration files' })).toBeVisible();
      if (info.project.name === 'mobile') await expect(menu).not.toBeInViewport();
      await expect(page.getByText('No devices yet. Add one to get its configuration.')).toBeVisible();
      await expect(page.getByText('0 of 1 devices')).toBeVisible();
      await snap(page, info, 'vpn-wg-empty');

      const deviceName = `Phone ${info.project.name}`;
      await page.getByRole('textbox', { name: 'Device name' }).fill(deviceName);
      await page.getByTestId('add-device').click();

      const fresh = page.getByTestId('fresh-config');
      await expect(fresh).toBeVisible();
      await expect(fresh.getByRole('heading', { name: `Configuration for ${deviceName}` })).toBeVisible();
      const device = page.getByTestId('wg-device');
      await expect(device).toHaveCount(1);
      await expect(device).toContainText(deviceName);
      await expect(device).toContainText('Never connected');
      await expect(page.getByText('1 of 1 devices')).toBeVisible();
      // The free plan allows one device: the form is closed with an upgrade offer.
      await expect(page.getByTestId('add-device')).toBeDisabled();
      await expect(page.getByText("You have reached your plan's device limit.", { exact: false })).toBeVisible();

      // The location starts on the recommended one (this browser's address counts as the United
      // States, so New York, the nearest free location), marked as such.
      const location = fresh.getByRole('combobox', { name: 'Location' });
      await expect(location).toHaveValue('United States, New York (US) · Recommended');
      await expect(fresh.getByTestId('recommended')).toContainText('Recommended');

      // QR code for the mobile apps. On a phone the download for the WireGuard app comes first
      // and the QR code (for another device) below it; on a wide screen the QR code stands beside.
      const qr = page.getByTestId('config-qr');
      await expect(qr).toBeVisible();
      const downloadButton = page.getByTestId('download-conf');
      const buttonBox = (await downloadButton.boundingBox())!;
      const qrBox = (await qr.boundingBox())!;
      if (info.project.name === 'mobile') {
        await expect(downloadButton).toHaveText('Download config for the WireGuard app');
        expect(qrBox.y).toBeGreaterThan(buttonBox.y + buttonBox.height);
        await expect(
          fresh.getByText('Setting up another device? Scan this code with its WireGuard app.'),
        ).toBeVisible();
      } else {
        await expect(downloadButton).toHaveText('Download .conf');
        expect(qrBox.x).toBeGreaterThan(buttonBox.x + buttonBox.width);
        expect(qrBox.y).toBeLessThan(buttonBox.y + buttonBox.height);
        expect(qrBox.width).toBeGreaterThanOrEqual(200);
      }
      await expect
        .poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBeGreaterThan(100);
      expect(await axeViolations(page)).toEqual([]);
      await checkDark(page, info, 'vpn-wg-fresh');
      await expect
        .poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBeGreaterThan(100);
      const box = (await qr.boundingBox())!;
      expect(box.width).toBeGreaterThanOrEqual(150);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);

      // The config text.
      await fresh.getByRole('button', { name: 'Show configuration' }).click();
      const text = page.getByTestId('config-text');
      await expect(text).toBeVisible();
      for (const part of ['[Interface]', 'PrivateKey', 'Address', '[Peer]', 'PublicKey', 'Endpoint', 'AllowedIPs'])
        await expect(text).toContainText(part);
      const shown = (await text.textContent())!;
      expect(shown).toMatch(/PrivateKey\s*=\s*[A-Za-z0-9+/]{43}=/);
      expect(shown).toMatch(/Endpoint\s*=\s*\S+:\d+/);
      // Nothing is clipped: the long keys wrap inside the block, also on a phone.
      expect(await text.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      // IPv4 only (issue 23): the file loses its IPv6 address; IPv6 stays routed into the tunnel (blocked there).
      expect(shown).toMatch(/Address = [\d.]+\/32, [0-9a-f:]+\/128/);
      await fresh.getByRole('switch', { name: /^IPv4 only/ }).check();
      await expect(text).toContainText(/Address = [\d.]+\/32\s/);
      await expect(text).not.toContainText('/128');
      await expect(text).toContainText('AllowedIPs = 0.0.0.0/0, ::/0');
      expect(await axeViolations(page)).toEqual([]);
      await snap(page, info, 'vpn-wg-ipv4-only');
      await fresh.getByRole('switch', { name: /^IPv4 only/ }).uncheck();
      await snap(page, info, 'vpn-wg-device');

      // Another free location: the endpoint changes, the private key stays.
      const first = await location.inputValue();
      await location.click();
      await page
        .getByRole('listbox', { name: 'Location' })
        .getByRole('option')
        .filter({ hasNotText: first })
        .first()
        .click();
      await expect(location).not.toHaveValue(first);
      await expect(text).not.toHaveText(shown);
      const other = (await text.textContent())!;
      expect(other.match(/Endpoint = (\S+)/)![1]).not.toBe(shown.match(/Endpoint = (\S+)/)![1]);
      expect(other.match(/PrivateKey = (\S+)/)![1]).toBe(shown.match(/PrivateKey = (\S+)/)![1]);
      await location.click();
      await page.getByRole('option', { name: first }).click();
      await expect(text).toHaveText(shown);

      // Download the .conf.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-conf').click()]);
      expect(download.suggestedFilename()).toMatch(/\.conf$/);
      const conf = fs.readFileSync((await download.path())!, 'utf8');
      // The file opens with the location as a comment, then [Interface] (wg-quick skips comments).
      expect(conf).toMatch(/^# [^\n]+\n\[Interface\]\n/);
      expect(conf).toContain('[Peer]');
      expect(conf).toContain(shown.match(/PrivateKey\s*=\s*(\S+)/)![1]);
      // And the zip of every location.
      const [zip] = await Promise.all([
        page.waitForEvent('download'),
        fresh.getByRole('button', { name: 'All locations (.zip)' }).click(),
      ]);
      expect(zip.suggestedFilename()).toMatch(/\.zip$/);
      expect(
        fs
          .readFileSync((await zip.path())!)
          .subarray(0, 2)
          .toString(),
      ).toBe('PK');

      // Revoke: confirm in the modal, the device and its config are gone.
      await device.getByTestId('revoke').click();
      await expect(page.getByRole('dialog')).toContainText(`Revoke ${deviceName}?`);
      await snap(page, info, 'vpn-wg-revoke');
      await page.getByTestId('confirm-revoke').click();
      await expect(page.getByText('Device revoked.')).toBeVisible();
      await expect(device).toHaveCount(0);
      await expect(fresh).toHaveCount(0);
      await expect(page.getByText('No devices yet. Add one to get its configuration.')).toBeVisible();
      await expect(page.getByTestId('add-device')).toBeEnabled();
    });

    await test.step('pay with the sandbox: premium locations are open', async () => {
      await page.goto('/plans');
      await page.getByTestId('plan-1-year').click();
      await page.getByRole('radio', { name: /sandbox/i }).click();
      await page.getByTestId('pay-button').click();
      await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}\?lang=en$/);
      await page.getByRole('button', { name: 'Pay', exact: true }).click();
      // Back from the provider (the return page, then /thank-you), the plan is active.
      await expect(page).not.toHaveURL(/\/sandbox\//);
      await expect(page.getByTestId('thank-you-plan')).toHaveText('1 Year', { timeout: 15_000 });

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

      // WireGuard now allows ten devices and premium locations in the config.
      await page.goto('/setup/wg');
      await expect(page.getByText('0 of 10 devices')).toBeVisible();
      await snap(page, info, 'vpn-wg-paid');
    });
  });
});
