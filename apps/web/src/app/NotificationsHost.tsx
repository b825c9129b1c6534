import '@mantine/core/styles/Notification.layer.css';
import '@mantine/notifications/styles.layer.css';
import { Notifications } from '@mantine/notifications';

/**
 * Below the signed-in header (its height, with the offer banner, is AppShell's variable on :root),
 * so a snackbar never covers the page title and plan line; signed-out pages have no header.
 */
const BELOW_HEADER = { root: { top: 'calc(var(--app-shell-header-height, 0px) + var(--mantine-spacing-sm))' } } as const;

/** Loaded with the first snackbar, not with the first screen (see providers.tsx). */
export default function NotificationsHost() {
  return <Notifications position="top-center" limit={3} zIndex={1000} styles={BELOW_HEADER} />;
}
