import { hmac, randomToken, safeEqual } from '../../lib/secrets.js';

/** How long a browser stays known after its last successful console sign-in. */
export const STAFF_DEVICE_DAYS = 30;
const DEVICE_MS = STAFF_DEVICE_DAYS * 86_400_000;

/**
 * A browser the account signed in to the console from before: a signed cookie issued at each
 * successful sign-in (device id, time, and an HMAC over both and the account's email). It proves
 * nothing about who is at the keyboard (the password and code are still checked); it only lets the
 * owner's own browser spend its own sign-in budget instead of the account's, which strangers can
 * use up (GitHub's and Proton's device recognition). Bound to the email, so a cookie of one
 * account (the attacker's own) buys nothing against another; unforgeable without APP_SECRET.
 */
export function staffDevices(appSecrets: readonly string[]) {
  // APP_SECRET signs; the replaced ones (APP_SECRET_PREVIOUS) still verify, so a rotation does not make every browser a stranger.
  const keys = appSecrets.map((secret) => hmac(secret, 'warren staff device v1'));
  const mac = (email: string, id: string, at: string, key = keys[0]!) =>
    hmac(key, `${email.toLowerCase()}|${id}|${at}`);
  return {
    issue(email: string, now: Date, id = randomToken(12)): string {
      const at = String(now.getTime());
      return `${id}.${at}.${mac(email, id, at)}`;
    },
    /** The device id of a cookie issued to this email and not yet expired; undefined for anything else. */
    verify(cookie: string | undefined, email: string, now: Date): string | undefined {
      if (!cookie || cookie.length > 200) return undefined;
      const [id, at, sig, extra] = cookie.split('.');
      if (!id || !at || !sig || extra !== undefined || !/^\d{1,15}$/.test(at)) return undefined;
      const age = now.getTime() - Number(at);
      // A minute of clock skew between instances is allowed.
      if (age < -60_000 || age > DEVICE_MS) return undefined;
      return keys.some((key) => safeEqual(sig, mac(email, id, at, key))) ? id : undefined;
    },
  };
}
