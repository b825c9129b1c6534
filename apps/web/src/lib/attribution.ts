import { COOKIES, STORAGE_KEYS } from '@warren/contract';
import { getCookie } from './cookies';
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
