// The smallest first screen the web app's prescribed stack can make (DESIGN.md, "Web app"):
// React 19, a React Router data router, TanStack Query, Mantine's provider with one input and
// one button in a react-hook-form form, i18next with react-i18next, ky. No features, no
// validation schemas, no fonts. The web bench
// builds it beside the real app so the size target can be read against what the stack itself costs.
import '@mantine/core/styles/baseline.css';
import '@mantine/core/styles/default-css-variables.css';
import '@mantine/core/styles/global.css';
import '@mantine/core/styles/Button.layer.css';
import '@mantine/core/styles/Input.layer.css';
import { createRoot } from 'react-dom/client';
import { RouterProvider, createBrowserRouter } from 'react-router';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { Button, MantineProvider, TextInput } from '@mantine/core';
import i18next from 'i18next';
import { I18nextProvider, initReactI18next, useTranslation } from 'react-i18next';
import ky from 'ky';
import { useForm } from 'react-hook-form';

function Page() {
  const { t } = useTranslation();
  const health = useQuery({ queryKey: ['health'], queryFn: () => ky.get('/api/health').json<unknown>() });
  const form = useForm<{ email: string }>();
  return (
    <form onSubmit={form.handleSubmit((v) => ky.post('/api/echo', { json: v }))}>
      <TextInput label={t('email')} {...form.register('email', { required: true })} />
      <Button type="submit" loading={health.isPending}>
        {t('signIn')}
      </Button>
    </form>
  );
}

await i18next
  .use(initReactI18next)
  .init({ lng: 'en', resources: { en: { translation: { email: 'Email', signIn: 'Sign in' } } } });
const router = createBrowserRouter([{ path: '*', Component: Page }]);
createRoot(document.getElementById('root')!).render(
  <I18nextProvider i18n={i18next}>
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <RouterProvider router={router} />
      </MantineProvider>
    </QueryClientProvider>
  </I18nextProvider>,
);
