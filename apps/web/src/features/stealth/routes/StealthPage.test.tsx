import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, within } from '@testing-library/react';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { testUser } from '../../../test/fixtures';
import { session } from '../../../lib/session';
import { StealthPage } from './StealthPage';

const SUB = 'https://vpn.example.com/api/sub/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';
const links = [
  {
    location: 'de-frankfurt',
    name: 'Warren VPN · Germany, Frankfurt',
    protocol: 'vless',
    url: 'vless://11111111-2222-4333-8444-555555555555@de.example.net:443?encryption=none&security=tls&sni=de.example.net&type=ws&host=de.example.net&path=%2Fws#x',
  },
  {
    location: 'de-frankfurt',
    name: 'Warren VPN · Germany, Frankfurt',
    protocol: 'trojan',
    url: 'trojan://pw@de.example.net:443?security=tls&sni=de.example.net&type=tcp#x',
  },
];
/** A paying customer: the page asks the API only for a paid plan. */
const payingUser = () =>
  testUser({
    subscriptionData: {
      tariffName: '1 Year',
      tariffKey: '1-year',
      expiresAt: new Date(Date.now() + 86_400_000 * 300).toISOString(),
    },
  });
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36';

beforeEach(() => vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(ANDROID));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('stealth page', () => {
  it('shows the subscription URL, the visitor\'s apps first with "Add to app", and each location\'s links', async () => {
    act(() => session.setUser(payingUser()));
    stubApi({ 'GET setup/stealth/get': { status: 200, body: { data: { subscriptionUrl: SUB, links } } } });
    await renderRoute(<StealthPage />, '/setup/stealth');
    const sub = await screen.findByTestId('stealth-subscription');
    expect(within(sub).getByDisplayValue(SUB)).toBeInTheDocument();
    const platforms = screen.getAllByTestId(/^stealth-platform-/);
    expect(platforms[0]).toHaveAttribute('data-testid', 'stealth-platform-android');
    expect(within(platforms[0]!).getByText('Your device')).toBeInTheDocument();
    expect(screen.getByTestId('stealth-add-android-v2rayng')).toHaveAttribute(
      'href',
      `v2rayng://install-sub?url=${encodeURIComponent(SUB)}&name=Warren%20VPN`,
    );
    expect(within(platforms[0]!).getByRole('link', { name: 'Add to Hiddify (Android)' })).toHaveAttribute(
      'href',
      `hiddify://import/${SUB}#Warren%20VPN`,
    );
    expect(within(platforms[0]!).getByRole('link', { name: 'v2rayNG: Google Play' })).toHaveAttribute(
      'href',
      'https://play.google.com/store/apps/details?id=com.v2ray.ang',
    );
    const loc = screen.getByTestId('stealth-location');
    expect(within(loc).getByDisplayValue(links[0]!.url)).toBeInTheDocument();
    expect(within(loc).getByDisplayValue(links[1]!.url)).toBeInTheDocument();
    expect(screen.getByTestId('stealth-help')).toBeInTheDocument();
  });

  it('a free plan gets the upgrade prompt without asking the API (no 403 in the console)', async () => {
    act(() => session.setUser(testUser()));
    const api = stubApi({
      'GET setup/stealth/get': { status: 403, body: { message: 'This feature needs a premium plan.' } },
    });
    await renderRoute(<StealthPage />, '/setup/stealth');
    const card = await screen.findByTestId('stealth-upgrade');
    expect(within(card).getByRole('link', { name: /Upgrade/ })).toHaveAttribute('href', '/plans');
    expect(api.count('GET setup/stealth/get')).toBe(0);
  });

  it('a plan that lapsed since the user was read (the API answers 403) gets the upgrade prompt', async () => {
    act(() => session.setUser(payingUser()));
    stubApi({ 'GET setup/stealth/get': { status: 403, body: { message: 'This feature needs a premium plan.' } } });
    await renderRoute(<StealthPage />, '/setup/stealth');
    const card = await screen.findByTestId('stealth-upgrade');
    expect(within(card).getByRole('link', { name: /Upgrade/ })).toHaveAttribute('href', '/plans');
    expect(screen.queryByTestId('stealth-subscription')).not.toBeInTheDocument();
  });
});
