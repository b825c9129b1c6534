import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, PasswordInput, Stack, TextInput } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useTranslation } from 'react-i18next';
import { errorBodyOf, errorText } from '../../../lib/http-error';

/**
 * A destructive profile action confirmed with the current password (delete the account, turn
 * off two-factor sign-in, which also asks for a code: `codeField`): an empty field is refused
 * here, the server's messages land under their fields, and the dialog forgets what was typed
 * when it closes.
 */
export function PasswordConfirmDialog({
  opened,
  onClose,
  title,
  lead,
  confirmLabel,
  codeField,
  onConfirm,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  lead: ReactNode;
  confirmLabel: string;
  /** A second field for an authenticator or recovery code, with its label and hint. */
  codeField?: { label: string; description: string; required: string };
  /** Does the action; throws the API error when it is refused. */
  onConfirm: (password: string, code: string) => Promise<void>;
}) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const reset = () => {
    setPassword('');
    setCode('');
    setError(null);
    setCodeError(null);
  };
  const close = () => {
    reset();
    onClose();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(password ? null : t('profile.passwordNeeded'));
    setCodeError(codeField && !code.trim() ? codeField.required : null);
    if (!password || (codeField && !code.trim())) return;
    setPending(true);
    try {
      await onConfirm(password, code.trim());
      reset();
    } catch (err) {
      const body = errorBodyOf(err);
      const codeMessage = codeField ? body?.errors?.code?.join(' ') : undefined;
      setCodeError(codeMessage ?? null);
      setError(body?.errors?.password?.join(' ') ?? (codeMessage ? null : errorText(body, t('profile.deleteFailed'))));
    } finally {
      setPending(false);
    }
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={title}
      centered
      closeButtonProps={{ 'aria-label': t('features.upgrade.close') }}
    >
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
          {codeField && (
            <TextInput
              label={codeField.label}
              description={codeField.description}
              autoComplete="one-time-code"
              maxLength={32}
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              error={codeError}
            />
          )}
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
