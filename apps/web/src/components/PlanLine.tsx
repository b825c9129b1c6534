import { Button, Group, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { User } from '@warren/contract';
import { planDisplayName, planLine } from '../lib/plan';
import { useSession } from '../lib/session';
import { StatusBadge } from './StatusBadge';
import { IconCrown } from './icons';

/**
 * The plan line (spec section 2): the plan name, then the status badge for paid plans or the
 * Upgrade VPN button for the free plan on desktop; name and badge on mobile. The button is
 * 46px high, 40 in the header title (spec section 9).
 */
export function PlanLine({ user, placement }: { user: User; placement: 'header' | 'page' }) {
  const { t } = useTranslation();
  const deviceType = useSession((s) => s.deviceType);
  const line = planLine(user, deviceType);
  return (
    <Group gap="sm" wrap="nowrap" miw={0} data-testid={`plan-line-${placement}`} data-trailing={line.trailing}>
      <Text
        fw={placement === 'page' ? 700 : 600}
        size={placement === 'page' ? 'lg' : 'sm'}
        truncate
        data-testid={placement === 'page' ? 'plan-name' : undefined}
      >
        {planDisplayName(t, user.subscriptionData.tariffKey, line.name)}
      </Text>
      {line.trailing === 'badge' ? (
        // The dashboard's account card shows the status beside it: the page's line does not repeat it.
        placement === 'header' && <StatusBadge status={user.accountStatus} />
      ) : (
        <Button
          component={Link}
          to="/plans"
          h={placement === 'header' ? 40 : 46}
          px={placement === 'header' ? 'md' : 'lg'}
          leftSection={<IconCrown size={18} />}
          data-testid="upgrade-vpn"
        >
          {t('dashboard.upgrade')}
        </Button>
      )}
    </Group>
  );
}
