import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  RESTRICTED_PATHS,
  type OpenVpnConfigQuery,
  type ServiceCredentials,
  type ServicesOverview,
  serviceCredentials,
  servicesOverview,
  envelope,
} from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/**
 * GET setup/services/get: service credentials, locations with their hosts and ports, SOCKS5
 * availability (setup/services/restrictedGet on a restricted host: the password only encrypted).
 */
export async function getServices(langCode: string): Promise<ServicesOverview> {
  const body = usesRestrictedCalls()
    ? await restrictedPost(RESTRICTED_PATHS.services, { langCode }, {}, { withToken: true })
    : await api.get('setup/services/get', { searchParams: { langCode } }).json();
  return envelope(servicesOverview).parse(body).data;
}

export const servicesQuery = (langCode: string) =>
  queryOptions({ queryKey: ['setup', 'services', langCode], queryFn: () => getServices(langCode), staleTime: 30_000 });

export function useServices(langCode: string) {
  return useQuery(servicesQuery(langCode));
}

/** POST setup/services/credentials/reset: a new password; the old one stops working on every server within seconds. */
export async function resetCredentials(): Promise<ServiceCredentials> {
  const body = usesRestrictedCalls()
    ? await restrictedPost(RESTRICTED_PATHS.resetServiceCredentials, {}, {}, { withToken: true })
    : await api.post('setup/services/credentials/reset').json();
  return envelope(serviceCredentials).parse(body).data;
}

export function useResetCredentials() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: resetCredentials,
    onSettled: () => qc.invalidateQueries({ queryKey: ['setup', 'services'] }),
  });
}

/** GET setup/openvpn/config: the .ovpn text (the bearer token rides along, so no plain link); restrictedConfig on a restricted host. */
export async function fetchOvpn(q: OpenVpnConfigQuery, langCode: string): Promise<string> {
  if (usesRestrictedCalls()) {
    return (
      await restrictedPost<{ data: { text: string } }>(
        RESTRICTED_PATHS.openvpnConfig,
        { ...q, langCode },
        {},
        { withToken: true },
      )
    ).data.text;
  }
  return api.get('setup/openvpn/config', { searchParams: { ...q, langCode } }).text();
}
