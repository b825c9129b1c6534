import { useEffect } from 'react';
import { AppShell, Burger, Group, Overlay, Title } from '@mantine/core';
import '@mantine/core/styles/AppShell.layer.css';
import '@mantine/core/styles/Burger.layer.css';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { Outlet, useLocation, useMatches } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PAGE_TOP_PADDING_PX, SIDEBAR_BREAKPOINT_PX } from '@warren/contract';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { SpecialOfferBanner } from '../../features/billing/components/SpecialOfferBanner';
import { useSpecialOffer } from '../../features/billing/hooks/use-special-offer';
import { usePaymentSuccessMessage } from '../../lib/billing/payment-success-message';
import { useSession } from '../../lib/session';
import { PlanLine } from '../../components/PlanLine';
import type { RouteHandle } from '../route-handle';
import { FloatingUpgrade, useFloatingUpgrade } from './FloatingUpgrade';
import { Sidebar } from './Sidebar';
import { SupportChat } from './SupportChat';
import { UserMenu } from './UserMenu';
import classes from './AppLayout.module.css';

const NAVBAR_WIDTH = 264;
/** The special-offer banner sits above the header row; the page's top padding grows by its height. */
const BANNER_HEIGHT = { desktop: 48, phone: 56 } as const;

export function AppLayout() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure(false);
  const narrow = useMediaQuery(`(max-width: ${SIDEBAR_BREAKPOINT_PX - 0.02}px)`) ?? false;
  const { pathname } = useLocation();
  const matches = useMatches();
  const titleKey = [...matches].reverse().map((m) => (m.handle as RouteHandle | undefined)?.titleKey).find(Boolean);

  const phone = useMediaQuery('(max-width: 36em)') ?? false;
  const deviceType = useSession((s) => s.deviceType);
  const user = useSession((s) => (s.authenticated ? s.user : null));
  const floating = useFloatingUpgrade();
  const offer = useSpecialOffer();
  const bannerHeight = offer ? (phone ? BANNER_HEIGHT.phone : BANNER_HEIGHT.desktop) : 0;
  usePaymentSuccessMessage();

  useEffect(() => close(), [pathname, close]);

  return (
    <AppShell
      header={{ height: PAGE_TOP_PADDING_PX + bannerHeight }}
      navbar={{ width: NAVBAR_WIDTH, breakpoint: `${SIDEBAR_BREAKPOINT_PX / 16}em`, collapsed: { mobile: !opened } }}
      layout="alt"
      padding={0}
      className={classes.shell}
    >
      <AppShell.Header className={classes.header}>
        {offer && <SpecialOfferBanner offer={offer} short={phone || deviceType === 'mobile'} height={bannerHeight} />}
        <Group h={PAGE_TOP_PADDING_PX} px={{ base: 'sm', sm: 'lg' }} justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger
              opened={opened}
              onClick={toggle}
              size="sm"
              className={classes.burger}
              aria-label={t(opened ? 'shell.closeMenu' : 'shell.openMenu')}
            />
            <Title order={1} className={classes.pageTitle}>
              {titleKey ? t(titleKey) : ''}
            </Title>
            {user && (
              <div className={classes.headerPlan}>
                <PlanLine user={user} placement="header" />
              </div>
            )}
          </Group>
          <Group gap={4} wrap="nowrap">
            <LanguageSwitcher compact />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar className={classes.navbar}>
        <Sidebar onNavigate={close} />
      </AppShell.Navbar>
      {narrow && opened && <Overlay fixed onClick={close} backgroundOpacity={0.55} color="#000" zIndex={150} className={classes.overlay} />}
      <AppShell.Main className={classes.main}>
        <div className={floating ? `${classes.content} ${classes.withFloating}` : classes.content}>
          <Outlet />
        </div>
      </AppShell.Main>
      {floating && <FloatingUpgrade />}
      <SupportChat raised={floating} />
    </AppShell>
  );
}
