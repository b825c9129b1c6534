import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type OpenVpnConfigQuery, type ServiceCredentials, type ServicesOverview, serviceCredentials, servicesOverview, envelope } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET setup/services/get: service credentials, locations with their hosts and ports, SOCKS5 availability. */
export async function getServices(langCode: string): Promise<ServicesOverview> {
  const body = await api.get('setup/services/get', { searchParams: { langCode } }).json();
  return envelope(servicesOverview).parse(body).data;
}

export const servicesQuery = (langCode: string) => queryOptions({ queryKey: ['setup', 'services', langCode], queryFn: () => getServices(langCode), staleTime: 30_000 });

export function useServices(langCode: string) {
  return useQuery(servicesQuery(langCode));
}

/** POST setup/services/credentials/reset: a new password; the old one stops working on every server within seconds. */
export async function resetCredentials(): Promise<ServiceCredentials> {
  const body = await api.post('setup/services/credentials/reset').json();
  return envelope(serviceCredentials).parse(body).data;
}

export function useResetCredentials() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: resetCredentials, onSettled: () => qc.invalidateQueries({ queryKey: ['setup', 'services'] }) });
}

/** GET setup/openvpn/config: the .ovpn text (the bearer token rides along, so no plain link). */
export async function fetchOvpn(q: OpenVpnConfigQuery, langCode: string): Promise<string> {
  return api.get('setup/openvpn/config', { searchParams: { ...q, langCode } }).text();
}
