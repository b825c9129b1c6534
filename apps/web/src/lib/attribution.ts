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
const UTM_PATTERN = /^[^\u0000-\u001f<>"']{1,200}$/;

/**
 * Checkout entry (spec section 3): referralID, a_aid (as papReferralID), friendID, vcommID,
 * myleadID go to localStorage; voluum_id to localStorage voluumID and the vl-cid cookie; a_aid
 * also to its cookie; referralID to the ref cookie; utm_source / utm_medium / utm_campaign to
 * their cookies and the referring site (first touch) to the referrer cookie, all for 365 days.
 * `t` is handled by the session at start-up. Returns the referralID seen, if any.
 */
export function captureCheckoutParams(search: URLSearchParams, documentReferrer = '', ownOrigin = ''): string | null {
  const pairs: Array<[string, (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS]]> = [
    ['referralID', STORAGE_KEYS.referralID],
    ['a_aid', STORAGE_KEYS.papReferralID],
    ['friendID', STORAGE_KEYS.friendID],
    ['vcommID', STORAGE_KEYS.vcommID],
    ['myleadID', STORAGE_KEYS.myleadID],
    ['voluum_id', STORAGE_KEYS.voluumID],
  ];
  const valid = (param: string) => {
    const value = search.get(param)?.trim();
    return value && ID_PATTERN.test(value) ? value : null;
  };
  for (const [param, key] of pairs) {
    const value = valid(param);
    if (value) storage.set(key, value);
  }
  const cookies: Array<[string, string]> = [
    ['voluum_id', COOKIES.voluumCid],
    ['a_aid', COOKIES.papAffiliateId],
    ['referralID', COOKIES.ref],
  ];
  for (const [param, cookie] of cookies) {
    const value = valid(param);
    if (value) setCookie(cookie, value, CAMPAIGN_COOKIE_DAYS);
  }
  const utm: Array<[string, string]> = [
    ['utm_source', COOKIES.utmSource],
    ['utm_medium', COOKIES.utmMedium],
    ['utm_campaign', COOKIES.utmCampaign],
  ];
  for (const [param, cookie] of utm) {
    const value = search.get(param)?.trim();
    if (value && UTM_PATTERN.test(value)) setCookie(cookie, value, CAMPAIGN_COOKIE_DAYS);
  }
  const referrer = externalReferrer(documentReferrer, ownOrigin);
  if (referrer && !getCookie(COOKIES.referrer)) setCookie(COOKIES.referrer, referrer, CAMPAIGN_COOKIE_DAYS);
  return valid('referralID');
}

/** The referring page when it is another site (http/https only, at most 2048 characters). */
export function externalReferrer(referrer: string, ownOrigin: string): string | null {
  if (!referrer) return null;
  try {
    const url = new URL(referrer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (ownOrigin && url.origin === ownOrigin) return null;
    return url.href.slice(0, 2048);
  } catch {
    return null;
  }
}
