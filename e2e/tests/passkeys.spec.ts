// Passkeys in a real browser (issue 23): Chromium's own WebAuthn stack with a virtual authenticator
// from the DevTools protocol (a platform authenticator with resident keys and user verification),
// against the compiled server: add a passkey in Profile, sign out, sign in with it (no email, no
// password), remove it, and the removed passkey no longer signs in.
import os from 'node:os';
import path from 'node:path';
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
