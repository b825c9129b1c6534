import { expect, test } from '@playwright/test';
import { lightAndDarkShots, newVerifiedUser, uniqueEmail } from './helpers';

/**
 * WireGuard keys with a lifetime (issue 23), as a customer meets them on /setup/wg: set a lifetime,
 * see "key expires in N days", rotate the key (a new key pair made in the browser: the new
 * configuration with its QR code, the same device), and the expired state, seen from a browser
 * whose clock is past the key's end (the server's own expiry is the API tests'). axe light and
 * dark at each step; screenshots kept outside the repository (KEY_SHOTS_DIR, default
 * /tmp/warren-wg-keys-shots) for a look.
 */
const SHOTS = process.env.KEY_SHOTS_DIR ?? '/tmp/warren-wg-keys-shots';
const DAY = 86_400_000;

test.describe('WireGuard key lifetime and rotation', { tag: '@phone' }, () => {
  test('set a lifetime, rotate the key, see an expired key and rotate it back', async ({
    page,
    request,
    browser,
  }, info) => {
    test.setTimeout(150_000);
    await newVerifiedUser(page, request, uniqueEmail('wgkeys', info));
    await page.goto('/setup/wg');
    const name = `Laptop ${info.project.name}`;
    await page.getByRole('textbox', { name: 'Device name' }).fill(name);
    await page.getByTestId('add-device').click();
    const fresh = page.getByTestId('fresh-config');
    await expect(fresh.getByRole('heading', { name: `Configuration for ${name}` })).toBeVisible();
    const configText = async () => {
      const shown = fresh.getByTestId('config-text');
      if (!(await shown.isVisible())) await fresh.getByRole('button', { name: 'Show configuration' }).click();
      return (await shown.textContent())!;
    };
    const firstConfig = await configText();
    const device = page.getByTestId('wg-device');
    const lifetime = device.getByRole('combobox', { name: 'Key lifetime' });

    await test.step('a lifetime: never by default, then 7 days', async () => {
      await expect(lifetime).toHaveValue('Never');
      await expect(device.getByTestId('key-expires')).toHaveCount(0);
      await lifetime.click();
      await page.getByRole('option', { name: '7 days' }).click();
      await expect(device.getByTestId('key-expires')).toHaveText('Key expires in 7 days');
      await expect(lifetime).toHaveValue('7 days');
      await page.reload();
      await expect(device.getByTestId('key-expires')).toHaveText('Key expires in 7 days');
      await lightAndDarkShots(page, info, 'lifetime', SHOTS);
    });

    await test.step('rotate: asked first, then the new configuration and QR code for the same device', async () => {
      await device.getByTestId('rotate-key').click();
      await expect(page.getByRole('dialog')).toContainText(`Rotate the key of ${name}?`);
      await page.getByTestId('confirm-rotate').click();
      const title = fresh.getByRole('heading', { name: `New configuration for ${name}` });
      await expect(title).toBeVisible();
      await expect(fresh).toBeInViewport();
      // The focus follows: a keyboard or screen reader user is taken to the new configuration.
      await expect(title).toBeFocused();
      await expect(fresh.getByTestId('config-qr')).toBeVisible();
      const second = await configText();
      const keyLine = (s: string) => /PrivateKey = (\S+)/.exec(s)![1];
      const address = (s: string) => /Address = (.+)/.exec(s)![1];
      expect(keyLine(second)).not.toBe(keyLine(firstConfig));
      expect(address(second)).toBe(address(firstConfig));
      await expect(device).toHaveCount(1);
      await expect(device.getByTestId('key-expires')).toHaveText('Key expires in 7 days');
      await lightAndDarkShots(page, info, 'rotated', SHOTS);
    });

    await test.step('expired (the browser eight days on): said on the device, lifetime locked, rotate brings it back', async () => {
      // A context of its own (a clock is the whole context's), signed in as the same customer.
      const { viewport, isMobile, hasTouch, deviceScaleFactor, userAgent, baseURL } = info.project.use;
      const laterContext = await browser.newContext({
        viewport,
        isMobile,
        hasTouch,
        deviceScaleFactor,
        userAgent,
        baseURL,
        storageState: await page.context().storageState(),
      });
      const later = await laterContext.newPage();
      await later.clock.install({ time: new Date(Date.now() + 8 * DAY) });
      await later.goto('/setup/wg');
      const row = later.getByTestId('wg-device');
      await expect(row.getByTestId('wg-key-expired')).toContainText(
        'Key expired: this device cannot connect until you rotate its key.',
      );
      await expect(row.getByRole('combobox', { name: 'Key lifetime' })).toBeDisabled();
      await lightAndDarkShots(later, info, 'expired', SHOTS);
      // An expired key is rotated at once (nothing left to lose): the new configuration follows.
      await row.getByTestId('rotate-key').click();
      await expect(
        later.getByTestId('fresh-config').getByRole('heading', { name: `New configuration for ${name}` }),
      ).toBeVisible();
      await laterContext.close();
      // At today's date the device's new key has its whole lifetime.
      await page.reload();
      await expect(device.getByTestId('key-expires')).toHaveText('Key expires in 7 days');
      await expect(device.getByTestId('wg-key-expired')).toHaveCount(0);
    });
  });
});
