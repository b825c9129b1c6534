import { COOKIES } from './constants.js';

// Marketing ids from a checkout entry's address (spec section 3), as cookies: the server sets them
// with its answer to the entry page (apps/api/src/plugins/spa.ts), so a visitor who leaves before
// the app has loaded is still attributed (issue 23: they were stored 0.4-0.75 s after the page
// loaded); the app stores the same ids again when it runs (apps/web/src/lib/attribution.ts).

/** An id's shape: letters, digits and `_ . : @ -`, at most 200. */
export const ATTRIBUTION_ID_PATTERN = /^[\w.:@-]{1,200}$/;
/** A campaign word: no control characters, no `< > " '`, at most 200. */
export const UTM_PATTERN = /^[^\u0000-\u001f<>"']{1,200}$/;

/** Query parameter → the cookie that keeps it. */
export const ENTRY_ID_COOKIES: ReadonlyArray<readonly [string, string]> = [
  ['referralID', COOKIES.ref],
  ['a_aid', COOKIES.papAffiliateId],
  ['friendID', COOKIES.friendID],
  ['vcommID', COOKIES.vcommID],
  ['myleadID', COOKIES.myleadID],
  ['voluum_id', COOKIES.voluumCid],
  ['clickID', COOKIES.clickID],
];
export const ENTRY_UTM_COOKIES: ReadonlyArray<readonly [string, string]> = [
  ['utm_source', COOKIES.utmSource],
  ['utm_medium', COOKIES.utmMedium],
  ['utm_campaign', COOKIES.utmCampaign],
];

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

/**
 * The cookies a checkout entry keeps, as [name, value] (values as given; the writer encodes them):
 * each valid id and campaign word of the address, and the referring site when it is another one
 * and none was kept before (first touch). Invalid values are left out.
 */
export function entryAttribution(
  search: URLSearchParams,
  referrer: string,
  ownOrigin: string,
  hasReferrer: boolean,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [param, cookie] of ENTRY_ID_COOKIES) {
    const value = search.get(param)?.trim();
    if (value && ATTRIBUTION_ID_PATTERN.test(value)) out.push([cookie, value]);
  }
  for (const [param, cookie] of ENTRY_UTM_COOKIES) {
    const value = search.get(param)?.trim();
    if (value && UTM_PATTERN.test(value)) out.push([cookie, value]);
  }
  const ref = hasReferrer ? null : externalReferrer(referrer, ownOrigin);
  if (ref) out.push([COOKIES.referrer, ref]);
  return out;
}
