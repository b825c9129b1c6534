import { type OpenVpnConfigQuery, ovpnFileName } from '@warren/contract';
import { fetchOvpn } from '../api/services';

/** Downloads one .ovpn through the API and saves it under the name the API gives it. */
export async function downloadOvpn(q: OpenVpnConfigQuery, langCode: string): Promise<void> {
  const text = await fetchOvpn(q, langCode);
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-openvpn-profile' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = ovpnFileName(q.location, q.protocol, q.variant);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Steps of each router guide, by firmware: the count of `services.router.<id>.steps.N` keys. */
export const ROUTER_STEPS = {
  openwrt: 5,
  'dd-wrt': 5,
  pfsense: 5,
  'asus-merlin': 4,
  keenetic: 4,
  mikrotik: 4,
} as const;
