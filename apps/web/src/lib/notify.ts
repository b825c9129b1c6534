import { notifications } from '@mantine/notifications';
import i18next from 'i18next';
import { SNACKBAR_MS } from '@warren/contract';

export type SnackKind = 'error' | 'success' | 'info';

const COLORS: Record<SnackKind, string> = { error: 'red', success: 'teal', info: 'brand' };

/** The app's snackbar: a Mantine notification with a close button, 3 s unless told. */
export function snackbar(message: string, opts: { kind?: SnackKind; ms?: number; id?: string } = {}): void {
  const kind = opts.kind ?? 'error';
  notifications.show({
    id: opts.id,
    message,
    color: COLORS[kind],
    autoClose: opts.ms ?? SNACKBAR_MS.httpError,
    withCloseButton: true,
    // The close control is an icon: its name comes from the label (spec section 8: a Close button).
    closeButtonProps: { 'aria-label': i18next.t('notify.close', { defaultValue: 'Close' }) },
    withBorder: true,
  });
}
