import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { WgDevice, WgLocation, WgOverview } from '@warren/contract';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { mediaQueryList } from '../../../test/media';
import { snackbar } from '../../../lib/notify';
import { WireGuardPage, initialLocation } from './WireGuardPage';

vi.mock('../../../lib/notify', () => ({ snackbar: vi.fn() }));

// The API is mocked at the HTTP boundary (fetch); the api client, React Query and the page are real.
afterEach(() => vi.unstubAllGlobals());

describe('WireGuard page states', () => {
  it('a failed overview is an error with a retry, not a blank page', async () => {
    const api = stubApi({ 'GET setup/wg/get': { status: 502, body: { message: 'Bad gateway' } } });
    await renderRoute(<WireGuardPage />, '/setup/wg');
    expect(await screen.findByTestId('error-state')).toHaveTextContent('Your WireGuard devices could not be loaded.');
    screen.getByRole('button', { name: 'Try again' }).click();
    await vi.waitFor(() => expect(api.count('GET setup/wg/get')).toBe(2));
  });

  it('says it is loading while the overview is on its way', async () => {
    stubApi({ 'GET setup/wg/get': () => new Promise(() => {}) });
    await renderRoute(<WireGuardPage />, '/setup/wg');
    expect(await screen.findByRole('status')).toHaveTextContent('Loading your WireGuard devices…');
  });

  it('a plan without WireGuard (403) says it is unavailable, not an error', async () => {
    stubApi({ 'GET setup/wg/get': { status: 403, body: { message: 'Forbidden' } } });
    await renderRoute(<WireGuardPage />, '/setup/wg');
    expect(await screen.findByText('WireGuard is not available for this account.')).toBeInTheDocument();
    expect(screen.queryByTestId('error-state')).not.toBeInTheDocument();
  });
});

const KEY = 'x'.repeat(43) + '=';
const location = (slug: string, city: string, available = true): WgLocation => ({
  id: slug.length,
  slug,
  countryCode: slug.slice(0, 2).toUpperCase(),
  country: city,
  city,
  premium: !available,
  available,
  endpoint: available ? `${slug}.nodes.test:51820` : null,
  publicKey: available ? KEY : null,
});
let overviewDns = ['10.64.0.1'];
const overviewOf = (devices: WgDevice[], recommended: string | null): WgOverview => ({
  access: 'free',
  devices,
  limit: 1,
  dns: overviewDns,
  allowedIps: ['0.0.0.0/0', '::/0'],
  locations: [
    location('au-syd', 'Sydney'),
    location('jp-tyo', 'Tokyo', false),
    location('de-fra', 'Frankfurt'),
    location('nl-ams', 'Amsterdam'),
  ],
  recommended,
});

describe('the location a new device starts on', () => {
  it('is the recommended one when the plan reaches it, else the first available', () => {
    expect(initialLocation(overviewOf([], 'de-fra'))).toBe('de-fra');
    expect(initialLocation(overviewOf([], null))).toBe('au-syd');
    // A stale recommendation the plan does not reach is not offered.
    expect(initialLocation(overviewOf([], 'jp-tyo'))).toBe('au-syd');
  });
});

