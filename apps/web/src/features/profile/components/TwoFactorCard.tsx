import { useEffect, useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  CopyButton,
  Group,
  Image,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Image.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useTranslation } from 'react-i18next';
import type { Profile } from '@warren/contract';
import { getBrand } from '../../../lib/brand';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { refreshUser } from '../../../lib/session';
import { CopyField } from '../../../components/CopyField';
import { IconCheck, IconCopy, IconDownload, IconKey, IconShieldCheck } from '../../../components/icons';
import { useDisableTwoFactor } from '../api/two-factor-disable';
import { useEnableTwoFactor } from '../api/two-factor-enable';
import { useStartTwoFactor, type TwoFactorSetup } from '../api/two-factor-setup';
import { PasswordConfirmDialog } from './PasswordConfirmDialog';
import { groupSecret, recoveryCodesFile } from '../lib/user-agent';

function useQrCode(text: string | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setUrl(null);
    if (text)
      void import('qrcode')
        .then((QR) => QR.toDataURL(text, { errorCorrectionLevel: 'M', margin: 1, width: 360 }))
        .then((u) => live && setUrl(u));
    return () => {
      live = false;
    };
  }, [text]);
  return url;
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Two-factor sign-in with an authenticator app (TOTP): set up with a QR code, recovery codes once, turn off with the password. */
export function TwoFactorCard({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const start = useStartTwoFactor();
  const enable = useEnableTwoFactor();
  const disable = useDisableTwoFactor();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [disableOpen, setDisableOpen] = useState(false);
  const qr = useQrCode(setup?.otpauthUrl ?? null);

  const begin = async () => {
    setCode('');
    setCodeError(null);
    setSetup(await start.mutateAsync());
  };
  const confirm = async (e: React.FormEvent) => {
    e.preventDefault();
    const clean = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(clean)) {
      setCodeError(t('profile.tfa.codeFormat'));
      return;
    }
    try {
      const recovery = await enable.mutateAsync({ code: clean });
      setSetup(null);
      setCodes(recovery);
      snackbar(t('profile.tfa.enabled'), { kind: 'success' });
      await refreshUser().catch(() => null);
    } catch (err) {
      const body = errorBodyOf(err);
      setCodeError(body?.errors?.code?.join(' ') ?? errorText(body, t('profile.tfa.codeFormat')));
    }
  };
  const turnOff = async (password: string, code: string) => {
    await disable.mutateAsync({ password, code });
    setDisableOpen(false);
    snackbar(t('profile.tfa.disabled'), { kind: 'success' });
    await refreshUser().catch(() => null);
  };

  const codesText = codes ? recoveryCodesFile(getBrand().productName, profile.email, codes) : '';

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profile-2fa" data-testid="two-factor">
      <Group justify="space-between" gap="sm" mb={4}>
        <Title order={2} fz={18} id="profile-2fa">
          {t('profile.tfa.title')}
        </Title>
        <Badge
          color={profile.twoFactorEnabled ? 'teal' : 'gray'}
          variant="light"
          radius="sm"
          data-testid="two-factor-state"
        >
          {profile.twoFactorEnabled ? t('profile.tfa.on') : t('profile.tfa.off')}
        </Badge>
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        {t('profile.tfa.intro')}
      </Text>

      {codes ? (
        <Stack gap="md" data-testid="recovery-codes">
          <Alert color="yellow" variant="light" icon={<IconKey size={18} />} title={t('profile.tfa.codesTitle')}>
            {t('profile.tfa.codesText')}
          </Alert>
          <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="xs">
            {codes.map((c) => (
              <Text key={c} ff="monospace" fw={600} ta="center" py={6} bg="gray.0" style={{ borderRadius: 6 }}>
                {c}
              </Text>
            ))}
          </SimpleGrid>
          <Group gap="sm">
            <CopyButton value={codes.join('\n')} timeout={1500}>
              {({ copied, copy }) => (
                <Button
                  variant="light"
                  onClick={copy}
                  leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                >
                  {copied ? t('shell.copied') : t('profile.tfa.copyCodes')}
                </Button>
              )}
            </CopyButton>
            <Button
              variant="light"
              leftSection={<IconDownload size={16} />}
              onClick={() => download('recovery-codes.txt', codesText)}
            >
              {t('profile.tfa.downloadCodes')}
            </Button>
            <Button onClick={() => setCodes(null)}>{t('profile.tfa.savedCodes')}</Button>
          </Group>
        </Stack>
      ) : profile.twoFactorEnabled ? (
        <Group justify="space-between" gap="sm">
          <Group gap="sm" wrap="nowrap">
            <IconShieldCheck size={22} color="var(--mantine-color-teal-6)" />
            <Text size="sm">{t('profile.tfa.codesLeft', { count: profile.recoveryCodesLeft })}</Text>
          </Group>
          <Button variant="light" color="red" onClick={() => setDisableOpen(true)}>
            {t('profile.tfa.disable')}
          </Button>
        </Group>
      ) : setup ? (
        <form onSubmit={(e) => void confirm(e)} noValidate>
          <Stack gap="md">
            <Group align="flex-start" gap="lg" wrap="wrap">
              <div style={{ width: 180, height: 180, flex: 'none' }}>
                {qr && <Image src={qr} alt={t('profile.tfa.qrAlt')} w={180} h={180} data-testid="two-factor-qr" />}
              </div>
              <Stack gap="sm" style={{ flex: '1 1 240px', minWidth: 0 }}>
                <Text size="sm">{t('profile.tfa.step1')}</Text>
                <CopyField
                  label={t('profile.tfa.secret')}
                  value={groupSecret(setup.secret)}
                  testId="two-factor-secret"
                  mono
                />
                <Text size="sm">{t('profile.tfa.step2')}</Text>
                <TextInput
                  label={t('profile.tfa.code')}
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={7}
                  value={code}
                  onChange={(e) => setCode(e.currentTarget.value)}
                  error={codeError}
                  w={200}
                />
              </Stack>
            </Group>
            <Group>
              <Button type="submit" loading={enable.isPending}>
                {t('profile.tfa.confirm')}
              </Button>
              <Button variant="default" onClick={() => setSetup(null)}>
                {t('profile.cancel')}
              </Button>
            </Group>
          </Stack>
        </form>
      ) : (
        <Group>
          <Button leftSection={<IconShieldCheck size={18} />} onClick={() => void begin()} loading={start.isPending}>
            {t('profile.tfa.setUp')}
          </Button>
        </Group>
      )}

      <PasswordConfirmDialog
        opened={disableOpen}
        onClose={() => setDisableOpen(false)}
        title={t('profile.tfa.disableTitle')}
        lead={<Text size="sm">{t('profile.tfa.disableText')}</Text>}
        confirmLabel={t('profile.tfa.disable')}
        codeField={{
          label: t('profile.tfa.disableCode'),
          description: t('profile.tfa.disableCodeHint'),
          required: t('profile.tfa.disableCodeNeeded'),
        }}
        onConfirm={turnOff}
      />
    </Card>
  );
}
