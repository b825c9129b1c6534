import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/Modal.layer.css';
import { useTranslation } from 'react-i18next';
import { CopyField } from '../../../components/CopyField';
import { useReturnFocus } from '../../../components/use-return-focus';
import { STAFF_NS } from '../lib/i18n';

/** A node's token, shown this once: the server keeps only its hash. Copy it now or issue another. */
export function TokenDialog({ node, token, onClose }: { node: string; token: string; onClose: () => void }) {
  const { t } = useTranslation(STAFF_NS);
  const { t: tc } = useTranslation();
  useReturnFocus(true);
  return (
    <Modal
      opened
      onClose={onClose}
      title={t('nodes.tokenTitle', { node })}
      centered
      radius="lg"
      size="lg"
      returnFocus={false}
      closeButtonProps={{ 'aria-label': tc('notify.close') }}
      data-testid="token-dialog"
    >
      <Stack gap="md">
        <Alert color="orange" variant="light" title={t('nodes.tokenOnceTitle')}>
          <Text size="sm">{t('nodes.tokenOnce')}</Text>
        </Alert>
        <CopyField label={t('nodes.token')} value={token} mono testId="node-token" />
        <Text size="sm" c="dimmed">
          {t('nodes.tokenUse')}
        </Text>
        <Group justify="flex-end">
          <Button onClick={onClose} data-autofocus>
            {t('nodes.tokenDone')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
