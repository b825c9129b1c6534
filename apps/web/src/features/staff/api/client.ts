import { createApiClient } from '../../../lib/api-client';
import { navigateTo } from '../../../lib/navigation';

export const STAFF_SIGN_IN = '/staff/sign-in';

/** This tab had a console session: a later 401 means it ended (expired), not that there never was one. */
let hadSession = false;
export function rememberSession(on: boolean): void {
  hadSession = on;
}
export function hadStaffSession(): boolean {
  return hadSession;
}

/** Where an ended session sends the operator: the sign-in, saying why, then back to the page they were on. */
export function signInAfterExpiry(current: string = window.location.pathname + window.location.search): string {
  const next =
    current.startsWith('/staff/') && !current.startsWith(STAFF_SIGN_IN) ? `&next=${encodeURIComponent(current)}` : '';
  return `${STAFF_SIGN_IN}?expired=1${next}`;
}

/**
 * The console's own client: /api/staff/*, the staff session in its HttpOnly cookie (Path=/api/staff),
 * the XSRF header like every state-changing call, and never the customer's bearer token. A 401 means
 * the short staff session ended: back to the staff sign-in with a message.
 */
export const staffApi = createApiClient(
  { prefixUrl: '/api/staff' },
  { bearer: false, onUnauthorized: () => navigateTo(signInAfterExpiry(), { replace: true }) },
);

/** Query keys of the console start here: signing out drops them all. */
export const STAFF_KEY = 'staff';
