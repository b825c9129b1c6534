import { Button, Group, Modal, Text } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import { useTranslation } from 'react-i18next';
import { closeConfirm, type ConfirmRequest } from '../lib/confirm';
import { useReturnFocus } from './use-return-focus';

export default function ConfirmDialogs({ requests }: { requests: readonly ConfirmRequest[] }) {
  return requests.map((r) => <ConfirmDialog key={r.id} request={r} />);
}

function ConfirmDialog({ request: r }: { request: ConfirmRequest }) {
  // Mounted open, removed when closed: focus goes back to what asked for it.
  useReturnFocus(true);
  const { t } = useTranslation();
  const close = () => closeConfirm(r.id);
  return (
    // The close control is an icon: it needs a name (axe button-name).
    <Modal
      opened
      onClose={close}
      title={r.title}
      centered
      radius="lg"
      returnFocus={false}
      closeButtonProps={{ 'aria-label': t('notify.close') }}
    >
      {typeof r.body === 'string' ? <Text size="sm">{r.body}</Text> : r.body}
      <Group justify="flex-end" mt="lg" gap="sm">
        <Button variant="default" onClick={close}>
          {r.cancelLabel}
        </Button>
        <Button
          // Shade 9: white on Mantine's red 6 is 3.3:1 (axe color-contrast); on red 9 it is 5.5:1.
          color={r.danger ? 'red.9' : undefined}
          data-testid={r.confirmTestId}
          onClick={() => {
            close();
            r.onConfirm();
          }}
        >
          {r.confirmLabel}
        </Button>
      </Group>
    </Modal>
  );
}
