import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { checkDark, axeViolations, newVerifiedUser, payWithSandbox, snap, uniqueEmail } from './helpers';

/** /setup/wg (the wireguard feature) as a new user meets it: one device on the free plan, its config and QR code; ten once paid. */
test.describe('WireGuard devices', { tag: '@phone' }, () => {
  test('a new user adds a WireGuard device, gets its config and QR code, revokes it, then pays and may add ten', async ({
    page,
    request,
  }, info) => {
    // A device, axe in both schemes, downloads and a payment: more than the default minute on a phone.
    test.setTimeout(150_000);
    const email = uniqueEmail('wireguard', info);
    await newVerifiedUser(page, request, email);

    await test.step('/setup/wg: add a named device, see its config, QR code, download it, revoke it', async () => {
      // As a user gets there: the sidebar on a desktop, the menu behind the burger on a phone (the
      // sidebar's links are off-screen until it is opened).
      const menu = page.getByRole('navigation', { name: 'Main menu' });
      if (info.project.name === 'mobile') {
        await expect(menu).not.toBeInViewport();
        await page.getByRole('button', { name: 'Open menu' }).click();
        await expect(menu).toBeInViewport();
      }
      // From the dashboard the VPN Features group is closed: open it.
      await menu.getByRole('button', { name: 'VPN Features' }).click();
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

    await test.step('pay with the sandbox: ten devices', async () => {
      await payWithSandbox(page);
      // WireGuard now allows ten devices and premium locations in the config.
      await page.goto('/setup/wg');
      await expect(page.getByText('0 of 10 devices')).toBeVisible();
      await snap(page, info, 'vpn-wg-paid');
    });
  });
});
