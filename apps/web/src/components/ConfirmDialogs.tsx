import { Text } from '@mantine/core';
import { closeConfirm, type ConfirmRequest } from '../lib/confirm';
import { ConfirmDialog } from './ConfirmDialog';

/** The confirmations asked for with lib/confirm's openConfirm, each in the shared dialog. */
export default function ConfirmDialogs({ requests }: { requests: readonly ConfirmRequest[] }) {
  return requests.map((r) => <RequestedConfirm key={r.id} request={r} />);
}

function RequestedConfirm({ request: r }: { request: ConfirmRequest }) {
  // Mounted open, removed when closed: focus goes back to what asked for it.
  const close = () => closeConfirm(r.id);
  return (
    <ConfirmDialog
      opened
      onClose={close}
      title={r.title}
      confirmLabel={r.confirmLabel}
      cancelLabel={r.cancelLabel}
      danger={r.danger}
      confirmTestId={r.confirmTestId}
      onConfirm={() => {
        close();
        r.onConfirm();
      }}
    >
      {typeof r.body === 'string' ? <Text size="sm">{r.body}</Text> : r.body}
    </ConfirmDialog>
  );
}
