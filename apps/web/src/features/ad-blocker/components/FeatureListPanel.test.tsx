import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { FeatureListPanel } from './FeatureListPanel';

// The API is mocked at the HTTP boundary (fetch); the api client, React Query, the snackbar and the panel are real.
const adBlocker = { id: 1, name: 'Ad Blocker', isEnabled: false, premium: true };
const features = { status: 200, body: { data: { items: [adBlocker] } } };

afterEach(() => vi.unstubAllGlobals());

describe('feature list: only "your plan does not include this" offers an upgrade', () => {
  it('a 403 on the switch opens the upgrade dialog and the switch goes back', async () => {
    stubApi({
      'GET setup/features/get': features,
      'POST setup/features/state': { status: 403, body: { message: 'This feature needs a premium plan.' } },
    });
    await renderRoute(<FeatureListPanel />, '/dashboard');
    await userEvent.click(await screen.findByRole('switch', { name: 'Ad Blocker' }));
    expect(await screen.findByRole('dialog', { name: 'Upgrade to use the Ad Blocker' })).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Ad Blocker' })).not.toBeChecked();
  });

  it('a server error (500) says the change failed, and no upgrade dialog opens', async () => {
    const api = stubApi({
      'GET setup/features/get': features,
      'POST setup/features/state': { status: 500, body: { message: 'Internal error' } },
    });
    await renderRoute(<FeatureListPanel />, '/dashboard');
    await userEvent.click(await screen.findByRole('switch', { name: 'Ad Blocker' }));
    await waitFor(() => expect(api.count('POST setup/features/state')).toBe(1));
    expect(
      await screen.findByText('Ad Blocker could not be changed: the server did not answer. Please try again.'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Ad Blocker' })).not.toBeChecked();
  });

  it('a failed list is an error with a retry, not the fallback Ad Blocker row', async () => {
    stubApi({ 'GET setup/features/get': { status: 503, body: { message: 'Unavailable' } } });
    await renderRoute(<FeatureListPanel />, '/dashboard');
    expect(await screen.findByTestId('error-state')).toHaveTextContent('The VPN features could not be loaded.');
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
  });
});
