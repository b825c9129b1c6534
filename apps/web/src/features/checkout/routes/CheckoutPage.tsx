import { Button, Card, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Logo } from '../../../components/Logo';
import { LanguageSwitcher } from '../../../components/LanguageSwitcher';

/** The checkout area comes with the billing issue; for now a bare page without the shell. */
export function CheckoutPage() {
  const { t } = useTranslation();
  return (
    <Center mih="100dvh" p="md" bg="gray.0">
      <Card withBorder shadow="md" padding="xl" maw={480} w="100%">
        <Stack gap="md">
          <Stack gap="md" align="center">
            <Logo />
            <LanguageSwitcher />
          </Stack>
          <Title order={1} fz={24} ta="center">
            {t('titles.checkout')}
          </Title>
          <Text c="dimmed" ta="center">
            {t('checkout.soon')}
          </Text>
          <Button component={Link} to="/sign-up" fullWidth>
            {t('auth.signIn.createAccount')}
          </Button>
        </Stack>
      </Card>
    </Center>
  );
}
