import {
  ActionIcon,
  Button,
  Card,
  CopyButton,
  Group,
  PasswordInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Tooltip.layer.css';
import { useTranslation } from 'react-i18next';
import type { ServiceCredentials } from '@warren/contract';
import { IconCheck, IconLock } from '../../../components/icons';
import { snackbar } from '../../../lib/notify';
import { openConfirm } from '../../../lib/confirm';
import { useResetCredentials } from '../api/services';
import classes from './openvpn-socks5.module.css';

const CopyIcon = () => (
  <svg
    width={16}
    height={16}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    strokeWidth={2}
    strokeLinecap="round"
    strokeLinejoin="round"
    aria-hidden
  >
    <rect x="9" y="9" width="11" height="11" rx="2" />
    <path d="M5 15V6a2 2 0 0 1 2-2h9" />
  </svg>
);

export function Copy({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? t('services.copied') : t('services.copy')} withArrow>
          <ActionIcon
            variant="light"
            size="lg"
            onClick={copy}
            aria-label={`${t('services.copy')}: ${label}`}
            data-testid={`copy-${label}`}
          >
            {copied ? <IconCheck size={16} /> : <CopyIcon />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

export function CopyField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Group gap="xs" align="flex-end" wrap="nowrap">
      <TextInput
        label={label}
        value={value}
        readOnly
        flex={1}
        miw={0}
        classNames={{ input: classes.monoInput }}
        data-testid={testId}
      />
      <Copy value={value} label={label} />
    </Group>
  );
}

/** The account's service username and password (not the account password), with copy and reset. */
export function CredentialsCard({ credentials }: { credentials: ServiceCredentials }) {
  const { t } = useTranslation();
  const reset = useResetCredentials();
  const onReset = () =>
    openConfirm({
      title: t('services.resetTitle'),
      body: t('services.resetText'),
      confirmLabel: t('services.reset'),
      cancelLabel: t('services.cancel'),
      danger: true,
      confirmTestId: 'confirm-reset',
      onConfirm: () =>
        reset.mutate(undefined, { onSuccess: () => snackbar(t('services.resetDone'), { kind: 'success' }) }),
    });
  return (
    <Card withBorder padding="lg" data-testid="service-credentials">
      <Stack gap="sm">
        <Group gap={8} wrap="nowrap">
          <IconLock size={18} />
          <Title order={3} fz={18}>
            {t('services.credentials')}
          </Title>
        </Group>
        <Text size="sm" c="dimmed">
          {t('services.credentialsHint')}
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <CopyField label={t('services.username')} value={credentials.username} testId="service-username" />
          <Group gap="xs" align="flex-end" wrap="nowrap">
            <PasswordInput
              label={t('services.password')}
              value={credentials.password}
              readOnly
              flex={1}
              classNames={{ innerInput: classes.monoInput }}
              data-testid="service-password"
            />
            <Copy value={credentials.password} label={t('services.password')} />
          </Group>
        </SimpleGrid>
        <Group justify="flex-end">
          <Button
            variant="light"
            color="red"
            size="xs"
            onClick={onReset}
            loading={reset.isPending}
            data-testid="reset-credentials"
          >
            {t('services.reset')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
