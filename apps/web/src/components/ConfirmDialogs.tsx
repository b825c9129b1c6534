import { Button, Group, Modal, Text } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import { closeConfirm, type ConfirmRequest } from '../lib/confirm';

export default function ConfirmDialogs({ requests }: { requests: readonly ConfirmRequest[] }) {
  return requests.map((r) => {
    const close = () => closeConfirm(r.id);
    return (
      <Modal key={r.id} opened onClose={close} title={r.title} centered radius="lg">
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
  });
}
