import { Button } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { showFloatingUpgrade } from '../../lib/plan';
import { useSession } from '../../lib/session';
import { IconCrown } from '../../components/icons';
import classes from './AppLayout.module.css';

/** Free users on non-desktop devices, except on /thank-you and /plans (spec section 2). */
export function useFloatingUpgrade(): boolean {
  const user = useSession((s) => (s.authenticated ? s.user : null));
  const deviceType = useSession((s) => s.deviceType);
  const { pathname } = useLocation();
  return showFloatingUpgrade({ user, deviceType, pathname });
}

export function FloatingUpgrade() {
  const { t } = useTranslation();
  return (
    <div className={classes.floatingUpgrade}>
      <Button
        component={Link}
        to="/plans"
        size="md"
        h={46}
        radius="xl"
        leftSection={<IconCrown size={18} />}
        className={classes.floatingButton}
        data-testid="floating-upgrade"
      >
        {t('dashboard.upgrade')}
      </Button>
    </div>
  );
}
