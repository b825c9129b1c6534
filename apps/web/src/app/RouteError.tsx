import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export function RouteError() {
  const { t } = useTranslation();
  return (
    <Center mih="100dvh" p="md">
      <Stack align="center" gap="sm" maw={420} ta="center">
        <Title order={2}>{t('errorPage.title')}</Title>
        <Text c="dimmed">{t('errorPage.text')}</Text>
        <Button onClick={() => window.location.assign('/')}>{t('errorPage.home')}</Button>
      </Stack>
    </Center>
  );
}

export function PageLoader() {
  return <div role="progressbar" aria-busy="true" aria-label="Loading" style={{ minHeight: '100dvh' }} />;
}
