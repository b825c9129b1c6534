import { expect, test } from '@playwright/test';
import { newVerifiedUser, snap, uniqueEmail } from './helpers';

/** /setup and /setup/downloads (the setup feature): the official clients for the visitor's system, then every system. */
test.describe('setup guide', { tag: '@phone' }, () => {
  test('a new user sees the official clients for their system at /setup and every system at /setup/downloads', async ({
    page,
    request,
  }, info) => {
    const email = uniqueEmail('setup', info);
    await newVerifiedUser(page, request, email);

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
  });
});
