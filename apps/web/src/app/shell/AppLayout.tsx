import { useEffect, useRef } from 'react';
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
  const titleKey = [...matches]
    .reverse()
    .map((m) => (m.handle as RouteHandle | undefined)?.titleKey)
    .find(Boolean);

  const phone = useMediaQuery('(max-width: 36em)') ?? false;
  const deviceType = useSession((s) => s.deviceType);
  const user = useSession((s) => (s.authenticated ? s.user : null));
  const floating = useFloatingUpgrade();
  const offer = useSpecialOffer();
  const bannerHeight = offer ? (phone ? BANNER_HEIGHT.phone : BANNER_HEIGHT.desktop) : 0;
  usePaymentSuccessMessage();

  const burgerRef = useRef<HTMLButtonElement>(null);
  const navbarRef = useRef<HTMLDivElement>(null);
  const mainRef = useRef<HTMLDivElement>(null);
  /** The drawer (below 1200 px) covers the page: while it is open only it and the header take focus. */
  const drawerOpen = narrow && opened;

  // A page chosen in the drawer closes it and focus goes to the page, not to the now inert
  // drawer: once the page is no longer inert itself (the effect on drawerOpen).
  const focusMain = useRef(false);
  const onNavigate = () => {
    if (drawerOpen) focusMain.current = true;
    close();
  };
  useEffect(() => close(), [pathname, close]);
  useEffect(() => {
    if (drawerOpen || !focusMain.current) return;
    focusMain.current = false;
    mainRef.current?.focus({ preventScroll: true });
  }, [drawerOpen]);

  // Opening the drawer moves focus to its first link; Escape closes it and focus goes back to the burger.
  useEffect(() => {
    if (!drawerOpen) return;
    navbarRef.current?.querySelector<HTMLElement>('nav a, nav button')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      close();
      burgerRef.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [drawerOpen, close]);

  const closeByOverlay = () => {
    close();
    burgerRef.current?.focus();
  };

  return (
    <AppShell
      header={{ height: PAGE_TOP_PADDING_PX + bannerHeight }}
      navbar={{ width: NAVBAR_WIDTH, breakpoint: `${SIDEBAR_BREAKPOINT_PX / 16}em`, collapsed: { mobile: !opened } }}
      layout="alt"
      padding={0}
      className={classes.shell}
    >
      {/* The skip link is RootLayout's (shell/SkipLink.tsx): it moves focus to #main-content below. */}
      <AppShell.Header className={classes.header}>
        {offer && <SpecialOfferBanner offer={offer} short={phone || deviceType === 'mobile'} height={bannerHeight} />}
        <Group h={PAGE_TOP_PADDING_PX} px={{ base: 'sm', sm: 'lg' }} justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger
              ref={burgerRef}
              opened={opened}
              onClick={toggle}
              aria-expanded={narrow ? opened : undefined}
              aria-controls="app-navbar"
              size="sm"
              className={classes.burger}
              aria-label={t(opened ? 'shell.closeMenu' : 'shell.openMenu')}
            />
            {/* Beside the title where there is room; under it on a phone or a narrow window (spec section 2: the plan line on mobile too). */}
            <div className={classes.titleBlock}>
              <Title order={1} className={classes.pageTitle}>
                {titleKey ? t(titleKey) : ''}
              </Title>
              {user && (
                <div className={classes.headerPlan}>
                  <PlanLine user={user} placement="header" />
                </div>
              )}
            </div>
          </Group>
          <Group gap={4} wrap="nowrap">
            <LanguageSwitcher compact />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      {/* Closed below 1200 px the drawer is off screen: inert keeps it out of the tab order and from screen readers. */}
      <AppShell.Navbar ref={navbarRef} id="app-navbar" className={classes.navbar} inert={narrow && !opened}>
        <Sidebar onNavigate={onNavigate} />
      </AppShell.Navbar>
      {drawerOpen && (
        <Overlay
          fixed
          onClick={closeByOverlay}
          backgroundOpacity={0.55}
          color="#000"
          zIndex={150}
          className={classes.overlay}
        />
      )}
      <AppShell.Main ref={mainRef} id="main-content" tabIndex={-1} className={classes.main} inert={drawerOpen}>
        <div className={floating ? `${classes.content} ${classes.withFloating}` : classes.content}>
          <Outlet />
        </div>
      </AppShell.Main>
      <div inert={drawerOpen} className={classes.contents}>
        {floating && <FloatingUpgrade />}
        <SupportChat raised={floating} />
      </div>
    </AppShell>
  );
}
