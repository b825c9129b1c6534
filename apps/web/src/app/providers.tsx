import { Suspense, lazy, useState, type ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { useNotifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { I18nextProvider } from 'react-i18next';
import i18next, { type i18n as I18n } from 'i18next';
import { ConfirmDialogsHost } from '../components/ConfirmDialogsHost';
import { colorSchemeManager } from '../components/color-scheme';
import { cssVariablesResolver, theme } from './theme';

const NotificationsHost = lazy(() => import('./NotificationsHost'));

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}

/**
 * Snackbars go to Mantine's notifications store at once (lib/notify.ts); the component that
 * shows them, with its transitions, loads when the first one arrives and then stays.
 */
function LazyNotifications() {
  const { notifications, queue } = useNotifications();
  const [wanted, setWanted] = useState(false);
  if (!wanted && notifications.length + queue.length > 0) setWanted(true);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <NotificationsHost />
    </Suspense>
  );
}

export function Providers({
  children,
  queryClient,
  env,
  i18n = i18next,
}: {
  children: ReactNode;
  queryClient: QueryClient;
  env?: 'default' | 'test';
  /** The server's first render brings its own instance per language and brand. */
  i18n?: I18n;
}) {
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        {/* The system's scheme unless this browser keeps another choice (public/color-scheme.js applies it before the first paint). */}
        <MantineProvider
          theme={theme}
          cssVariablesResolver={cssVariablesResolver}
          defaultColorScheme="auto"
          colorSchemeManager={colorSchemeManager}
          env={env}
        >
          <LazyNotifications />
          <ConfirmDialogsHost />
          {children}
        </MantineProvider>
      </QueryClientProvider>
    </I18nextProvider>
  );
}
