import { Button, Group, Modal, Text } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import { closeConfirm, type ConfirmRequest } from '../lib/confirm';
import { useReturnFocus } from './use-return-focus';

export default function ConfirmDialogs({ requests }: { requests: readonly ConfirmRequest[] }) {
  return requests.map((r) => <ConfirmDialog key={r.id} request={r} />);
}

function ConfirmDialog({ request: r }: { request: ConfirmRequest }) {
  // Mounted open, removed when closed: focus goes back to what asked for it.
  useReturnFocus(true);
  const close = () => closeConfirm(r.id);
  return (
    <Modal opened onClose={close} title={r.title} centered radius="lg" returnFocus={false}>
      {typeof r.body === 'string' ? <Text size="sm">{r.body}</Text> : r.body}
      <Group justify="flex-end" mt="lg" gap="sm">
        <Button variant="default" onClick={close}>
          {r.cancelLabel}
        </Button>
        <Button
          color={r.danger ? 'red' : undefined}
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
