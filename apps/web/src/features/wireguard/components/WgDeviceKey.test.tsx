import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { isWgKey, type WgDevice } from '@warren/contract';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { snackbar } from '../../../lib/notify';
import { publicKeyOf } from '../lib/wg-keys';
import { WgDeviceKey } from './WgDeviceKey';

vi.mock('../../../lib/notify', () => ({ snackbar: vi.fn() }));

// The API is mocked at the HTTP boundary (fetch); the api client, React Query and the key pair are real.
afterEach(() => {
  vi.unstubAllGlobals();
  vi.mocked(snackbar).mockClear();
});

const KEY = 'kE7n3xZ1qvI1bH5mWq3k0m1s5q5e6dQn8mJ2wLr4T0A=';
const base: WgDevice = {
  id: 7,
  name: 'Laptop',
  publicKey: KEY,
  ipv4: '10.64.0.7',
  ipv6: 'fd77::7',
  createdAt: '2026-11-24T00:00:00.000Z',
  lastHandshakeAt: null,
  rxBytes: 0,
  txBytes: 0,
  keyLifetimeDays: null,
  keyExpiresAt: null,
};
const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();

describe('a device’s key (issue 23)', () => {
  it('a key that never expires says nothing; choosing 7 days sends the lifetime', async () => {
    let sent: unknown;
    stubApi({
      'POST setup/wg/devices/lifetime': async (request) => {
        sent = await request.json();
        return { status: 200, body: { data: { device: { ...base, keyLifetimeDays: 7, keyExpiresAt: inDays(7) } } } };
      },
    });
    await renderRoute(<WgDeviceKey device={base} onRotated={() => {}} />, '/setup/wg');
    expect(screen.queryByTestId('key-expires')).not.toBeInTheDocument();
    const select = screen.getAllByLabelText('Key lifetime').find((el) => el.tagName === 'INPUT')!;
    expect(select).toHaveValue('Never');
    await userEvent.click(select);
    await userEvent.click(await screen.findByRole('option', { name: '7 days' }));
    await vi.waitFor(() => expect(sent).toEqual({ id: 7, days: 7 }));
    await vi.waitFor(() => expect(snackbar).toHaveBeenCalledWith('Key lifetime saved.', { kind: 'success' }));
  });

  it('says how long a key has left', async () => {
    await renderRoute(
      <WgDeviceKey device={{ ...base, keyLifetimeDays: 7, keyExpiresAt: inDays(2.5) }} onRotated={() => {}} />,
      '/setup/wg',
    );
    expect(screen.getByTestId('key-expires')).toHaveTextContent('Key expires in 3 days');
    expect(screen.getByTestId('wg-device-key')).toHaveAttribute('data-state', 'ok');
  });

  it('an expired key says so, keeps its lifetime, and rotates at once with a new key pair made here', async () => {
    let sent: { id: number; previousKey: string; publicKey: string } | undefined;
    const onRotated = vi.fn();
    stubApi({
      'POST setup/wg/devices/rotate': async (request) => {
        sent = (await request.json()) as typeof sent;
        return {
          status: 200,
          body: {
            data: { device: { ...base, publicKey: sent!.publicKey, keyLifetimeDays: 1, keyExpiresAt: inDays(1) } },
          },
        };
      },
    });
    const expired = { ...base, keyLifetimeDays: 1, keyExpiresAt: inDays(-0.1) };
    await renderRoute(<WgDeviceKey device={expired} onRotated={onRotated} />, '/setup/wg');
    expect(screen.getByTestId('wg-key-expired')).toHaveTextContent(
      'Key expired: this device cannot connect until you rotate its key.',
    );
    expect(screen.getAllByLabelText('Key lifetime').find((el) => el.tagName === 'INPUT')).toBeDisabled();
    await userEvent.click(screen.getByTestId('rotate-key'));
    await vi.waitFor(() => expect(onRotated).toHaveBeenCalledTimes(1));
    expect(sent!.id).toBe(7);
    expect(sent!.previousKey).toBe(KEY);
    expect(isWgKey(sent!.publicKey)).toBe(true);
    const { device, privateKey } = onRotated.mock.calls[0]![0] as { device: WgDevice; privateKey: string };
    expect(device.publicKey).toBe(sent!.publicKey);
    expect(await publicKeyOf(privateKey)).toBe(sent!.publicKey);
  });

  it('a rotation another tab won (409) is said plainly', async () => {
    stubApi({
      'POST setup/wg/devices/rotate': {
        status: 409,
        body: { message: 'This device got a new key meanwhile.', errors: { previousKey: ['No longer the key.'] } },
      },
    });
    const onRotated = vi.fn();
    await renderRoute(
      <WgDeviceKey device={{ ...base, keyLifetimeDays: 1, keyExpiresAt: inDays(-1) }} onRotated={onRotated} />,
      '/setup/wg',
    );
    await userEvent.click(screen.getByTestId('rotate-key'));
    await vi.waitFor(() =>
      expect(snackbar).toHaveBeenCalledWith(
        'This device got a new key meanwhile (in another tab?). The list is up to date now: rotate again if you still need to.',
      ),
    );
    expect(snackbar).toHaveBeenCalledTimes(1);
    expect(onRotated).not.toHaveBeenCalled();
  });
});
