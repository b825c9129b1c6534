import { CAMPAIGN_COOKIE_DAYS, COOKIES, STORAGE_KEYS } from '@warren/contract';
import { getCookie, setCookie } from './cookies';
import { storage } from './storage';

/** Marketing ids captured earlier (checkout entry, landing pages) that a sign-up carries along. */
export function collectAttribution(): Record<string, string> {
  const out: Record<string, string | null> = {
    referralID: storage.get(STORAGE_KEYS.referralID),
    friendID: storage.get(STORAGE_KEYS.friendID),
    clickID: storage.get(STORAGE_KEYS.clickID),
    vcommID: storage.get(STORAGE_KEYS.vcommID),
    myLeadID: storage.get(STORAGE_KEYS.myleadID),
    papReferralID: storage.get(STORAGE_KEYS.papReferralID),
    voluumID: storage.get(STORAGE_KEYS.voluumID) ?? getCookie(COOKIES.voluumCid),
    utmSource: getCookie(COOKIES.utmSource),
    utmMedium: getCookie(COOKIES.utmMedium),
    utmCampaign: getCookie(COOKIES.utmCampaign),
    referrer: getCookie(COOKIES.referrer),
  };
  return Object.fromEntries(
    Object.entries(out)
      .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== '')
      .map(([k, v]) => [k, v.trim().slice(0, k === 'referrer' ? 2048 : 200)]),
  );
}

const ID_PATTERN = /^[\w.:@-]{1,200}$/;

/**
 * Checkout entry (spec section 3): referralID, a_aid (as papReferralID), friendID, vcommID,
 * myleadID go to localStorage; voluum_id to localStorage voluumID and the vl-cid cookie (365 days).
 * `t` is handled by the session at start-up.
 */
export function captureCheckoutParams(search: URLSearchParams): void {
  const pairs: Array<[string, (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS]]> = [
    ['referralID', STORAGE_KEYS.referralID],
    ['a_aid', STORAGE_KEYS.papReferralID],
    ['friendID', STORAGE_KEYS.friendID],
    ['vcommID', STORAGE_KEYS.vcommID],
    ['myleadID', STORAGE_KEYS.myleadID],
    ['voluum_id', STORAGE_KEYS.voluumID],
  ];
  for (const [param, key] of pairs) {
    const value = search.get(param)?.trim();
    if (value && ID_PATTERN.test(value)) storage.set(key, value);
  }
  const voluum = search.get('voluum_id')?.trim();
  if (voluum && ID_PATTERN.test(voluum)) setCookie(COOKIES.voluumCid, voluum, CAMPAIGN_COOKIE_DAYS);
}
