import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  PasswordInput,
  Skeleton,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Modal.layer.css';
import '@mantine/core/styles/PasswordInput.layer.css';
import '@mantine/core/styles/Skeleton.layer.css';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useTranslation } from 'react-i18next';
import { PASSKEY_NAME_MAX, describeUserAgent } from '@warren/contract';
import { IconKey } from '../../../components/icons';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { passkeysUsableHere } from '../../../lib/passkeys';
import { useAddPasskey } from '../api/passkey-register-verify';
import { useRemovePasskey } from '../api/passkey-remove';
import { useRenamePasskey } from '../api/passkey-rename';
import { usePasskeys, type Passkey } from '../api/passkeys';
import { PasswordConfirmDialog } from './PasswordConfirmDialog';

/** What the browser's own refusal means to the customer (WebAuthn's DOMException names). */
function ceremonyError(err: unknown, t: (k: string) => string): string | null {
  const name = (err as { name?: string } | null)?.name;
  if (name === 'NotAllowedError' || name === 'AbortError') return t('profile.passkeys.cancelled');
  if (name === 'InvalidStateError') return t('profile.passkeys.alreadyOnDevice');
  if (name === 'SecurityError' || name === 'NotSupportedError') return t('profile.passkeys.unsupported');
  return null;
}

/** A name to start from: the browser and system it is made on ("Chrome on Linux"), as GitHub and Google suggest. */
function suggestedName(t: (k: string, o?: Record<string, string>) => string): string {
  const ua = describeUserAgent(typeof navigator === 'undefined' ? '' : navigator.userAgent);
  if (ua.browser && ua.os) return t('profile.browserOn', { browser: ua.browser, os: ua.os });
  return ua.browser ?? ua.os ?? t('profile.passkeys.defaultName');
}

function AddPasskeyDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const add = useAddPasskey();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ name?: string; password?: string; form?: string }>({});

  const close = () => {
    setName('');
    setPassword('');
    setErrors({});
    onClose();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    const next = {
      name: trimmed ? undefined : t('profile.passkeys.nameRequired'),
      password: password ? undefined : t('profile.passwordNeeded'),
    };
    setErrors(next);
    if (next.name || next.password) return;
    try {
      await add.mutateAsync({ password, name: trimmed });
      snackbar(t('profile.passkeys.added'), { kind: 'success' });
      close();
    } catch (err) {
      const browser = ceremonyError(err, t);
      if (browser) return setErrors({ form: browser });
      const body = errorBodyOf(err);
      setErrors({
        password: body?.errors?.password?.join(' '),
        name: body?.errors?.name?.join(' '),
        form:
          body?.errors?.password || body?.errors?.name ? undefined : errorText(body, t('profile.passkeys.addFailed')),
      });
    }
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={t('profile.passkeys.addTitle')}
      centered
      closeButtonProps={{ 'aria-label': t('features.upgrade.close') }}
    >
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="add-passkey-form">
        <Stack gap="md">
          <Text size="sm">{t('profile.passkeys.addText')}</Text>
          <TextInput
            label={t('profile.passkeys.name')}
            description={t('profile.passkeys.nameHint')}
            maxLength={PASSKEY_NAME_MAX}
            value={name}
            onFocus={() => !name && setName(suggestedName(t))}
            onChange={(e) => setName(e.currentTarget.value)}
            error={errors.name}
            placeholder={suggestedName(t)}
            data-autofocus
          />
          <PasswordInput
            label={t('profile.currentPassword')}
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={errors.password}
            visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
          />
          {errors.form && (
            <Alert color="red" variant="light" role="alert">
              {errors.form}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('profile.cancel')}
            </Button>
            <Button type="submit" loading={add.isPending}>
              {t('profile.passkeys.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RenameDialog({ passkey, onClose }: { passkey: Passkey | null; onClose: () => void }) {
  const { t } = useTranslation();
  const rename = useRenamePasskey();
  const [name, setName] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const value = name ?? passkey?.name ?? '';
  const close = () => {
    setName(null);
    setError(null);
    onClose();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!passkey) return;
    if (!value.trim()) return setError(t('profile.passkeys.nameRequired'));
    try {
      await rename.mutateAsync({ id: passkey.id, name: value.trim() });
      snackbar(t('profile.passkeys.renamed'), { kind: 'success' });
      close();
    } catch (err) {
      const body = errorBodyOf(err);
      setError(body?.errors?.name?.join(' ') ?? errorText(body, t('profile.saveFailed')));
    }
  };
  return (
    <Modal
      opened={passkey !== null}
      onClose={close}
      title={t('profile.passkeys.renameTitle')}
      centered
      closeButtonProps={{ 'aria-label': t('features.upgrade.close') }}
    >
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="md">
          <TextInput
            label={t('profile.passkeys.name')}
            maxLength={PASSKEY_NAME_MAX}
            value={value}
            onChange={(e) => setName(e.currentTarget.value)}
            error={error}
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('profile.cancel')}
            </Button>
            <Button type="submit" loading={rename.isPending}>
              {t('profile.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * Profile → Passkeys (issue 23): sign in with the device's screen lock instead of a password, and
 * a second step that cannot be phished. Adding and removing ask for the password again (a stolen
 * session must not add a way in or take the owner's away); renaming does not. Each change is
 * mailed to the account.
 */
export function PasskeysCard() {
  const { t, i18n } = useTranslation();
  const supported = passkeysUsableHere();
  const passkeys = usePasskeys();
  const remove = useRemovePasskey();
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  const when = (iso: string) => new Date(iso).toLocaleDateString(i18n.language, { dateStyle: 'medium' });

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profile-passkeys" data-testid="passkeys-card">
      <Group justify="space-between" mb="xs" gap="sm">
        <Title order={2} fz={18} id="profile-passkeys">
          {t('profile.passkeys.title')}
        </Title>
        <Button variant="light" onClick={() => setAdding(true)} disabled={!supported} data-testid="add-passkey">
          {t('profile.passkeys.add')}
        </Button>
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        {t('profile.passkeys.intro')}
      </Text>
      {!supported && (
        <Alert color="yellow" variant="light" mb="md">
          {t('profile.passkeys.unsupported')}
        </Alert>
      )}
      {passkeys.isPending ? (
        <Skeleton h={64} />
      ) : (passkeys.data ?? []).length === 0 ? (
        <Text size="sm" data-testid="no-passkeys">
          {t('profile.passkeys.none')}
        </Text>
      ) : (
        <Stack gap={0} data-testid="passkeys-list">
          {(passkeys.data ?? []).map((p) => (
            <Group
              key={p.id}
              justify="space-between"
              wrap="wrap"
              py="sm"
              gap="xs"
              style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
              data-testid="passkey-row"
            >
              <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: '1 1 240px' }}>
                <ThemeIcon variant="light" color="teal" size={36} radius="md">
                  <IconKey size={20} />
                </ThemeIcon>
                <div style={{ minWidth: 0 }}>
                  <Group gap={6} wrap="nowrap">
                    <Text fw={600} truncate data-testid="passkey-name">
                      {p.name}
                    </Text>
                    {p.synced && (
                      <Badge color="gray" variant="light" radius="sm">
                        {t('profile.passkeys.synced')}
                      </Badge>
                    )}
                  </Group>
                  <Text size="xs" c="dimmed">
                    {t('profile.passkeys.createdAt', { date: when(p.createdAt) })} ·{' '}
                    {p.lastUsedAt
                      ? t('profile.passkeys.lastUsed', { date: when(p.lastUsedAt) })
                      : t('profile.passkeys.neverUsed')}
                  </Text>
                </div>
              </Group>
              <Group gap={4} wrap="nowrap">
                <Button
                  variant="subtle"
                  size="compact-sm"
                  onClick={() => setRenaming(p)}
                  aria-label={`${t('profile.passkeys.rename')}: ${p.name}`}
                >
                  {t('profile.passkeys.rename')}
                </Button>
                <Button
                  variant="subtle"
                  color="red"
                  size="compact-sm"
                  onClick={() => setRemoving(p)}
                  aria-label={`${t('profile.passkeys.remove')}: ${p.name}`}
                >
                  {t('profile.passkeys.remove')}
                </Button>
              </Group>
            </Group>
          ))}
        </Stack>
      )}
      <AddPasskeyDialog opened={adding} onClose={() => setAdding(false)} />
      <RenameDialog passkey={renaming} onClose={() => setRenaming(null)} />
      <PasswordConfirmDialog
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={t('profile.passkeys.removeTitle')}
        lead={<Text size="sm">{t('profile.passkeys.removeText', { name: removing?.name ?? '' })}</Text>}
        confirmLabel={t('profile.passkeys.remove')}
        onConfirm={async (password) => {
          if (!removing) return;
          await remove.mutateAsync({ id: removing.id, password });
          snackbar(t('profile.passkeys.removed'), { kind: 'success' });
          setRemoving(null);
        }}
      />
    </Card>
  );
}
