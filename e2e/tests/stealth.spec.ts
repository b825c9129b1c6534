import AxeBuilder from '@axe-core/playwright';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';
import { PASSWORD, SignUpPage, linkFromMail, snap, uniqueEmail } from './helpers';

/**
 * /setup/stealth (issue 21) as customers meet it: a free user gets the upgrade prompt; a paying
 * user, once a node has reported its stealth core, gets the subscription URL (QR code, copy, "Add
 * to app"), the location's VLESS and Trojan links, and a reset that kills the old URL at once.
 * axe on both states; screenshots light and dark.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

async function axe(page: Page, what: string) {
  const result = await new AxeBuilder({ page })
    .options({ resultTypes: ['violations'] })
    .withTags(TAGS)
    .analyze();
  expect(result.violations.map((v) => `${what}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual(
    [],
  );
}

/** A node in Berlin that reports a stealth core (`npx warren vpn add-node` on the running server, then the agent's report). */
async function stealthNode(request: APIRequestContext, info: TestInfo): Promise<string> {
  const name = `e2e-stealth-${info.project.name}-${Math.floor(Math.random() * 1e6)}`;
  const host = `${name}.stealth.example.net`;
  const { stdout } = await run(
    process.execPath,
    [
      path.join(repo, 'apps/api/dist/cli.js'),
      'vpn',
      'add-node',
      '--location',
      'de-ber',
      '--name',
      name,
      '--endpoint',
      host,
    ],
    {
      env: { ...process.env, DATA_DIR: process.env.WARREN_E2E_DATA_DIR },
      cwd: repo,
    },
  );
  const token = /\b(wn_[A-Za-z0-9_-]+)/.exec(stdout)?.[1];
  expect(token, stdout).toBeTruthy();
  const res = await request.post('/api/nodes/report', {
    headers: { authorization: `Bearer ${token}` },
    data: {
      load: 5,
      activePeers: 0,
      peers: [],
      stealth: {
        host,
        port: 443,
        wsPath: '/e2e-ws',
        up: true,
        version: '4.34.0',
        users: 0,
        certNotAfter: Date.now() + 60 * 86_400_000,
      },
    },
  });
  expect(res.status()).toBe(200);
  return host;
}

test.describe('stealth page', () => {
  // Sign-up or a checkout, then axe (twice on the paid page): slow on a shared 2-core machine.
  test.describe.configure({ timeout: 240_000 });
  test('a free user is offered the upgrade', async ({ page, request }, info) => {
    const email = uniqueEmail('stealth-free', info);
    const signUp = new SignUpPage(page);
    await signUp.open();
    await signUp.fill('Ada Lovelace', email, PASSWORD);
    await signUp.submit();
    await expect(page).toHaveURL(/\/plans$/);
    await page.goto(await linkFromMail(request, email, '/sign-in'));
    await expect(page).toHaveURL(/\/dashboard$/);

    // Reached from the setup guide, like the other set-up pages.
    await page.goto('/setup');
    await page.getByTestId('setup-stealth').getByRole('link', { name: 'Stealth mode' }).click();
    await expect(page).toHaveURL(/\/setup\/stealth$/);
    await expect(page).toHaveTitle('Warren VPN | Stealth mode: VPN where VPNs are blocked');
    const upgrade = page.getByTestId('stealth-upgrade');
    await expect(upgrade).toContainText('Stealth mode comes with a paid plan');
    await expect(upgrade.getByRole('link', { name: 'Upgrade VPN' })).toHaveAttribute('href', '/plans');
    await axe(page, 'free');
    await snap(page, info, 'stealth-free');
  });

  test(
    'a paying user imports one URL: QR code, copy, Add to app, per-location links; a reset kills the old URL',
    { tag: '@phone' },
    async ({ page, request }, info) => {
      const host = await stealthNode(request, info);
      const email = uniqueEmail('stealth-paid', info);
      await page.goto('/checkout');
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

      await page.goto('/setup/stealth');
      const url = await page.getByTestId('stealth-subscription-url').inputValue();
      expect(url).toMatch(/^http:\/\/[^/]+\/api\/sub\/[A-Za-z0-9_-]{43}$/);
      await expect(page.getByTestId('stealth-subscription-qr')).toBeVisible();
      // The visitor's own platform first (the phone project is an iPhone, the desktop one Linux).
      const mine = info.project.name === 'mobile' ? 'ios' : 'linux';
      await expect(page.getByTestId(/^stealth-platform-/).first()).toHaveAttribute(
        'data-testid',
        `stealth-platform-${mine}`,
      );
      await expect(page.getByTestId('stealth-add-ios-streisand')).toHaveAttribute(
        'href',
        `streisand://import/${url}#Warren%20VPN`,
      );

      // The subscription the app fetches: the same links the page shows, through the node that reported.
      const sub = await request.get(new URL(url).pathname);
      expect(sub.status()).toBe(200);
      expect(sub.headers()['subscription-userinfo']).toMatch(/^upload=0; download=0; total=0; expire=\d+$/);
      const links = Buffer.from(await sub.text(), 'base64')
        .toString('utf8')
        .split('\n');
      const vless = links.find((l) => l.startsWith('vless://') && l.includes(`@${host}:443`));
      expect(vless, links.join('\n')).toBeTruthy();
      const berlin = page.getByTestId('stealth-location').filter({ hasText: 'Germany, Berlin' });
      await expect(berlin.getByTestId('stealth-link-de-ber-vless')).toHaveValue(vless!);
      await expect(berlin.getByTestId('stealth-link-de-ber-trojan')).toHaveValue(/^trojan:\/\//);
      await berlin.getByText('Show QR code').first().click();
      await expect(berlin.getByRole('img', { name: /QR code of Warren VPN · Germany, Berlin · VLESS/ })).toBeVisible();

      await axe(page, 'paid');
      await snap(page, info, 'stealth-paid');
      // Dark: the system's setting (no stored choice), as the a11y suite does.
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.reload();
      await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
      await expect(page.getByTestId('stealth-subscription-qr')).toBeVisible();
      await axe(page, 'paid dark');
      await snap(page, info, 'stealth-paid-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await page.reload();
      await expect(page.getByTestId('stealth-subscription-url')).toHaveValue(url);

      // Reset: a new URL at once, the old one is gone.
      await page.getByTestId('stealth-reset').click();
      await page.getByTestId('confirm-stealth-reset').click();
      await expect(page.getByText('New link ready. Add it to your apps again.')).toBeVisible();
      await expect(page.getByTestId('stealth-subscription-url')).not.toHaveValue(url);
      expect((await request.get(new URL(url).pathname)).status()).toBe(404);
      const fresh = await page.getByTestId('stealth-subscription-url').inputValue();
      expect((await request.get(new URL(fresh).pathname)).status()).toBe(200);
    },
  );
});
