import {
  ATTRIBUTION_ID_PATTERN,
  CAMPAIGN_COOKIE_DAYS,
  COOKIES,
  ENTRY_ID_COOKIES,
  STORAGE_KEYS,
  UTM_PATTERN,
  externalReferrer,
} from '@warren/contract';
import { getBrand } from './brand';
import { getCookie, setCookie } from './cookies';
import { storage } from './storage';

const ID_PATTERN = ATTRIBUTION_ID_PATTERN;

export { externalReferrer };

/** Brand script kinds that set Google Analytics' client-id cookies. */
const ANALYTICS_KINDS = new Set(['analytics', 'tag-manager', 'web-analytics']);

/**
 * The analytics client ids a sign-in, sign-up and verification carry (spec section 3, cid and
 * cid4), read only where the brand runs analytics: `cid` is the client id of the `_ga` cookie
 * (`GA1.1.<random>.<first visit>` → `<random>.<first visit>`), `cid4` the session id of the
 * GA4 property cookie (`_ga_<ID>`: `GS1.1.<session>.…`, or `GS2.1.s<session>$…`).
 */
export function analyticsIds(
  scriptKinds: readonly string[],
  cookieHeader = typeof document === 'undefined' ? '' : document.cookie,
): { cid?: string; cid4?: string } {
  if (!scriptKinds.some((k) => ANALYTICS_KINDS.has(k))) return {};
  const cookies = new Map<string, string>();
  for (const part of cookieHeader.split(';')) {
    const i = part.indexOf('=');
    if (i > 0) cookies.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  const out: { cid?: string; cid4?: string } = {};
  const ga = /^GA\d\.\d+\.(\d{1,20}\.\d{1,20})$/.exec(cookies.get('_ga') ?? '');
  if (ga) out.cid = ga[1];
  for (const [name, value] of cookies) {
    if (!/^_ga_[A-Z0-9]{4,20}$/.test(name)) continue;
    const session = /^GS\d\.\d+\.s?(\d{6,20})/.exec(value);
    if (session) {
      out.cid4 = session[1];
      break;
    }
  }
  return out;
}

/** The current brand's analytics client ids (none where it runs no analytics). */
const clientIds = () => analyticsIds(getBrand().scripts.map((s) => s.kind));

/** Login payload's optional ids (spec section 7): cid, cid4, voluumID. */
export function loginAttribution(): { cid?: string; cid4?: string; voluumID?: string } {
  const voluumID = storage.get(STORAGE_KEYS.voluumID) ?? getCookie(COOKIES.voluumCid) ?? undefined;
  return { ...clientIds(), ...(voluumID && ID_PATTERN.test(voluumID) ? { voluumID } : {}) };
}

/** verifyUser's optional ids (spec section 7): cid, clickID, cid4. */
export function verifyAttribution(): { cid?: string; cid4?: string; clickID?: string } {
  const clickID = storage.get(STORAGE_KEYS.clickID) ?? getCookie(COOKIES.clickID);
  return { ...clientIds(), ...(clickID && ID_PATTERN.test(clickID) ? { clickID } : {}) };
}

/** Marketing ids captured earlier (checkout entry, landing pages) that a sign-up carries along. */
export function collectAttribution(): Record<string, string> {
  const out: Record<string, string | null | undefined> = {
    ...clientIds(),
    // Local storage, or the cookie the entry page's answer set before the app ran (a visitor who left at once).
    referralID: storage.get(STORAGE_KEYS.referralID) ?? getCookie(COOKIES.ref),
    friendID: storage.get(STORAGE_KEYS.friendID) ?? getCookie(COOKIES.friendID),
    clickID: storage.get(STORAGE_KEYS.clickID) ?? getCookie(COOKIES.clickID),
    vcommID: storage.get(STORAGE_KEYS.vcommID) ?? getCookie(COOKIES.vcommID),
    myLeadID: storage.get(STORAGE_KEYS.myleadID) ?? getCookie(COOKIES.myleadID),
    papReferralID: storage.get(STORAGE_KEYS.papReferralID) ?? getCookie(COOKIES.papAffiliateId),
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

/**
 * Checkout entry (spec section 3): referralID, a_aid (as papReferralID), friendID, vcommID,
 * myleadID and clickID go to localStorage; voluum_id to localStorage voluumID and the vl-cid cookie; a_aid
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
    // The tracker's click id: every conversion postback carries it back as {clickID}.
    ['clickID', STORAGE_KEYS.clickID],
  ];
  const valid = (param: string) => {
    const value = search.get(param)?.trim();
    return value && ID_PATTERN.test(value) ? value : null;
  };
  for (const [param, key] of pairs) {
    const value = valid(param);
    if (value) storage.set(key, value);
  }
  // The same cookies the server sets with its answer to the entry page (contract attribution.ts).
  for (const [param, cookie] of ENTRY_ID_COOKIES) {
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
