import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, PasswordInput, Stack } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useTranslation } from 'react-i18next';
import { errorBodyOf, errorText } from '../../../lib/http-error';

/**
 * A destructive profile action confirmed with the current password (delete the account, turn
 * off two-factor sign-in): an empty field is refused here, the server's password message
 * lands under the field, and the dialog forgets what was typed when it closes.
 */
export function PasswordConfirmDialog({
  opened,
  onClose,
  title,
  lead,
  confirmLabel,
  onConfirm,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  lead: ReactNode;
  confirmLabel: string;
  /** Does the action; throws the API error when it is refused. */
  onConfirm: (password: string) => Promise<void>;
}) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const reset = () => {
    setPassword('');
    setError(null);
  };
  const close = () => {
    reset();
    onClose();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!password) {
      setError(t('profile.passwordNeeded'));
      return;
    }
    setPending(true);
    try {
      await onConfirm(password);
      reset();
    } catch (err) {
      const body = errorBodyOf(err);
      setError(body?.errors?.password?.join(' ') ?? errorText(body, t('profile.deleteFailed')));
    } finally {
      setPending(false);
    }
  };

  return (
    <Modal opened={opened} onClose={close} title={title} centered closeButtonProps={{ 'aria-label': t('features.upgrade.close') }}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="md">
          {lead}
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
            <Button type="submit" color="red" loading={pending}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
