import { queryOptions, useQuery } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { RESTRICTED_PATHS, type StealthOverview, envelope, stealthOverview } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** What the page shows: the overview, or the upgrade prompt (the API answers 403 to a plan without stealth). */
export type StealthState = { kind: 'ready'; overview: StealthOverview } | { kind: 'upgrade' };

/** GET setup/stealth/get: the subscription URL and the share links of the offered locations. */
export async function getStealth(langCode: string): Promise<StealthState> {
  try {
    // A restricted host reads the subscription URL encrypted (setup/stealth/restrictedGet).
    const body = usesRestrictedCalls()
      ? await restrictedPost(RESTRICTED_PATHS.stealth, { langCode }, {}, { withToken: true })
      : await api.get('setup/stealth/get', { searchParams: { langCode } }).json();
    return { kind: 'ready', overview: envelope(stealthOverview).parse(body).data };
  } catch (err) {
    if (err instanceof HTTPError && err.response.status === 403) return { kind: 'upgrade' };
    throw err;
  }
}

/**
 * `paid`: what the signed-in user's plan says (the contract's access rule). Without it the page
 * shows the upgrade prompt without asking: a 403 in the browser's console on every visit of a free
 * user is noise (and the console test's failure). A plan that lapsed since the user was read still
 * gets the API's 403, which also means the upgrade prompt.
 */
export const stealthQuery = (langCode: string, paid: boolean) =>
  queryOptions({
    queryKey: ['setup', 'stealth', langCode, paid],
    queryFn: (): Promise<StealthState> => (paid ? getStealth(langCode) : Promise.resolve({ kind: 'upgrade' })),
    staleTime: 30_000,
  });

export function useStealth(langCode: string, paid: boolean) {
  return useQuery(stealthQuery(langCode, paid));
}
