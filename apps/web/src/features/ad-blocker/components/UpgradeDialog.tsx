import { Button, List, Modal, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import '@mantine/core/styles/List.layer.css';
import '@mantine/core/styles/Modal.layer.css';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useMediaQuery } from '@mantine/hooks';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../../lib/session';
import { IconCheck, IconCrown } from '../../../components/icons';
import { useReturnFocus } from '../../../components/use-return-focus';
import a11y from '../../../components/a11y.module.css';
import classes from './features.module.css';

/** Spec section 4 and 9: 500x500, full screen on mobile; three points and a button to plans. */
export function UpgradeDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const deviceType = useSession((s) => s.deviceType);
  const narrow = useMediaQuery('(max-width: 36em)') ?? false;
  const fullScreen = deviceType === 'mobile' || narrow;
  useReturnFocus(opened);
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      returnFocus={false}
      fullScreen={fullScreen}
      size={500}
      centered
      radius={fullScreen ? 0 : 'lg'}
      title={<span className={a11y.srOnly}>{t('features.upgrade.title')}</span>}
      closeButtonProps={{ 'aria-label': t('features.upgrade.close') }}
      classNames={{ content: fullScreen ? classes.dialogFull : classes.dialog, body: classes.dialogBody }}
      data-testid="upgrade-dialog"
    >
      <Stack gap="lg" align="center" justify="center" className={classes.dialogInner}>
        <ThemeIcon size={64} radius="xl" variant="light" color="yellow">
          <IconCrown size={34} />
        </ThemeIcon>
        <Title order={2} fz={24} ta="center">
          {t('features.upgrade.title')}
        </Title>
        <Text c="dimmed" ta="center">
          {t('features.upgrade.text')}
        </Text>
        <List
          spacing="sm"
          center
          icon={
            <ThemeIcon size={24} radius="xl" color="teal">
              <IconCheck size={14} />
            </ThemeIcon>
          }
        >
          <List.Item>{t('features.upgrade.trackers')}</List.Item>
          <List.Item>{t('features.upgrade.ads')}</List.Item>
          <List.Item>{t('features.upgrade.malicious')}</List.Item>
        </List>
        <Button
          component={Link}
          to="/plans"
          size="md"
          h={46}
          fullWidth
          leftSection={<IconCrown size={18} />}
          onClick={onClose}
        >
          {t('features.upgrade.cta')}
        </Button>
      </Stack>
    </Modal>
  );
}
