import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test, type APIRequestContext, type TestInfo } from '@playwright/test';
import { PASSWORD, SignUpPage, lightAndDarkShots, linkFromMail, uniqueEmail } from './helpers';

/**
 * The WireGuard port select (issue 23): a node whose agent reports UDP 53 and 443 redirected to its
 * WireGuard port makes its location offer them; the customer picks one with the keyboard beside
 * IPv4 only, and the file's Endpoint names it. axe on the page light and dark; screenshots kept
 * outside the repository (PORT_SHOTS_DIR, default /tmp/warren-wg-ports-shots) for a look.
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
const SHOTS = process.env.PORT_SHOTS_DIR ?? '/tmp/warren-wg-ports-shots';

const cli = (...args: string[]) =>
  run(process.execPath, [path.join(repo, 'apps/api/dist/cli.js'), 'vpn', ...args], {
    env: { ...process.env, DATA_DIR: process.env.WARREN_E2E_DATA_DIR },
    cwd: repo,
  });

/** A free location of its own (far from every browser here, so never the recommended one) with one node that reports 53 and 443. */
async function portsLocation(request: APIRequestContext, info: TestInfo): Promise<{ city: string; host: string }> {
  const tag = `${info.project.name}-${Math.floor(Math.random() * 1e6)}`;
  const slug = `e2e-ports-${tag}`;
  const city = `Porttown ${tag}`;
  await cli(
    'add-location',
    '--slug',
    slug,
    '--country-code',
    'AQ',
    '--country',
    'Antarctica',
    '--city',
    city,
    // = : a value that starts with "-" is not a flag.
    '--lat=-77.85',
    '--lon=166.67',
    '--free',
  );
  const host = `${slug}.nodes.example.net`;
  const { stdout } = await cli('add-node', '--location', slug, '--name', `${slug}-1`, '--endpoint', host);
  const token = /\b(wn_[A-Za-z0-9_-]+)/.exec(stdout)?.[1];
  expect(token, stdout).toBeTruthy();
  const { publicKey } = generateKeyPairSync('x25519');
  const res = await request.post('/api/nodes/report', {
    headers: { authorization: `Bearer ${token}` },
    data: {
      publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
      listenPort: 51820,
      load: 5,
      activePeers: 0,
      peers: [],
      wgExtraPorts: [53, 443],
    },
  });
  expect(res.status()).toBe(200);
  return { city, host };
}

test.describe('WireGuard port', { tag: '@phone' }, () => {
  test.describe.configure({ timeout: 240_000 });
  test('a customer picks UDP 443 by keyboard and the file names it', async ({ page, request }, info) => {
    const { city, host } = await portsLocation(request, info);
    const email = uniqueEmail('wg-port', info);
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('Ada Lovelace', email, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);
    await page.goto(await linkFromMail(request, email, '/sign-in'));
    await expect(page).toHaveURL(/\/dashboard$/);

    await page.goto('/setup/wg');
    await page.getByRole('textbox', { name: 'Device name' }).fill('Laptop');
    await page.getByTestId('add-device').click();
    const fresh = page.getByTestId('fresh-config');
    await expect(fresh).toBeVisible();

    // The recommended location offers only its own port (demo nodes report none): no choice shown.
    await expect(fresh.getByRole('combobox', { name: 'Port' })).toHaveCount(0);
    const location = fresh.getByRole('combobox', { name: 'Location' });
    await location.click();
    await location.fill(city);
    await page.getByRole('option', { name: new RegExp(city) }).click();
    await expect(location).toHaveValue(new RegExp(city));

    const port = fresh.getByRole('combobox', { name: 'Port' });
    await expect(port).toHaveValue('51820 (default)');
    await fresh.getByRole('button', { name: 'Show configuration' }).click();
    const text = fresh.getByTestId('config-text');
    await expect(text).toContainText(`Endpoint = ${host}:51820`);

    // Keyboard only: Tab from IPv4 only to the port select, open it, pick 443, Enter.
    await fresh.getByRole('switch', { name: /^IPv4 only/ }).focus();
    await page.keyboard.press('Tab');
    await expect(port).toBeFocused();
    await page.keyboard.press('ArrowDown');
    const options = page.getByRole('listbox').getByRole('option');
    await expect(options).toHaveText(['51820 (default)', '53 (as DNS)', '443 (as HTTPS)']);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(port).toHaveValue('443 (as HTTPS)');
    await expect(text).toContainText(`Endpoint = ${host}:443`);
    // Only the locations that take 443 (this one, and another browser's running beside it) go in the zip.
    await expect(fresh.getByTestId('download-zip')).toHaveText(/^[12] locations? on port 443 \(\.zip\)$/);

    // The downloaded file names the port too.
    const [download] = await Promise.all([page.waitForEvent('download'), fresh.getByTestId('download-conf').click()]);
    const file = await download.path();
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(file, 'utf8')).toMatch(new RegExp(`^Endpoint = ${host.replaceAll('.', '\\.')}:443$`, 'm'));

    // Shots from the top, nothing focused (a focused skip link would show over the page).
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      window.scrollTo(0, 0);
    });
    await lightAndDarkShots(page, info, 'wg-port', SHOTS);
  });
});
