import { useEffect } from 'react';
import { Button, Card, Center, List, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/List.layer.css';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { WIREGUARD_IOS_APP_STORE } from '../../../components/vpn-clients';
import { Logo } from '../../../components/Logo';
import { IconDownload } from '../../../components/icons';

type Variant = { mode: 'download' | 'update'; lng?: 'ru' };

/** ios-download (the visitor's language), ios-download-ru and ios-update-ru (Russian). */
export function variantOf(pathname: string): Variant {
  const p = pathname.replace(/\/+$/, '');
  if (p === '/ios-update-ru') return { mode: 'update', lng: 'ru' };
  if (p === '/ios-download-ru') return { mode: 'download', lng: 'ru' };
  return { mode: 'download' };
}

/** The iOS download and update pages: bare layout, the official WireGuard app's App Store listing and the steps. */
export function IosPage() {
  const { pathname } = useLocation();
  const variant = variantOf(pathname);
  const { t, i18n } = useTranslation(undefined, { lng: variant.lng });
  const lang = variant.lng ?? i18n.resolvedLanguage ?? 'en';
  const k = variant.mode === 'update' ? 'ios.update' : 'ios.download';

  useEffect(() => {
    const prev = document.documentElement.lang;
    document.documentElement.lang = lang;
    return () => {
      document.documentElement.lang = prev;
    };
  }, [lang]);

  return (
    <Center component="main" mih="100dvh" p="md" bg="gray.0" lang={lang}>
      <Card withBorder shadow="md" padding="xl" maw={520} w="100%">
        <Stack gap="md">
          <Center>
            <Logo />
          </Center>
          <Title order={1} fz={24} ta="center">
            {t(`${k}.title`)}
          </Title>
          <Text c="dimmed" ta="center">
            {t(`${k}.intro`)}
          </Text>
          <Button
            component="a"
            href={WIREGUARD_IOS_APP_STORE}
            target="_blank"
            rel="noopener noreferrer"
            size="lg"
            h="auto"
            mih={52}
            py={10}
            styles={{ label: { whiteSpace: 'normal', textAlign: 'center' } }}
            leftSection={<IconDownload size={20} />}
            data-testid="app-store-link"
          >
            {t(variant.mode === 'update' ? 'ios.updateButton' : 'ios.storeButton')}
          </Button>
          <div>
            <Title order={2} fz={16} mb="xs">
              {t('ios.stepsTitle')}
            </Title>
            <List type="ordered" spacing="sm">
              {[1, 2, 3, 4].map((n) => (
                <List.Item key={n}>{t(`${k}.step${n}`)}</List.Item>
              ))}
            </List>
          </div>
          <Text size="sm" c="dimmed" ta="center">
            {t('ios.help')}
          </Text>
        </Stack>
      </Card>
    </Center>
  );
}
