import { useState } from 'react';
import { Alert, Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { snackbar } from '../../../lib/notify';
import { session } from '../../../lib/session';
import { IconTrash } from '../../../components/icons';
import { SectionCard } from '../../../components/SectionCard';
import { useDeleteAccount } from '../api/delete-account';
import { PasswordConfirmDialog } from './PasswordConfirmDialog';

/** Account deletion (annihilation) behind a confirmation that asks for the password; then sign-out. */
export function DeleteAccountCard() {
  const { t } = useTranslation();
  const remove = useDeleteAccount();
  const [open, setOpen] = useState(false);
  const confirm = async (password: string) => {
    await remove.mutateAsync({ password });
    setOpen(false);
    snackbar(t('profile.deleted'), { kind: 'info', ms: 5000 });
    // The token is already revoked: sign out locally only.
    await session.signOut({ callApi: false });
  };

  return (
    <SectionCard
      id="profile-delete"
      title={t('profile.delete')}
      intro={t('profile.deleteIntro')}
      style={{ borderColor: 'var(--mantine-color-red-2)' }}
    >
      <Group>
        <Button color="red" variant="outline" leftSection={<IconTrash size={16} />} onClick={() => setOpen(true)}>
          {t('profile.deleteButton')}
        </Button>
      </Group>
      <PasswordConfirmDialog
        opened={open}
        onClose={() => setOpen(false)}
        title={t('profile.deleteConfirmTitle')}
        lead={
          <Alert color="red" variant="light">
            {t('profile.deleteWarning')}
          </Alert>
        }
        confirmLabel={t('profile.deleteConfirm')}
        onConfirm={confirm}
      />
    </SectionCard>
  );
}
