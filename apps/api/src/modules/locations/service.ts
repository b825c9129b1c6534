import { type DownloadApp, type Language, type ServerListItem, mayUseLocation, vpnAccess } from '@warren/contract';
import type { Database } from '../../db/client.js';
import type { UserRow } from '../users/index.js';
import type { VpnConfig } from '../../config.js';
import { type LocationWithNodes, locationsRepository } from './repository.js';
import { OPERATION_SYSTEMS } from './catalogue.js';

export const accessOf = (u: UserRow, now: Date | number = Date.now()) =>
  vpnAccess(
    {
      accountStatus: u.account_status,
      tariffKey: u.tariff_key,
      subscriptionExpiresAt: u.subscription_expires_at,
      deletedAt: u.deleted_at,
    },
    now,
  );

export const localName = (l: LocationWithNodes, lang: Language) => ({
  country: l[`country_${lang}`] || l.country_en,
  city: l[`city_${lang}`] || l.city_en,
});

export function locationsService({ db, vpn, downloads }: { db: Database; vpn: VpnConfig; downloads: DownloadApp[] }) {
  const repo = locationsRepository(db, { offerUnreported: vpn.demoNodes, highWaterPercent: vpn.highWaterPercent });
  return {
    repo,
    /** Visible locations in the user's language; premium ones first, blurred for a user whose plan does not reach them. */
    async serverList(user: UserRow, lang: Language): Promise<ServerListItem[]> {
      const access = accessOf(user);
      const rows = await repo.listWithNodes(vpn.nodeOnlineSeconds, true);
      const items = rows.map((l) => ({
        id: l.id,
        countryCode: l.country_code,
        ...localName(l, lang),
        latitude: l.latitude,
        longitude: l.longitude,
        premium: l.premium,
        dashVisible: l.dash_visible,
        isBlur: !mayUseLocation(access, l.premium),
        load: l.load,
        online: l.online,
        unavailable: l.unavailable,
      }));
      const collator = new Intl.Collator(lang);
      return items.sort(
        (a, b) =>
          Number(b.isBlur) - Number(a.isBlur) ||
          Number(b.premium) - Number(a.premium) ||
          collator.compare(a.country, b.country) ||
          collator.compare(a.city, b.city),
      );
    },
    downloads: () => downloads,
    operationSystems: () => OPERATION_SYSTEMS,
  };
}
export type LocationsService = ReturnType<typeof locationsService>;
