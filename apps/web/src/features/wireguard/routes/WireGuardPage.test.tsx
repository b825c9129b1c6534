import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { WireGuardPage } from './WireGuardPage';

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
