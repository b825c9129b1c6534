import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, within } from '@testing-library/react';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { testUser } from '../../../test/fixtures';
import { session } from '../../../lib/session';
import { SetupPage } from './SetupPage';
import { DownloadsPage } from './DownloadsPage';

// The API is mocked at the HTTP boundary (fetch); the api client, React Query and the pages are real.
const systems = [
  { id: 1, platform: 'windows', name: 'Windows', className: 'download-app--windows' },
  { id: 2, platform: 'mac', name: 'macOS', className: 'download-app--mac' },
  { id: 3, platform: 'ios', name: 'iOS', className: 'download-app--ios' },
  { id: 7, platform: 'android', name: 'Android', className: 'download-app--android' },
  { id: 8, platform: 'android-tv', name: 'Android TV', className: 'download-app--android-tv' },
  { id: 4, platform: 'linux', name: 'Linux', className: 'download-app--linux' },
];
const ok = (body: unknown) => ({ status: 200, body: { data: body } });
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

beforeEach(() => vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(IPHONE));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('setup guide: the official clients of the visitor’s system', () => {
  it('asks GET dashboard/operationSystems and leads with the iPhone’s WireGuard App Store listing and its steps', async () => {
    act(() => session.setUser(testUser({ isWgSectionAvailable: true })));
    const api = stubApi({
      'GET dashboard/operationSystems': ok({ items: systems }),
      'GET setup/downloads/get': ok({ items: [] }),
    });
    await renderRoute(<SetupPage />, '/setup');
    const guide = await screen.findByTestId('setup-guide');
    expect(within(guide).getByRole('heading', { level: 3 })).toHaveTextContent('iOS');
    const wg = within(guide).getByTestId('client-wgIos');
    expect(within(wg).getByRole('link', { name: 'Get WireGuard on the App Store' })).toHaveAttribute(
      'href',
      'https://apps.apple.com/us/app/wireguard/id1441195209',
    );
    expect(within(wg).getAllByRole('listitem')).toHaveLength(3);
    expect(within(wg).getByRole('link', { name: 'Get a WireGuard config' })).toHaveAttribute('href', '/setup/wg');
    expect(within(guide).getByTestId('client-openvpnConnect')).toBeInTheDocument();
    expect(screen.getAllByTestId(/^os-/)).toHaveLength(6);
    expect(screen.queryByTestId('brand-apps')).not.toBeInTheDocument();
    expect(api.count('GET dashboard/operationSystems')).toBe(1);
  });

  it('without WireGuard on the plan OpenVPN leads and the WireGuard client says so', async () => {
    act(() => session.setUser(testUser({ isWgSectionAvailable: false })));
    stubApi({ 'GET dashboard/operationSystems': ok({ items: systems }), 'GET setup/downloads/get': ok({ items: [] }) });
    await renderRoute(<SetupPage />, '/setup');
    const guide = await screen.findByTestId('setup-guide');
    const cards = within(guide).getAllByTestId(/^client-/);
    expect(cards.map((c) => c.dataset.testid)).toEqual(['client-openvpnConnect', 'client-wgIos']);
    expect(within(cards[1]!).getByText('WireGuard is not part of your plan.')).toBeInTheDocument();
  });

  it('a failed list is an error with a retry', async () => {
    const api = stubApi({
      'GET dashboard/operationSystems': { status: 502, body: { message: 'Bad gateway' } },
      'GET setup/downloads/get': ok({ items: [] }),
    });
    await renderRoute(<SetupPage />, '/setup');
    expect(await screen.findByTestId('error-state')).toBeInTheDocument();
    screen.getByRole('button', { name: 'Try again' }).click();
    await vi.waitFor(() => expect(api.count('GET dashboard/operationSystems')).toBe(2));
  });
});

describe('downloads page', () => {
  it('every system with its official clients; a brand’s own apps from the catalogue come first', async () => {
    const app = {
      id: 3,
      platform: 'ios',
      name: 'iOS',
      className: 'download-app--ios',
      version: '1.0',
      size: 0,
      sha256: '',
      url: 'https://apps.apple.com/app/id123',
      kind: 'store',
      minOs: '',
      releasedAt: '',
    };
    stubApi({
      'GET dashboard/operationSystems': ok({ items: systems }),
      'GET setup/downloads/get': ok({ items: [app] }),
    });
    await renderRoute(<DownloadsPage />, '/setup/downloads');
    expect(await screen.findByTestId('os-4')).toBeInTheDocument();
    expect(screen.getAllByTestId(/^os-/).map((e) => e.dataset.testid)).toEqual([
      'os-3',
      'os-1',
      'os-2',
      'os-7',
      'os-8',
      'os-4',
    ]);
    expect(within(screen.getByTestId('os-2')).getByRole('link', { name: 'Get Tunnelblick' })).toHaveAttribute(
      'href',
      'https://tunnelblick.net/',
    );
    expect(
      within(screen.getByTestId('os-1')).getByRole('link', { name: 'Download the WireGuard installer' }),
    ).toHaveAttribute('href', 'https://download.wireguard.com/windows-client/wireguard-installer.exe');
    expect(within(await screen.findByTestId('brand-apps')).getByTestId('app-3')).toBeInTheDocument();
    // Linux: wg-quick needs resolvconf for the config's DNS line; the card says so and how to do without (issue 23).
    const linuxWg = within(screen.getByTestId('os-4')).getByTestId('client-wgLinux');
    expect(within(linuxWg).getByTestId('client-note')).toHaveTextContent(
      /resolvconf: command not found.*openresolv.*delete the DNS line/,
    );
    // Other clients have no such note.
    expect(within(screen.getByTestId('os-1')).queryByTestId('client-note')).toBeNull();
  });
});
