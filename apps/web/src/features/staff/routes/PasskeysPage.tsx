import { useState } from 'react';
import { Button, Card, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useTranslation } from 'react-i18next';
import { PASSKEY_NAME_MAX, type Passkey } from '@warren/contract';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { useAddStaffPasskey } from '../api/passkey-register-verify';
import { useRemoveStaffPasskey } from '../api/passkey-remove';
import { useStaffPasskeys } from '../api/passkeys';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { formatWhen } from '../lib/format';
import { STAFF_NS } from '../lib/i18n';

/** What went wrong, in words: the browser's own refusal (cancelled, already on this device) or the API's message. */
function failure(err: unknown, fallback: string): string {
  const name = (err as { name?: string } | null)?.name;
  if (name === 'NotAllowedError' || name === 'AbortError' || name === 'InvalidStateError') return fallback;
  return errorText(errorBodyOf(err), fallback);
}

/**
 * /staff/passkeys (issue 23): the member's passkeys, the second step of the console sign-in instead
 * of a code. Adding and removing ask for the password again, as in the profile.
 */
export function PasskeysPage() {
  const { t, i18n } = useTranslation(STAFF_NS);
  const list = useStaffPasskeys();
  const add = useAddStaffPasskey();
  const remove = useRemoveStaffPasskey();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setAdding(false);
    setRemoving(null);
    setName('');
    setPassword('');
    setError(null);
  };

  return (
    <Stack gap="md" maw={760}>
      <Title order={1} fz={22}>
        {t('passkeys.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('passkeys.intro')}
      </Text>
      <Group>
        <Button onClick={() => setAdding(true)} data-testid="staff-add-passkey">
          {t('passkeys.add')}
        </Button>
      </Group>
      <Card withBorder padding="md">
        {list.isPending ? null : (list.data ?? []).length === 0 ? (
          <Text size="sm">{t('passkeys.none')}</Text>
        ) : (
          <Stack gap="sm" data-testid="staff-passkeys">
            {(list.data ?? []).map((p) => (
              <Group key={p.id} justify="space-between" wrap="nowrap">
                <div style={{ flex: 1, minWidth: 0 }}>
                  <Text fw={600} truncate>
                    {p.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {t('passkeys.created', { date: formatWhen(p.createdAt, i18n.language) })} ·{' '}
                    {p.lastUsedAt
                      ? t('passkeys.lastUsed', { date: formatWhen(p.lastUsedAt, i18n.language) })
                      : t('passkeys.never')}
                  </Text>
                </div>
                {/* Never squeezed by a long date line on a phone (it was cut to "Remov" at 390 px). */}
                <Button
                  variant="subtle"
                  color="red"
                  size="compact-sm"
                  style={{ flexShrink: 0 }}
                  onClick={() => setRemoving(p)}
                  aria-label={`${t('passkeys.remove')}: ${p.name}`}
                >
                  {t('passkeys.remove')}
                </Button>
              </Group>
            ))}
          </Stack>
        )}
      </Card>
      <ConfirmDialog
        cancelLabel={t('common.cancel')}
        opened={adding}
        onClose={close}
        title={t('passkeys.add')}
        confirmLabel={t('passkeys.create')}
        pending={add.isPending}
        error={error}
        canSubmit={!!name.trim() && !!password}
        onConfirm={() =>
          add.mutate(
            { name: name.trim(), password },
            {
              onSuccess: () => {
                snackbar(t('passkeys.added'), { kind: 'success' });
                close();
              },
              onError: (err) => setError(failure(err, t('passkeys.failed'))),
            },
          )
        }
      >
        <TextInput
          label={t('passkeys.name')}
          maxLength={PASSKEY_NAME_MAX}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          data-autofocus
        />
        <PasswordInput
          label={t('passkeys.password')}
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
      </ConfirmDialog>
      <ConfirmDialog
        cancelLabel={t('common.cancel')}
        opened={removing !== null}
        onClose={close}
        title={t('passkeys.removeTitle')}
        confirmLabel={t('passkeys.remove')}
        danger
        pending={remove.isPending}
        error={error}
        canSubmit={!!password}
        onConfirm={() =>
          removing &&
          remove.mutate(
            { id: removing.id, password },
            {
              onSuccess: () => {
                snackbar(t('passkeys.removed'), { kind: 'success' });
                close();
              },
              onError: (err) => setError(failure(err, t('passkeys.failed'))),
            },
          )
        }
      >
        <Text size="sm" fw={600}>
          {removing?.name}
        </Text>
        <PasswordInput
          label={t('passkeys.password')}
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
      </ConfirmDialog>
    </Stack>
  );
}
