import type { FormEvent, ReactNode } from 'react';
import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import { useTranslation } from 'react-i18next';
import { useReturnFocus } from '../../../components/use-return-focus';
import { STAFF_NS } from '../lib/i18n';

/**
 * A confirmation that takes input (days and a reason, a typed confirmation): a form in a modal.
 * Mantine's Modal traps focus inside, closes on Escape and gives focus back to the button that
 * opened it (useReturnFocus: the dialogs mount already open). The confirm button shows the call in flight; a refusal is shown in the dialog.
 */
export function ActionDialog({
  opened,
  onClose,
  title,
  confirmLabel,
  danger,
  pending,
  error,
  canSubmit = true,
  onSubmit,
  testId,
  size,
  children,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  pending?: boolean;
  error?: string | null;
  canSubmit?: boolean;
  onSubmit: () => void;
  testId?: string;
  size?: string;
  children: ReactNode;
}) {
  const { t } = useTranslation(STAFF_NS);
  const { t: tc } = useTranslation();
  useReturnFocus(opened);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (canSubmit && !pending) onSubmit();
  };
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={title}
      centered
      radius="lg"
      size={size}
      returnFocus={false}
      closeButtonProps={{ 'aria-label': tc('notify.close') }}
      data-testid={testId}
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          {children}
          {error && (
            <Alert color="red" variant="light" role="alert">
              {error}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" color={danger ? 'red.9' : undefined} loading={pending} disabled={!canSubmit}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
