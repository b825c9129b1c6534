import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from '../../public/assets/i18n/en.json';
import { Providers, createQueryClient } from '../app/providers';

let ready: Promise<unknown> | null = null;
export function initTestI18n() {
  ready ??= i18next.use(initReactI18next).init({
    lng: 'en',
    resources: { en: { translation: en } },
    interpolation: { escapeValue: false, defaultVariables: { product: 'Warren VPN' } },
    react: { useSuspense: false },
  });
  return ready;
}

export async function renderRoute(element: ReactElement, path = '/', extra: RouteObject[] = []) {
  await initTestI18n();
  const router = createMemoryRouter([{ path: path.split('?')[0], element }, ...extra], { initialEntries: [path] });
  const view = render(
    <Providers queryClient={createQueryClient()} env="test">
      <RouterProvider router={router} />
    </Providers>,
  );
  return { ...view, router };
}
