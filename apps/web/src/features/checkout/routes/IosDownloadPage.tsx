import { Card, Center, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Logo } from '../../../components/Logo';

export function IosDownloadPage() {
  const { t } = useTranslation();
  return (
    <Center mih="100dvh" p="md" bg="gray.0">
      <Card withBorder shadow="md" padding="xl" maw={480} w="100%">
        <Stack gap="md" align="center">
          <Logo />
          <Title order={1} fz={24} ta="center">
            {t('titles.iosDownload')}
          </Title>
          <Text c="dimmed" ta="center">
            {t('ios.soon')}
          </Text>
        </Stack>
      </Card>
    </Center>
  );
}
