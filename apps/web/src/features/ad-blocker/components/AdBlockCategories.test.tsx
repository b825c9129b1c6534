import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { FeatureListPanel } from './FeatureListPanel';

// The API is mocked at the HTTP boundary (fetch); the api client, React Query and the panel are real.
const features = {
  status: 200,
  body: { data: { items: [{ id: 1, name: 'Ad Blocker', isEnabled: true, premium: true }] } },
};
const settings = (categories: string[]) => ({ status: 200, body: { data: { enabled: true, categories } } });

afterEach(() => vi.unstubAllGlobals());

describe("the ad blocker's categories (issue 23)", () => {
  it('shows the chosen categories and saves a tick as the whole sorted set', async () => {
    const bodies: unknown[] = [];
    const api = stubApi({
      'GET setup/features/get': features,
      'GET setup/features/categories': settings(['ads', 'trackers']),
      'POST setup/features/categories': async (request) => {
        bodies.push(await request.json());
        return settings(['ads', 'trackers', 'gambling']);
      },
    });
    await renderRoute(<FeatureListPanel />, '/dashboard');
    const group = await screen.findByRole('group', { name: 'What it blocks' });
    expect(group).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: /^Ads/ })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: /^Trackers/ })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: /^Gambling/ })).not.toBeChecked();
    await userEvent.click(screen.getByRole('checkbox', { name: /^Gambling/ }));
    await waitFor(() => expect(api.count('POST setup/features/categories')).toBe(1));
    expect(bodies).toEqual([{ categories: ['ads', 'trackers', 'gambling'] }]);
    expect(await screen.findByText('Ad blocker categories saved.')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: /^Gambling/ })).toBeChecked();
  });

  it('keeps the last category rather than sending an empty set', async () => {
    const api = stubApi({
      'GET setup/features/get': features,
      'GET setup/features/categories': settings(['malware']),
    });
    await renderRoute(<FeatureListPanel />, '/dashboard');
    await userEvent.click(await screen.findByRole('checkbox', { name: /^Malware/ }));
    expect(await screen.findByText('Keep at least one category, or switch the ad blocker off.')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: /^Malware/ })).toBeChecked();
    expect(api.count('POST setup/features/categories')).toBe(0);
  });

  it("a free user's tick opens the upgrade dialog and the box goes back", async () => {
    stubApi({
      'GET setup/features/get': features,
      'GET setup/features/categories': settings(['ads', 'trackers']),
      'POST setup/features/categories': { status: 403, body: { message: 'The ad blocker needs a premium plan.' } },
    });
    await renderRoute(<FeatureListPanel />, '/dashboard');
    await userEvent.click(await screen.findByRole('checkbox', { name: /^Adult/ }));
    expect(await screen.findByRole('dialog', { name: 'Upgrade to use the Ad Blocker' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: /^Adult/ })).not.toBeChecked();
  });
});
