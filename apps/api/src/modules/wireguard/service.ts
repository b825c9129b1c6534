import {
  type Language,
  type VpnAccess,
  type WgDevice,
  type WgLocation,
  type WgOverview,
  mayUseLocation,
  offeredWgPorts,
} from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { VpnConfig } from '../../config.js';
import { accessOf, localName } from '../locations/service.js';
import { countryPosition } from '../locations/country-positions.js';
import { recommendedLocation } from '../locations/recommend.js';
import type { LocationsRepository } from '../locations/repository.js';
import type { UserRow } from '../users/index.js';
import { addressesOf } from './addresses.js';
import { roomVerdict } from './room.js';
import { type DeviceRow, wireguardRepository } from './repository.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Every server of the location the customer starts a device on is at its WireGuard peer limit
 * (issue 22): 409 with a `location` field error, which the web app says in the customer's language.
 */
export class LocationFullError extends ConflictError {
  constructor(readonly place: string | null) {
    const message = place
      ? `Every ${place} server is full right now. Please pick another location.`
      : 'Every server your plan reaches is full right now. Please try again later.';
    super(message, { location: [message] });
  }
}
const MAX_ALLOCATION_ATTEMPTS = 100;

export function deviceLimitOf(access: VpnAccess, vpn: VpnConfig): number {
  return access === 'paid' ? vpn.deviceLimit.paid : vpn.deviceLimit.free;
}

export interface WireguardServiceDeps {
  db: Database;
  vpn: VpnConfig;
  locationsRepo: LocationsRepository;
  /** Whether the brand the request came from offers the WireGuard section. */
  /** Called after a change committed, so waiting agents wake without waiting for the poll tick. */
  changed: () => void;
}

