import { queryOptions, useQuery } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { type StealthOverview, envelope, stealthOverview } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** What the page shows: the overview, or the upgrade prompt (the API answers 403 to a plan without stealth). */
export type StealthState = { kind: 'ready'; overview: StealthOverview } | { kind: 'upgrade' };

/** GET setup/stealth/get: the subscription URL and the share links of the offered locations. */
export async function getStealth(langCode: string): Promise<StealthState> {
  try {
    const body = await api.get('setup/stealth/get', { searchParams: { langCode } }).json();
    return { kind: 'ready', overview: envelope(stealthOverview).parse(body).data };
  } catch (err) {
    if (err instanceof HTTPError && err.response.status === 403) return { kind: 'upgrade' };
    throw err;
  }
}

export const stealthQuery = (langCode: string) => queryOptions({ queryKey: ['setup', 'stealth', langCode], queryFn: () => getStealth(langCode), staleTime: 30_000 });

export function useStealth(langCode: string) {
  return useQuery(stealthQuery(langCode));
}
