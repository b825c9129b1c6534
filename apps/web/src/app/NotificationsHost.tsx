import '@mantine/core/styles/Notification.layer.css';
import '@mantine/notifications/styles.layer.css';
import { Notifications } from '@mantine/notifications';
import classes from './NotificationsHost.module.css';

/** Loaded with the first snackbar, not with the first screen (see providers.tsx); under the header (the CSS module says why). */
export default function NotificationsHost() {
  return <Notifications position="top-center" limit={3} zIndex={1000} classNames={{ root: classes.root }} />;
}
