// Passkeys in a real browser (issue 23): Chromium's own WebAuthn stack with a virtual authenticator
// from the DevTools protocol (a platform authenticator with resident keys and user verification),
// against the compiled server: add a passkey in Profile, sign out, sign in with it (no email, no
// password), remove it, and the removed passkey no longer signs in.
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Secret, TOTP } from 'otpauth';
import { expect, test, type CDPSession, type Page } from '@playwright/test';
import { PASSWORD, SignUpPage, lightAndDarkShots, linkFromMail, logOut, uniqueEmail } from './helpers';

const SHOTS = process.env.PASSKEYS_SHOTS_DIR ?? path.join(os.tmpdir(), 'warren-passkeys-shots');
// WebAuthn refuses an IP address as the relying party's id: this spec uses http://localhost (a
// secure context, and a host of the brand registry), not the suite's 127.0.0.1.
const ORIGIN = `http://localhost:${Number(process.env.E2E_PORT ?? 8181)}`;

async function virtualAuthenticator(page: Page, cdp?: CDPSession) {
  cdp ??= await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    cdp,
    authenticatorId,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    remove: () => cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId }),
  };
}

test('a customer adds a passkey in Profile, signs in with it alone, and removes it @phone', async ({
  page,
  request,
}, info) => {
  const email = uniqueEmail('passkey', info);
  await page.goto(`${ORIGIN}/sign-up`);
  const signUp = new SignUpPage(page);
  await signUp.fill('Ada Lovelace', email, PASSWORD);
  await signUp.submit();
  await expect(page).toHaveURL(/\/plans$/);
  // Opened while signed in, the verification link verifies and goes on to the dashboard.
  await page.goto(`${ORIGIN}${await linkFromMail(request, email, '/sign-in')}`);
  await expect(page).toHaveURL(/\/dashboard$/);
  const authenticator = await virtualAuthenticator(page);

  await page.goto(`${ORIGIN}/profile`);
  const card = page.getByTestId('passkeys-card');
  await expect(card.getByTestId('no-passkeys')).toBeVisible();
  await card.getByTestId('add-passkey').click();
  const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
  // A wrong password: the server's message under the field, and nothing made on the authenticator.
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Test laptop');
  await dialog.getByLabel('Current password').fill('not the password');
  await dialog.getByRole('button', { name: 'Create passkey' }).click();
  await expect(dialog.getByText('The password is incorrect.')).toBeVisible();
  expect(await authenticator.credentials()).toHaveLength(0);
  await dialog.getByLabel('Current password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Create passkey' }).click();
  await expect(dialog).toBeHidden();
  await expect(card.getByTestId('passkey-name')).toHaveText('Test laptop');
  await expect(card.getByText(/never used/)).toBeVisible();
  // The browser's authenticator holds a discoverable credential for this site's RP ID.
  const held = await authenticator.credentials();
  expect(held).toHaveLength(1);
  expect(held[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
  await card.scrollIntoViewIfNeeded();
  await lightAndDarkShots(page, info, 'profile-passkeys', SHOTS);

  await logOut(page);
  // The sign-in page offers passkeys in the email field's autofill (conditional UI), which Chromium's
  // virtual authenticator answers at once: the screens are taken with the authenticator unplugged,
  // then it comes back holding the same passkey (its private key moved over by the DevTools protocol).
  const [saved] = held;
  await authenticator.remove();
  await page.goto(`${ORIGIN}/sign-in`);
  await expect(page.getByTestId('passkey-sign-in')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Email' })).toHaveAttribute('autocomplete', 'username webauthn');
  await lightAndDarkShots(page, info, 'sign-in', SHOTS);
  const again = await virtualAuthenticator(page, authenticator.cdp);
  await again.cdp.send('WebAuthn.addCredential', { authenticatorId: again.authenticatorId, credential: saved! });
  await page.getByTestId('passkey-sign-in').click();
  await expect(page).toHaveURL(/\/(plans|dashboard)$/);

  await page.goto(`${ORIGIN}/profile`);
  await expect(card.getByText(/last used/)).toBeVisible();
  await card.getByRole('button', { name: 'Rename: Test laptop' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename passkey' });
  await rename.getByRole('textbox', { name: 'Name' }).fill('Work laptop');
  await rename.getByRole('button', { name: 'Save changes' }).click();
  await expect(card.getByTestId('passkey-name')).toHaveText('Work laptop');

  await card.getByRole('button', { name: 'Remove: Work laptop' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove this passkey?' });
  await confirm.getByLabel('Current password').fill(PASSWORD);
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(card.getByTestId('no-passkeys')).toBeVisible();

  // The authenticator still holds the key; the account no longer knows it.
  await logOut(page);
  await page.goto(`${ORIGIN}/sign-in`);
  await page.getByTestId('passkey-sign-in').click();
  await expect(page.getByText('This passkey is not registered for this account.').first()).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test('at the code step after the password, "Use a passkey instead" signs in with a passkey of the account @phone', async ({
  page,
  context,
  request,
}, info) => {
  const email = uniqueEmail('passkey-2fa', info);
  await page.goto(`${ORIGIN}/sign-up`);
  const signUp = new SignUpPage(page);
  await signUp.fill('Grace Hopper', email, PASSWORD);
  await signUp.submit();
  await expect(page).toHaveURL(/\/plans$/);
  await page.goto(`${ORIGIN}${await linkFromMail(request, email, '/sign-in')}`);
  await expect(page).toHaveURL(/\/dashboard$/);

  // A passkey added in Profile.
  const authenticator = await virtualAuthenticator(page);
  await page.goto(`${ORIGIN}/profile`);
  const card = page.getByTestId('passkeys-card');
  await card.getByTestId('add-passkey').click();
  const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Phone');
  await dialog.getByLabel('Current password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Create passkey' }).click();
  await expect(card.getByTestId('passkey-name')).toHaveText('Phone');
  // Two-factor sign-in on, through the API with this browser's session.
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const xsrf = (await context.cookies(ORIGIN)).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
  const headers = { authorization: `Bearer ${token}`, 'x-xsrf-token': xsrf };
  const setup = await page.request.post(`${ORIGIN}/api/profile/2fa/setup`, { headers, data: {} });
  expect(setup.status()).toBe(200);
  const totp = new TOTP({
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32((await setup.json()).data.secret as string),
  });
  const enable = await page.request.post(`${ORIGIN}/api/profile/2fa/enable`, {
    headers,
    data: { code: totp.generate({ timestamp: Date.now() - 30_000 }) },
  });
  expect(enable.status()).toBe(200);
  await logOut(page);

  // Unplugged while the sign-in page loads (its conditional UI would sign in with the passkey at once).
  const [saved] = await authenticator.credentials();
  await authenticator.remove();
  await page.goto(`${ORIGIN}/sign-in`);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const instead = page.getByTestId('otp-passkey');
  await expect(instead).toHaveText('Use a passkey instead');
  await lightAndDarkShots(page, info, 'sign-in-code-step', SHOTS);
  const again = await virtualAuthenticator(page, authenticator.cdp);
  await again.cdp.send('WebAuthn.addCredential', { authenticatorId: again.authenticatorId, credential: saved! });
  // The second step: the password sign-in again (POST users/login) with the passkey's assertion in
  // place of a code; never the passkey-alone sign-in (users/passkey/login) of the page's autofill.
  const paths: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/api/users/')) paths.push(new URL(r.url()).pathname);
  });
  await instead.click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(paths).toEqual(['/api/users/passkey/options', '/api/users/login']);
  // The passkey was the one used: Profile says when.
  await page.goto(`${ORIGIN}/profile`);
  await expect(card.getByText(/last used/)).toBeVisible();
});

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('a staff member registers a passkey in the console and signs in with it instead of a code @phone', async ({
  page,
  context,
}, info) => {
  // An account with two-factor on (through the API), then the role from the CLI (the running server's admin socket).
  await page.goto(`${ORIGIN}/sign-up`);
  const xsrf = async () => (await context.cookies(ORIGIN)).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
  const email = uniqueEmail('staff-passkey', info);
  const signUp = await page.request.post(`${ORIGIN}/api/users/register`, {
    headers: { 'x-xsrf-token': await xsrf() },
    data: { name: 'Staff Member', email, password: PASSWORD, password_confirmation: PASSWORD },
  });
  expect(signUp.status()).toBe(201);
  const headers = { authorization: `Bearer ${(await signUp.json()).data.token}`, 'x-xsrf-token': await xsrf() };
  const secret = (await (await page.request.post(`${ORIGIN}/api/profile/2fa/setup`, { headers, data: {} })).json()).data
    .secret as string;
  const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
  const enable = await page.request.post(`${ORIGIN}/api/profile/2fa/enable`, {
    headers,
    data: { code: totp.generate({ timestamp: Date.now() - 30_000 }) },
  });
  expect(enable.status()).toBe(200);
  await promisify(execFile)(
    process.execPath,
    [path.join(repo, 'apps/api/dist/cli.js'), 'staff', 'grant', email, '--role', 'support'],
    {
      env: { ...process.env, DATA_DIR: process.env.WARREN_E2E_DATA_DIR },
      cwd: repo,
    },
  );

  await page.goto(`${ORIGIN}/staff/sign-in`);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('textbox', { name: 'Authenticator or recovery code' }).fill(totp.generate());
  await page.getByRole('button', { name: 'Sign in to the console' }).click();
  await expect(page).toHaveURL(/\/staff\/customers$/);

  const authenticator = await virtualAuthenticator(page);
  await page.getByRole('link', { name: 'Passkeys' }).click();
  await page.getByTestId('staff-add-passkey').click();
  const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Console key');
  await dialog.getByLabel('Your password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Create passkey' }).click();
  await expect(page.getByTestId('staff-passkeys')).toContainText('Console key');
  expect(await authenticator.credentials()).toHaveLength(1);
  await lightAndDarkShots(page, info, 'staff-passkeys', SHOTS);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/staff\/sign-in/);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByTestId('staff-passkey').click();
  await expect(page).toHaveURL(/\/staff\/customers$/);
  await expect(page.getByTestId('staff-me')).toContainText(email);
});
