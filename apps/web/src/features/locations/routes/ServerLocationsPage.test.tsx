import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ServerListItem } from '@warren/contract';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { ServerLocationsPage } from './ServerLocationsPage';

// The API is mocked at the HTTP boundary (fetch); the api client, React Query and the page are real.
const sydney: ServerListItem = {
  id: 1,
  countryCode: 'AU',
  country: 'Australia',
  city: 'Sydney',
  latitude: -33.9,
  longitude: 151.2,
  premium: false,
  dashVisible: true,
  isBlur: false,
  load: 20,
  online: true,
};
const list = (items: ServerListItem[]) => ({ status: 200, body: { data: { serverList: items } } });

afterEach(() => vi.unstubAllGlobals());

describe('server locations: loading, error with retry, empty', () => {
  it('says it is loading while the list is on its way', async () => {
    let answer: (v: { status: number; body: unknown }) => void = () => {};
    stubApi({ 'GET setup/servers/get': () => new Promise((resolve) => (answer = resolve)) });
    await renderRoute(<ServerLocationsPage />, '/server-locations');
    expect(await screen.findByRole('status')).toHaveTextContent('Loading server locations…');
    answer(list([sydney]));
    expect(await screen.findByText('Sydney')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('a failed list says so and offers a retry, not "No locations match your search"', async () => {
    let fail = true;
    const api = stubApi({
      'GET setup/servers/get': () => (fail ? { status: 500, body: { message: 'Internal error' } } : list([sydney])),
    });
    await renderRoute(<ServerLocationsPage />, '/server-locations');
    const alert = await screen.findByTestId('error-state');
    expect(alert).toHaveTextContent('The server locations could not be loaded.');
    expect(screen.queryByText('No locations match your search')).not.toBeInTheDocument();
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Sydney')).toBeInTheDocument();
    expect(screen.queryByTestId('error-state')).not.toBeInTheDocument();
    expect(api.count('GET setup/servers/get')).toBe(2);
  });

  it('an empty list says there are no locations', async () => {
    stubApi({ 'GET setup/servers/get': list([]) });
    await renderRoute(<ServerLocationsPage />, '/server-locations');
    expect(await screen.findByTestId('empty-state')).toHaveTextContent('No server locations are available right now.');
  });

  it('a search that matches nothing says so', async () => {
    stubApi({ 'GET setup/servers/get': list([sydney]) });
    await renderRoute(<ServerLocationsPage />, '/server-locations');
    await screen.findByText('Sydney');
    await userEvent.type(screen.getByRole('textbox', { name: /search/i }), 'Zanzibar');
    await waitFor(() => expect(screen.getByTestId('empty-state')).toHaveTextContent('No locations match your search'));
  });
});

describe('"Available on my plan"', () => {
  const tokyo: ServerListItem = {
    ...sydney,
    id: 2,
    countryCode: 'JP',
    country: 'Japan',
    city: 'Tokyo',
    premium: true,
    isBlur: true,
  };
  const frankfurt: ServerListItem = { ...sydney, id: 3, countryCode: 'DE', country: 'Germany', city: 'Frankfurt' };
  const cities = () => screen.getAllByTestId('location').map((el) => el.querySelector('p')?.textContent);

  it('hides the locations the plan does not reach, keeping the order, and shows them again', async () => {
    stubApi({ 'GET setup/servers/get': list([tokyo, frankfurt, sydney]) });
    await renderRoute(<ServerLocationsPage />, '/server-locations');
    await screen.findByText('Tokyo');
    expect(cities()).toEqual(['Tokyo', 'Frankfurt', 'Sydney']);
    const toggle = screen.getByRole('switch', { name: 'Available on my plan' });
    await userEvent.click(toggle);
    await waitFor(() => expect(cities()).toEqual(['Frankfurt', 'Sydney']));
    // It combines with the search.
    await userEvent.type(screen.getByRole('textbox', { name: /search/i }), 'syd');
    await waitFor(() => expect(cities()).toEqual(['Sydney']));
    await userEvent.clear(screen.getByRole('textbox', { name: /search/i }));
    await userEvent.click(toggle);
    await waitFor(() => expect(cities()).toEqual(['Tokyo', 'Frankfurt', 'Sydney']));
  });

  it('is not offered when the plan reaches every location', async () => {
    stubApi({ 'GET setup/servers/get': list([frankfurt, sydney]) });
    await renderRoute(<ServerLocationsPage />, '/server-locations');
    await screen.findByText('Sydney');
    expect(screen.queryByRole('switch', { name: 'Available on my plan' })).not.toBeInTheDocument();
  });
});
