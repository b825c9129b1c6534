import { Badge, Button, Group, Text } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { NavLink, Outlet, redirect, useNavigate, useRouteLoaderData, type LoaderFunctionArgs } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { StaffMe } from '@warren/contract';
import { errorStatus } from '../../../lib/http-error';
import { STAFF_SIGN_IN, hadStaffSession, rememberSession, signInAfterExpiry } from '../api/client';
import { getMe } from '../api/get-me';
import { useSignOut } from '../api/sign-out';
import { STAFF_NS } from '../lib/i18n';
import { formatWhen } from '../lib/format';
import classes from './staff.module.css';

export const STAFF_CONSOLE_ID = 'staff-console';

/** The guard: a console page needs a staff session (its cookie goes only to /api/staff); without one, the sign-in, then back. */
export async function staffConsoleLoader({ request }: LoaderFunctionArgs): Promise<StaffMe> {
  try {
    const me = await getMe({ quiet: true, signal: request.signal });
    rememberSession(true);
    return me;
  } catch (err) {
    const status = errorStatus(err);
    if (status === 401 || status === 403) {
      const url = new URL(request.url);
      const here = url.pathname + url.search;
      // A session this tab had has ended (idle or absolute limit, signed out elsewhere): say so.
      throw redirect(hadStaffSession() ? signInAfterExpiry(here) : `${STAFF_SIGN_IN}?next=${encodeURIComponent(here)}`);
    }
    throw err;
  }
}

/** Who is signed in to the console (pages below the console read it for what to offer). */
export function useStaffMe(): StaffMe {
  return useRouteLoaderData(STAFF_CONSOLE_ID) as StaffMe;
}

/** The signed-in console: its menu (only what the role may use), who is signed in, sign-out; the page below. */
export function StaffConsole() {
  const { t, i18n } = useTranslation(STAFF_NS);
  const me = useStaffMe();
  const navigate = useNavigate();
  const signOut = useSignOut();
  const links = [
    // Every role reads all four; what a support member may not change is not offered on the pages.
    { to: '/staff/customers', label: t('nav.customers') },
    { to: '/staff/nodes', label: t('nav.nodes') },
    { to: '/staff/jobs', label: t('nav.jobs') },
    { to: '/staff/audit', label: t('nav.audit') },
    // The member's own passkeys (issue 23): the second step of this sign-in.
    { to: '/staff/passkeys', label: t('nav.passkeys') },
  ];
  return (
    <>
      <nav className={classes.nav} aria-label={t('nav.label')}>
        {links.map((l) => (
          <NavLink key={l.to} to={l.to} className={classes.navLink}>
            {l.label}
          </NavLink>
        ))}
        <Group gap="xs" wrap="nowrap" className={classes.who}>
          <div className={classes.whoText}>
            <Text size="xs" fw={600} truncate="end" title={me.email} data-testid="staff-me">
              {me.email}{' '}
              <Badge
                size="xs"
                variant="light"
                color={me.role === 'admin' ? 'red' : 'blue'}
                radius="sm"
                component="span"
              >
                {t(`roles.${me.role}`)}
              </Badge>
            </Text>
            <Text size="xs" c="dimmed">
              {t('nav.sessionEnds', { when: formatWhen(me.expiresAt, i18n.language) })}
            </Text>
          </div>
          <Button
            variant="default"
            size="compact-sm"
            style={{ flex: 'none' }}
            loading={signOut.isPending}
            onClick={() =>
              signOut.mutate(undefined, {
                onSettled: () => {
                  rememberSession(false);
                  navigate(STAFF_SIGN_IN, { replace: true });
                },
              })
            }
          >
            {t('nav.signOut')}
          </Button>
        </Group>
      </nav>
      <main id="main-content" className={classes.main} tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
