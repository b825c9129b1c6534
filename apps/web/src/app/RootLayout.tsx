import { useEffect } from 'react';
import { Outlet, useLocation, useMatches } from 'react-router';
import { useTranslation } from 'react-i18next';
import { STORAGE_KEYS } from '@warren/contract';
import { formatTitle, getBrand } from '../lib/brand';
import { detectDeviceType } from '../lib/device';
import { session } from '../lib/session';
import { storage } from '../lib/storage';
import type { RouteHandle } from './route-handle';
import { SkipLink } from './shell/SkipLink';

/** Title from route data, lastPathname on each navigation, device type on resize. */
export function RootLayout() {
  const location = useLocation();
  const matches = useMatches();
  const handles = [...matches].reverse().map((m) => m.handle as RouteHandle | undefined);
  const titleKey = handles.map((h) => h?.titleKey).find(Boolean);
  // A page in a fixed language (the -ru iOS pages) has its title in that language.
  const { t, i18n, ready } = useTranslation(undefined, { lng: handles.map((h) => h?.language).find(Boolean) });

  useEffect(() => {
    const brand = getBrand();
    document.title = formatTitle(brand.productName, titleKey ? t(titleKey) : null, brand.kind);
  }, [titleKey, t, i18n.language, ready]);

  useEffect(() => {
    storage.set(STORAGE_KEYS.lastPathname, location.pathname);
  }, [location.pathname]);

  useEffect(() => {
    const onResize = () => session.setDeviceType(detectDeviceType(navigator.userAgent));
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  return (
    <>
      <SkipLink label={t('shell.skipToContent')} />
      <Outlet />
    </>
  );
}
