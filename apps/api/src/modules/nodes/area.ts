import type { Database } from '../../db/client.js';
import type { VpnConfig } from '../../config.js';
import type { Keyring } from '../../lib/keyring.js';
import { wireguardService } from '../wireguard/service.js';
import { type KeyRemindersDeps, keyReminders } from '../wireguard/key-reminders.js';
import { loadDownloads, loadLocationSeeds } from '../locations/catalogue.js';
import { locationsRepository } from '../locations/repository.js';
import { locationsService } from '../locations/service.js';
import { pkiStore } from '../openvpn-socks5/pki.js';
import { openvpnSocks5Service } from '../openvpn-socks5/service.js';
import { stealthKeys } from '../stealth/credentials.js';
import { loadStealthKey } from '../stealth/key.js';
import { stealthNodeSide } from '../stealth/nodes.js';
import {
  type NewLocation,
  type NewNode,
  addLocation,
  addNode,
  issueNodeToken,
  listNodes,
  setLocation,
  setNode,
  setLocationNodes,
} from './admin.js';
import { VPN_CHANGES_CHANNEL, nodesRepository } from './repository.js';
import { nodesService } from './service.js';
import { createChangeWatcher } from './watcher.js';

export interface VpnServicesDeps {
  db: Database;
  /** config.vpn. */
  vpn: VpnConfig;
  /** The key ring (lib/keyring.ts): OpenVPN keys and service passwords are sealed under OPENVPN_CA_SECRET, else APP_SECRET. */
  keys: Keyring;
  /** Where a failed read of the change log is reported. */
  log?: { warn: (obj: object, msg: string) => void };
  /** What the WireGuard key reminders mail with (issue 23): the mailer and the brand's origin and name. */
  mail?: Omit<KeyRemindersDeps, 'db'>;
}

/**
 * The VPN area's services, built once by the composition root: server locations and downloads,
 * WireGuard devices, the node API, OpenVPN/SOCKS5 services and the operator's actions. One change
 * watcher wakes this instance's long polls: devices and operator actions poke it after they commit.
 */
export function vpnServices({ db, vpn, keys, log, mail }: VpnServicesDeps) {
  const watcher = createChangeWatcher(
    () => nodesRepository(db).version(),
    vpn.changePollMs,
    (err) => log?.warn({ err }, 'reading the VPN change log failed'),
  );
  const locations = locationsService({ db, vpn, downloads: loadDownloads(vpn.downloadsFile) });
  const pki = pkiStore(db, keys);
  const stealthKeyring = stealthKeys(() => loadStealthKey(db, keys));
  const stealthNodes = stealthNodeSide(db, stealthKeyring);
  const nodes = nodesService({ db, vpn, watcher, stealth: stealthNodes });
  const poked = async <T>(p: Promise<T>): Promise<T> => {
    const result = await p;
    watcher.poke();
    return result;
  };

  return {
    watcher,
    locations,
    /** VPN_NODE_HIGH_WATER_PERCENT: the share of a node's WireGuard cap at which it takes no new device (the console shows it). */
    highWaterPercent: vpn.highWaterPercent,
    wireguard: wireguardService({ db, vpn, locationsRepo: locations.repo, changed: () => watcher.poke() }),
    /** The mail about a WireGuard key that expires within a day (the job engine runs it every minute); absent without a mailer. */
    wgKeyReminders: mail ? keyReminders({ db, ...mail }) : undefined,
    nodes,
    pki,
    /** The stealth credentials' key (stealth/credentials.ts) and the stealth module's node side (the console and metrics read its figures). */
    stealthKeys: stealthKeyring,
    stealthNodes,
    openvpnSocks5: openvpnSocks5Service({
      db,
      pki,
      keys,
      offerUnreported: vpn.demoNodes,
      published: () => nodes.publish(),
    }),
    /** Operator actions on locations and nodes (`npx warren vpn …`); node tokens are shown once. */
    admin: {
      addLocation: (input: NewLocation) => poked(addLocation(db, input)),
      addNode: (input: NewNode) => poked(addNode(db, input)),
      issueNodeToken: (name: string) => issueNodeToken(db, name),
      setLocation: (slug: string, patch: Parameters<typeof setLocation>[2]) => poked(setLocation(db, slug, patch)),
      setNode: (name: string, patch: Parameters<typeof setNode>[2]) => poked(setNode(db, name, patch)),
      setLocationNodes: (slug: string, enabled: boolean) => poked(setLocationNodes(db, slug, enabled)),
      list: () => listNodes(db),
    },
    /**
     * Wakes this instance's long polls when another instance (or SQL) changes the log: LISTEN on
     * the channel the change log's writer notifies (migration 0020). Polling stays as the fallback
     * (a lost connection, a notification missed while reconnecting). Returns the stop.
     */
    async listenForChanges(): Promise<() => Promise<void>> {
      const schema = await nodesRepository(db).schemaName();
      return db.listen(VPN_CHANGES_CHANNEL, (payload) => {
        if (payload === null || payload === schema) watcher.notified();
      });
    },
    /** Seeds the locations file (idempotently) when config.vpn.seed is on. */
    async seed(): Promise<void> {
      if (!vpn.seed) return;
      const seeds = loadLocationSeeds(vpn.locationsFile);
      await db.exclusive(727_004, async (tx) => {
        await locationsRepository(tx).seed(seeds.locations);
        if (vpn.demoNodes) await nodesRepository(tx).seedDemoNodes(seeds.nodeDomain);
      });
    },
  };
}
export type VpnServices = ReturnType<typeof vpnServices>;