export function wireguardService({ db, vpn, locationsRepo, changed }: WireguardServiceDeps) {
  const repo = wireguardRepository(db);
  const toDto = (d: DeviceRow, lang: Language = 'en'): WgDevice => {
    const a = addressesOf(d.addr_index, vpn.pools);
    const leaving = typeof d.leaving === 'string' ? (JSON.parse(d.leaving) as DeviceRow['leaving']) : d.leaving;
    return {
      id: d.id,
      name: d.name,
      publicKey: d.public_key,
      ipv4: a.ipv4,
      ipv6: a.ipv6,
      createdAt: iso(d.created_at)!,
      lastHandshakeAt: iso(d.last_handshake_at),
      rxBytes: Number(d.rx_bytes),
      txBytes: Number(d.tx_bytes),
      keyLifetimeDays: d.key_lifetime_days ?? null,
      keyExpiresAt: iso(d.key_expires_at ?? null),
      serverRetiring: leaving
        ? {
            country: leaving[`country_${lang}`] || leaving.country_en,
            city: leaving[`city_${lang}`] || leaving.city_en,
            why: leaving.why,
          }
        : null,
    };
  };

  return {
    /**
     * The devices, limit and locations; `country` (the request's, from its address) picks the
     * recommended location. With `port` (issue 23), only the locations that take that port are
     * available, their endpoints on it; a port no location offers is a 422 (`port`).
     */
    async overview(user: UserRow, lang: Language, country: string, port?: number): Promise<WgOverview> {
      const access = accessOf(user);
      const [devices, locations] = await Promise.all([
        repo.listOf(user.id),
        locationsRepo.listWithNodes(vpn.nodeOnlineSeconds, true),
      ]);
      const portsOf = (l: (typeof locations)[number]) =>
        l.best_node_port === null ? [] : offeredWgPorts(l.best_node_port, l.wg_extra_ports ?? []);
      const reachable = (l: (typeof locations)[number]) =>
        mayUseLocation(access, l.premium) && l.best_node_key !== null;
      if (port !== undefined && !locations.some((l) => reachable(l) && portsOf(l).includes(port))) {
        const offered = [...new Set(locations.filter(reachable).flatMap(portsOf))].sort((a, b) => a - b);
        throw new ValidationError({
          port: [
            offered.length
              ? `No location takes port ${port}. Choose one of ${offered.join(', ')}.`
              : `No location takes port ${port}.`,
          ],
        });
      }
      const usable = (l: (typeof locations)[number]) =>
        reachable(l) && (port === undefined || portsOf(l).includes(port));
      const recommended = recommendedLocation(
        countryPosition(country),
        locations.map((l) => ({
          slug: l.slug,
          latitude: l.latitude,
          longitude: l.longitude,
          load: l.load,
          available: usable(l),
        })),
      );
      return {
        access,
        recommended: recommended?.slug ?? null,
        devices: devices.map((d) => toDto(d, lang)),
        limit: deviceLimitOf(access, vpn),
        dns: vpn.dns,
        allowedIps: vpn.allowedIps,
        locations: locations.map((l): WgLocation => {
          const available = usable(l);
          const host = l.best_node_host?.includes(':') ? `[${l.best_node_host}]` : l.best_node_host;
          return {
            id: l.id,
            slug: l.slug,
            countryCode: l.country_code,
            ...localName(l, lang),
            premium: l.premium,
            available,
            endpoint: available ? `${host}:${port ?? l.best_node_port}` : null,
            publicKey: available ? l.best_node_key : null,
            ports: available ? portsOf(l) : [],
            unavailable: l.unavailable ?? (l.wg_full ? 'full' : null),
          };
        }),
      };
    },

    /**
     * Registers the browser-made public key and allocates the device's addresses. A new device is
     * never given to a full node (issue 22): configurations name a node of the location with room;
     * `location` (the one the customer starts on) must have one, and without it some location the
     * plan reaches must. Fullness is what the agents last reported: VPN_NODE_HIGH_WATER_PERCENT
     * leaves room for the devices added between two reports.
     */
    async add(user: UserRow, name: string, publicKey: string, location?: string): Promise<WgDevice> {
      const access = accessOf(user);
      if (access === 'none') throw new ForbiddenError('Activate your account or renew your plan to add a device.');
      await ensureRoom(access, location);
      const limit = deviceLimitOf(access, vpn);
      const row = await db
        .transaction(async (tx) => {
          const r = wireguardRepository(tx);
          await r.lockUser(user.id);
          if ((await r.countOf(user.id)) >= limit) {
            throw new ConflictError(
              `Your plan allows ${limit} device${limit === 1 ? '' : 's'}. Revoke one to add another.`,
              {
                publicKey: ['Device limit reached.'],
              },
            );
          }
          if (await r.keyTaken(publicKey))
            throw new ValidationError({ publicKey: ['This key is already registered. Generate a new one.'] });
          return allocate(r, user.id, name, publicKey);
        })
        .catch((err: unknown) => {
          // A parallel request registered the same key between our check and our insert.
          if ((err as { code?: string }).code === '23505')
            throw new ValidationError({ publicKey: ['This key is already registered. Generate a new one.'] });
          throw err;
        });
      changed();
      return toDto(row);
    },

    async rename(user: UserRow, id: number, name: string): Promise<void> {
      if (!(await repo.rename(user.id, id, name))) throw new NotFoundError('Device not found.');
    },

    /**
     * A new key for one of the user's devices (issue 23), made in the browser: same name and
     * addresses, a new lifetime from now; the nodes drop the old key and take the new one (the
     * change log). `previousKey` is the key the browser saw: of two rotations at once one wins and
     * the other gets 409; the same rotation again (the device already has `publicKey`) answers the
     * device as it is. Works on an expired key: that is how a device comes back.
     */
    async rotate(user: UserRow, id: number, previousKey: string, publicKey: string): Promise<WgDevice> {
      const row = await db
        .transaction(async (tx) => {
          const r = wireguardRepository(tx);
          const current = await r.lockDevice(user.id, id);
          if (!current) throw new NotFoundError('Device not found.');
          if (current.public_key === publicKey) return { row: current, changed: false };
          if (current.public_key !== previousKey)
            throw new ConflictError('This device got a new key meanwhile. Reload the page and try again.', {
              previousKey: ['This is no longer the device’s key.'],
            });
          if (await r.keyTaken(publicKey))
            throw new ValidationError({ publicKey: ['This key is already registered. Generate a new one.'] });
          return { row: (await r.rotate(user.id, id, publicKey))!, changed: true };
        })
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === '23505')
            throw new ValidationError({ publicKey: ['This key is already registered. Generate a new one.'] });
          throw err;
        });
      if (row.changed) changed();
      return toDto(row.row);
    },

    /**
     * The key's lifetime: null never expires, 1-30 days start now. An expired key keeps its end
     * (409): only a rotation brings the device back, never a longer life for the key that ran out.
     */
    async setLifetime(user: UserRow, id: number, days: number | null): Promise<WgDevice> {
      const row = await db.transaction(async (tx) => {
        const r = wireguardRepository(tx);
        const current = await r.lockDevice(user.id, id);
        if (!current) throw new NotFoundError('Device not found.');
        if (current.expired)
          throw new ConflictError('This key has expired. Rotate it to use the device again.', {
            days: ['This key has expired. Rotate it to use the device again.'],
          });
        return (await r.setLifetime(user.id, id, days))!;
      });
      changed();
      return toDto(row);
    },

    async revoke(user: UserRow, id: number): Promise<void> {
      if (!(await repo.remove(user.id, id))) throw new NotFoundError('Device not found.');
      changed();
    },
  };

  /** The start location (or, without one, some location the plan reaches) must have a node below its limit (room.ts). */
  async function ensureRoom(access: VpnAccess, location: string | undefined): Promise<void> {
    const verdict = roomVerdict(await locationsRepo.wireguardRoom(location ?? null), access, location);
    if (verdict.ok) return;
    if (verdict.why === 'unknown-location') throw new ValidationError({ location: ['Unknown location.'] });
    throw new LocationFullError(verdict.place);
  }

  async function allocate(
    r: ReturnType<typeof wireguardRepository>,
    userId: number,
    name: string,
    publicKey: string,
  ): Promise<DeviceRow> {
    for (let attempt = 0; attempt < MAX_ALLOCATION_ATTEMPTS; attempt++) {
      const index = await r.takeFreeIndex();
      if (index > vpn.pools.maxIndex) throw new ConflictError('No addresses left in the pool. Please contact support.');
      const row = await r.insertAt(userId, name, publicKey, index);
      if (row) return row;
    }
    throw new ConflictError('Too many devices are being added right now. Please try again.');
  }
}
export type WireguardService = ReturnType<typeof wireguardService>;
