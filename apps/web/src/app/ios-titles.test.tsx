import { render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import ru from '../../public/assets/i18n/ru.json';
import { Providers, createQueryClient } from './providers';
import { routes } from './router';
import { initTestI18n } from '../test/render';

async function open(path: string) {
  await initTestI18n();
  i18next.addResourceBundle('ru', 'translation', ru, true, true);
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <Providers queryClient={createQueryClient()} env="test">
      <RouterProvider router={router} />
    </Providers>,
  );
}

describe('iOS pages', () => {
  it('the Russian pages have their title in Russian while the app is in English', async () => {
    expect(i18next.language ?? 'en').toMatch(/^en|^$/);
    await open('/ios-update-ru');
    expect(await screen.findByRole('heading', { level: 1, name: ru.ios.update.title })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe(`Warren VPN | ${ru.titles.iosUpdate}`));
  });

  it('ios-download-ru: the download title in Russian; ios-download: the app language', async () => {
    await open('/ios-download-ru');
    await waitFor(() => expect(document.title).toBe(`Warren VPN | ${ru.titles.iosDownload}`));
    await open('/ios-download');
    await waitFor(() => expect(document.title).toBe('Warren VPN | VPN for iPhone and iPad'));
  });
});
