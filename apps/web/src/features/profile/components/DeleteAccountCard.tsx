import { useState } from 'react';
import { Alert, Button, Card, Group, Modal, PasswordInput, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useTranslation } from 'react-i18next';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { session } from '../../../lib/session';
import { IconTrash } from '../../../components/icons';
import { useDeleteAccount } from '../api/delete-account';

/** Account deletion (annihilation) behind a confirmation that asks for the password; then sign-out. */
export function DeleteAccountCard() {
  const { t } = useTranslation();
  const remove = useDeleteAccount();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    setOpen(false);
    setPassword('');
    setError(null);
  };
  const confirm = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!password) {
      setError(t('profile.passwordNeeded'));
      return;
    }
    try {
      await remove.mutateAsync({ password });
      close();
      snackbar(t('profile.deleted'), { kind: 'info', ms: 5000 });
      // The token is already revoked: sign out locally only.
      await session.signOut({ callApi: false });
    } catch (err) {
      const body = errorBodyOf(err);
      setError(body?.errors?.password?.join(' ') ?? errorText(body, t('profile.deleteFailed')));
    }
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profile-delete" style={{ borderColor: 'var(--mantine-color-red-2)' }}>
      <Title order={2} fz={18} mb={4} id="profile-delete">
        {t('profile.delete')}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {t('profile.deleteIntro')}
      </Text>
      <Group>
        <Button color="red" variant="outline" leftSection={<IconTrash size={16} />} onClick={() => setOpen(true)}>
          {t('profile.deleteButton')}
        </Button>
      </Group>
      <Modal opened={open} onClose={close} title={t('profile.deleteConfirmTitle')} centered closeButtonProps={{ 'aria-label': t('features.upgrade.close') }}>
        <form onSubmit={(e) => void confirm(e)} noValidate>
          <Stack gap="md">
            <Alert color="red" variant="light">
              {t('profile.deleteWarning')}
            </Alert>
            <PasswordInput
              label={t('profile.currentPassword')}
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={error}
              data-autofocus
              visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('profile.cancel')}
              </Button>
              <Button type="submit" color="red" loading={remove.isPending}>
                {t('profile.deleteConfirm')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Card>
  );
}
