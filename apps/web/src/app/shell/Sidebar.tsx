import { useState } from 'react';
import { NavLink as MantineNavLink, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/NavLink.layer.css';
import { NavLink, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { planDisplayName } from '../../lib/plan';
import { FREE_TARIFF_KEY } from '@warren/contract';
import { getBrand } from '../../lib/brand';
import { useSession } from '../../lib/session';
import { Logo } from '../../components/Logo';
import {
  IconCard,
  IconGauge,
  IconGift,
  IconGlobe,
  IconReceipt,
  IconTools,
  IconUser,
  IconUsers,
} from '../../components/icons';
import { sidebarMenu, type MenuLink } from './menu';
import classes from './AppLayout.module.css';

const ICONS = {
  dashboard: IconGauge,
  locations: IconGlobe,
  features: IconTools,
  plans: IconCard,
  billing: IconReceipt,
  affiliate: IconUsers,
  rewards: IconGift,
  profile: IconUser,
} as const;

export function Sidebar({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const { pathname } = useLocation();
  const items = sidebarMenu(user, getBrand().affiliatePortalUrl);
  const isFree = user?.subscriptionData.tariffKey === FREE_TARIFF_KEY;
  const [expanded, setExpanded] = useState<Record<string, boolean>>({});

  const renderItem = (item: MenuLink, nested = false) => {
    const Icon = ICONS[item.icon];
    const icon = nested ? undefined : <Icon size={20} />;
    if (item.children) {
      const active = item.children.some((c) => pathname === c.to);
      return (
        <MantineNavLink
          key={item.key}
          component="button"
          type="button"
          label={t(item.labelKey)}
          leftSection={icon}
          opened={expanded[item.key] ?? active}
          onChange={(o) => setExpanded((e) => ({ ...e, [item.key]: o }))}
          aria-expanded={expanded[item.key] ?? active}
          childrenOffset={30}
          className={classes.navLink}
        >
          {item.children.map((c) => renderItem(c, true))}
        </MantineNavLink>
      );
    }
    if (item.href) {
      return (
        <MantineNavLink
          key={item.key}
          component="a"
          href={item.href}
          target="_blank"
          rel="noopener noreferrer"
          label={t(item.labelKey)}
          leftSection={icon}
          onClick={onNavigate}
          className={classes.navLink}
        />
      );
    }
    return (
      <MantineNavLink
        key={item.key}
        component={NavLink}
        to={item.to}
        end
        label={t(item.labelKey)}
        leftSection={icon}
        active={pathname === item.to || (item.to === '/plans' && pathname.startsWith('/plans/'))}
        onClick={onNavigate}
        className={classes.navLink}
      />
    );
  };

  return (
    <>
      <div className={classes.sidebarLogo}>
        <Logo size="sm" />
      </div>
      {/* The browser's own scrolling: Mantine's ScrollArea would bring floating-ui to every page. */}
      <div className={classes.sidebarScroll}>
        <nav aria-label={t('menu.label')}>
          <Stack gap={2} p="sm">
            {items.map((item) => renderItem(item))}
          </Stack>
        </nav>
      </div>
      {user && (
        <div className={classes.planBox}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {t('dashboard.plan')}
          </Text>
          <Text fw={600} size="sm" truncate>
            {planDisplayName(t, user.subscriptionData.tariffKey, user.subscriptionData.tariffName)}
          </Text>
          {isFree && (
            <Text size="xs" c="dimmed" mt={4}>
              {t('shell.upgradeHint')}
            </Text>
          )}
        </div>
      )}
    </>
  );
}