describe('a fresh device on a phone and on a wide screen', () => {
  const device: WgDevice = {
    id: 7,
    name: 'Phone',
    publicKey: KEY,
    ipv4: '10.64.0.7',
    ipv6: 'fd77::7',
    createdAt: '2026-11-24T00:00:00.000Z',
    lastHandshakeAt: null,
    rxBytes: 0,
    txBytes: 0,
  };

  /** Adds a device with the media queries answering as a screen of this width would. */
  async function addDevice(width: number) {
    vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => {
      const max = /max-width:\s*([\d.]+)em/.exec(query);
      return mediaQueryList(query, max ? width <= Number(max[1]) * 16 : false);
    });
    let added = false;
    stubApi({
      'GET setup/wg/get': () => ({ status: 200, body: { data: overviewOf(added ? [device] : [], 'de-fra') } }),
      'POST setup/wg/devices/add': () => ((added = true), { status: 201, body: { data: { device } } }),
    });
    await renderRoute(<WireGuardPage />, '/setup/wg');
    await userEvent.click(await screen.findByTestId('add-device'));
    return screen.findByTestId('fresh-config');
  }
  afterEach(() => vi.restoreAllMocks());

  it('starts on the recommended location and marks it', async () => {
    const fresh = await addDevice(1280);
    expect(screen.getAllByLabelText('Location').find((el) => el.tagName === 'INPUT')).toHaveValue(
      'Frankfurt, Frankfurt (DE) · Recommended',
    );
    expect(fresh.querySelector('[data-testid="recommended"]')).toHaveTextContent('Recommended');
  });

  it('on a phone leads with the download for the WireGuard app, the QR code second', async () => {
    const fresh = await addDevice(390);
    expect(fresh).toHaveAttribute('data-layout', 'phone');
    const download = screen.getByTestId('download-conf');
    expect(download).toHaveTextContent('Download config for the WireGuard app');
    const qr = screen.getByTestId('config-qr-block');
    expect(download.compareDocumentPosition(qr) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(qr).toHaveTextContent('Setting up another device? Scan this code with its WireGuard app.');
  });

  it('on a wide screen keeps the QR code beside the controls, for the phone in your hand', async () => {
    const fresh = await addDevice(1280);
    expect(fresh).toHaveAttribute('data-layout', 'wide');
    expect(screen.getByTestId('download-conf')).toHaveTextContent('Download .conf');
    expect(screen.getByTestId('config-qr-block')).toHaveTextContent('Scan with the WireGuard mobile app');
  });

  it('IPv4 only (issue 23): the file loses its IPv6 address and resolver but keeps ::/0, so IPv6 stays blocked in the tunnel', async () => {
    overviewDns = ['10.64.0.1', 'fd77::1'];
    await addDevice(1280);
    await userEvent.click(screen.getByRole('button', { name: 'Show configuration' }));
    const text = () => screen.getByTestId('config-text').textContent!;
    expect(text()).toContain('Address = 10.64.0.7/32, fd77::7/128');
    expect(text()).toContain('DNS = 10.64.0.1, fd77::1');
    await userEvent.click(screen.getByRole('switch', { name: /^IPv4 only/ }));
    expect(text()).toContain('Address = 10.64.0.7/32\n');
    expect(text()).toContain('DNS = 10.64.0.1\n');
    expect(text()).toContain('AllowedIPs = 0.0.0.0/0, ::/0');
    expect(text()).not.toContain('fd77');
    overviewDns = ['10.64.0.1'];
  });
});

describe('a location with no room (issue 22)', () => {
  it("sends the location the device starts on; a full one is said in the customer's words, naming the place", async () => {
    let sent: unknown;
    vi.mocked(snackbar).mockClear();
    stubApi({
      'GET setup/wg/get': { status: 200, body: { data: overviewOf([], 'de-fra') } },
      'POST setup/wg/devices/add': async (request) => {
        sent = await request.json();
        return {
          status: 409,
          body: {
            message: 'Every Frankfurt, Germany server is full right now. Please pick another location.',
            errors: { location: ['Every Frankfurt, Germany server is full right now.'] },
          },
        };
      },
    });
    await renderRoute(<WireGuardPage />, '/setup/wg');
    await userEvent.click(await screen.findByTestId('add-device'));
    await vi.waitFor(() =>
      expect(snackbar).toHaveBeenCalledWith(
        'Every Frankfurt, Frankfurt server is full right now. Choose another location.',
      ),
    );
    expect(snackbar).toHaveBeenCalledTimes(1); // the client's own English one stays silent
    expect(sent).toMatchObject({ location: 'de-fra' });
    expect(screen.queryByTestId('fresh-config')).not.toBeInTheDocument();
  });

  it('lists a location whose WireGuard servers are full with why', async () => {
    const full: WgLocation = { ...location('fr-par', 'Paris', false), premium: false, unavailable: 'full' };
    stubApi({
      'GET setup/wg/get': {
        status: 200,
        body: { data: { ...overviewOf([], 'de-fra'), locations: [...overviewOf([], 'de-fra').locations, full] } },
      },
    });
    await renderRoute(<WireGuardPage />, '/setup/wg');
    expect(await screen.findByTestId('wg-unavailable-locations')).toHaveTextContent(
      'Paris, Paris: Its WireGuard servers are full right now: choose another location (OpenVPN still works there).',
    );
  });
});
