import type { FormEvent, ReactNode } from 'react';
import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import { useTranslation } from 'react-i18next';
import { useReturnFocus } from './use-return-focus';

/**
 * The one confirmation dialog of the app: a title, what will happen (and any input it needs: days
 * and a reason, a typed confirmation), Cancel and the action. The customer's confirmations
 * (lib/confirm's openConfirm, shown by ConfirmDialogs) and the staff console's actions both use
 * it; the caller passes every label, so the console's words stay in its own namespace.
 *
 * A form in a modal: Mantine's Modal traps focus inside and closes on Escape; focus goes back to
 * the button that opened it (useReturnFocus: the dialogs mount already open). The action button
 * shows a call in flight (`pending`); a refusal is shown in the dialog (`error`).
 */
export function ConfirmDialog({
  opened,
  onClose,
  title,
  confirmLabel,
  cancelLabel,
  danger,
  pending,
  error,
  canSubmit = true,
  onConfirm,
  testId,
  confirmTestId,
  size,
  children,
}: {
  opened: boolean;
  onClose: () => void;
  title: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  /** Red action button, for destructive actions. */
  danger?: boolean;
  pending?: boolean;
  error?: string | null;
  canSubmit?: boolean;
  onConfirm: () => void;
  testId?: string;
  confirmTestId?: string;
  size?: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  useReturnFocus(opened);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (canSubmit && !pending) onConfirm();
  };
  return (
    // The close control is an icon: it needs a name (axe button-name).
    <Modal
      opened={opened}
      onClose={onClose}
      title={title}
      centered
      radius="lg"
      size={size}
      returnFocus={false}
      closeButtonProps={{ 'aria-label': t('notify.close') }}
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
              {cancelLabel}
            </Button>
            <Button
              type="submit"
              // Shade 9: white on Mantine's red 6 is 3.3:1 (axe color-contrast); on red 9 it is 5.5:1.
              color={danger ? 'red.9' : undefined}
              loading={pending}
              disabled={!canSubmit}
              data-testid={confirmTestId}
            >
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
