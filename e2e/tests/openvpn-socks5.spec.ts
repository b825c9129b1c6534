import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { PASSWORD, linkFromMail, newVerifiedUser, snap, uniqueEmail } from './helpers';

/** The three OpenVPN/SOCKS5 pages, as a new user meets them: first on the free plan, then paid. */
test.describe('OpenVPN and SOCKS5 pages', () => {
  test('a free user downloads an OpenVPN file, resets the password, reads a router guide and is offered an upgrade for SOCKS5', async ({
    page,
    request,
  }, info) => {
    const email = uniqueEmail('services', info);
    await newVerifiedUser(page, request, email, 'Grace Hopper');

    // /setup/configuration-files: credentials, free locations downloadable, premium ones locked.
    await page.goto('/setup/configuration-files');
    await expect(page).toHaveTitle('Warren VPN | OpenVPN configuration files');
    await expect(page.getByRole('heading', { name: 'Your OpenVPN and SOCKS5 credentials' })).toBeVisible();
    const username = await page.getByTestId('service-username').inputValue();
    expect(username).toMatch(/^w[a-z2-9]{11}$/);
    const password = await page.getByTestId('service-password').inputValue();
    expect(password).toHaveLength(20);
    expect(password).not.toBe(PASSWORD);
    await expect(page.getByTestId('adblock-state')).toHaveText('Ad blocker off');
    const firstFree = page
      .getByTestId('ovpn-location')
      .filter({ has: page.getByRole('button', { name: 'UDP' }) })
      .first();
    await expect(firstFree).toBeVisible();
    await expect(page.getByRole('link', { name: 'Upgrade to unlock' }).first()).toBeVisible();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      firstFree.getByRole('button', { name: 'UDP' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^warren-[a-z0-9-]+-udp\.ovpn$/);
    const text = fs.readFileSync((await download.path())!, 'utf8');
    expect(text).toContain('<ca>');
    expect(text).toContain('<tls-crypt>');
    expect(text).toMatch(/^auth-user-pass$/m);
    await snap(page, info, 'openvpn-files-free');

    // Reset: the password changes, the username stays.
    await page.getByTestId('reset-credentials').click();
    await page.getByTestId('confirm-reset').click();
    await expect(page.getByText('New password ready. Update it on your devices.')).toBeVisible();
    await expect(page.getByTestId('service-password')).not.toHaveValue(password);
    await expect(page.getByTestId('service-username')).toHaveValue(username);

    // /setup/router-configuration: pick Keenetic, the guide and the file follow.
    await page.goto('/setup/router-configuration');
    await expect(page).toHaveTitle('Warren VPN | OpenVPN configurations for router');
    await expect(page.getByRole('heading', { name: 'Set up OpenWrt' })).toBeVisible();
    await expect(page.getByTestId('router-steps').locator('li')).toHaveCount(5);
    await snap(page, info, 'router-openwrt');
    await page.getByTestId('router-firmware').click();
    await page.getByRole('option', { name: 'Keenetic' }).click();
    await expect(page.getByRole('heading', { name: 'Set up Keenetic' })).toBeVisible();
    await expect(page.getByText('The Keenetic file contains your username and password')).toBeVisible();
    const [routerFile] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('router-download').click(),
    ]);
    expect(routerFile.suggestedFilename()).toMatch(/-udp-keenetic\.ovpn$/);
    expect(fs.readFileSync((await routerFile.path())!, 'utf8')).toContain(`<auth-user-pass>\n${username}\n`);
    await snap(page, info, 'router-keenetic');

    // /setup/socks5-proxy: a paid feature.
    await page.goto('/setup/socks5-proxy');
    await expect(page).toHaveTitle('Warren VPN | SOCKS5 Proxy');
    await expect(page.getByTestId('socks-upgrade')).toContainText('SOCKS5 comes with a paid plan');
    await snap(page, info, 'socks5-free');
  });

  test(
    'a paying user sees every location and the SOCKS5 hosts with copy buttons',
    { tag: '@phone' },
    async ({ page, request }, info) => {
      // Bought through the checkout with the sandbox provider, as in the billing tests.
      const email = uniqueEmail('services-paid', info);
      await page.goto('/checkout');
      await expect(page.getByTestId('plan-1-year')).toBeVisible();
      await page.getByTestId('plan-1-year').click();
      await page.getByRole('textbox', { name: 'Email' }).fill(email);
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
      await page.getByRole('radio', { name: /sandbox/i }).click();
      await page.getByTestId('pay-button').click();
      await expect(page).toHaveURL(/\/sandbox\/checkout\/sbx_[a-f0-9]{32}\?lang=en$/);
      await page.getByRole('button', { name: 'Pay', exact: true }).click();
      await expect(page).toHaveURL(/\/thank-you$/);
      await page.goto(await linkFromMail(request, email, '/sign-in'));
      await expect(page).toHaveURL(/\/dashboard$/);

      await page.goto('/setup/socks5-proxy');
      await expect(page.getByTestId('socks-hosts')).toBeVisible();
      const rows = page.getByTestId('socks-host');
      expect(await rows.count()).toBeGreaterThanOrEqual(30);
      await expect(rows.first()).toContainText('1080');
      const username = await page.getByTestId('service-username').inputValue();
      await expect(page.getByText(`curl --socks5-hostname ${username}:`)).toBeVisible();
      await snap(page, info, 'socks5-paid');

      await page.goto('/setup/configuration-files');
      await expect(page.getByTestId('ovpn-location').first()).toBeVisible();
      await expect(page.getByRole('link', { name: 'Upgrade to unlock' })).toHaveCount(0);
      await snap(page, info, 'openvpn-files-paid');

      await page.goto('/setup/router-configuration');
      await page.getByTestId('router-firmware').click();
      await page.getByRole('option', { name: 'pfSense' }).click();
      await expect(page.getByTestId('router-steps').locator('li')).toHaveCount(5);
      await snap(page, info, 'router-pfsense');
    },
  );
});
