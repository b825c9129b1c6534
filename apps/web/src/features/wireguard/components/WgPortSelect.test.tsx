import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { WgDevice, WgLocation, WgOverview } from '@warren/contract';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { mediaQueryList } from '../../../test/media';
import { configFor, takesPort } from '../lib/configs';
import { WireGuardPage } from '../routes/WireGuardPage';

// The API is mocked at the HTTP boundary (fetch); the api client, React Query and the page are real.
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const KEY = 'x'.repeat(43) + '=';
const location = (slug: string, city: string, ports: number[]): WgLocation => ({
  id: slug.length,
  slug,
  countryCode: slug.slice(0, 2).toUpperCase(),
  country: city,
  city,
  premium: false,
  available: true,
  endpoint: `${slug}.nodes.test:${ports[0]}`,
  publicKey: KEY,
  ports,
});
const device: WgDevice = {
  id: 7,
  name: 'Laptop',
  publicKey: KEY,
  ipv4: '10.64.0.7',
  ipv6: 'fd77::7',
  createdAt: '2026-11-24T00:00:00.000Z',
  lastHandshakeAt: null,
  rxBytes: 0,
  txBytes: 0,
};
const overviewOf = (devices: WgDevice[]): WgOverview => ({
  access: 'free',
  devices,
  limit: 1,
  dns: ['10.64.0.1'],
  allowedIps: ['0.0.0.0/0', '::/0'],
  locations: [
    location('de-fra', 'Frankfurt', [51820, 53, 443]),
    location('nl-ams', 'Amsterdam', [51820, 443]),
    location('se-sto', 'Stockholm', [51820]),
  ],
  recommended: 'de-fra',
});

describe('the file on another port (issue 23)', () => {
  it('names the chosen port in the Endpoint; without a choice the file is as before', () => {
    const o = overviewOf([]);
    const fra = o.locations[0]!;
    expect(configFor(device, KEY, fra, o).text).toContain('Endpoint = de-fra.nodes.test:51820\n');
    expect(configFor(device, KEY, fra, o, { port: 443 }).text).toContain('Endpoint = de-fra.nodes.test:443\n');
    // A port the location does not take is never written: its own port stays.
    const sto = o.locations[2]!;
    expect(configFor(device, KEY, sto, o, { port: 443 }).text).toContain('Endpoint = se-sto.nodes.test:51820\n');
    expect(takesPort(sto, 443)).toBe(false);
    expect(takesPort(sto, null)).toBe(true);
    // An older API (no ports) offers only the endpoint's own.
    expect(takesPort({}, 53)).toBe(false);
  });

  async function addDevice() {
    vi.spyOn(window, 'matchMedia').mockImplementation((query: string) => mediaQueryList(query, false));
    let added = false;
    stubApi({
      'GET setup/wg/get': () => ({ status: 200, body: { data: overviewOf(added ? [device] : []) } }),
      'POST setup/wg/devices/add': () => ((added = true), { status: 201, body: { data: { device } } }),
    });
    await renderRoute(<WireGuardPage />, '/setup/wg');
    await userEvent.click(await screen.findByTestId('add-device'));
    const fresh = await screen.findByTestId('fresh-config');
    await userEvent.click(screen.getByRole('button', { name: 'Show configuration' }));
    return fresh;
  }
  const text = () => screen.getByTestId('config-text').textContent!;
  const portInput = () => screen.getAllByLabelText('Port').find((el) => el.tagName === 'INPUT')!;

  it('offers the location’s ports beside IPv4 only, by keyboard; a location without that port falls back to its own', async () => {
    const fresh = await addDevice();
    expect(portInput()).toHaveValue('51820 (default)');
    expect(text()).toContain('Endpoint = de-fra.nodes.test:51820');
    // Keyboard only: focus the select, open it, move to the last option, take it.
    portInput().focus();
    await userEvent.keyboard('{ArrowDown}');
    const listbox = await screen.findByRole('listbox');
    expect(
      within(listbox)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['51820 (default)', '53 (as DNS)', '443 (as HTTPS)']);
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    expect(portInput()).toHaveValue('443 (as HTTPS)');
    expect(text()).toContain('Endpoint = de-fra.nodes.test:443\n');
    // The zip says it holds only the locations on that port.
    expect(within(fresh).getByTestId('download-zip')).toHaveTextContent('2 locations on port 443 (.zip)');

    // Stockholm takes only its own port: no choice shown, its file on its own port.
    const loc = screen.getAllByLabelText('Location').find((el) => el.tagName === 'INPUT')!;
    await userEvent.click(loc);
    await userEvent.click(await screen.findByRole('option', { name: /Stockholm/ }));
    expect(screen.queryAllByLabelText('Port')).toHaveLength(0);
    expect(text()).toContain('Endpoint = se-sto.nodes.test:51820\n');
    expect(within(fresh).getByTestId('download-zip')).toHaveTextContent('All locations (.zip)');
    // Back to Frankfurt: the choice is kept.
    await userEvent.click(loc);
    await userEvent.click(await screen.findByRole('option', { name: /Frankfurt/ }));
    expect(text()).toContain('Endpoint = de-fra.nodes.test:443\n');
  }, 30_000);
});
