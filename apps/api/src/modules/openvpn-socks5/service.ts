import {
  type Language,
  type NodeServices,
  type OpenVpnConfigQuery,
  type ServiceCredentials,
  type ServicesOverview,
  mayUseLocation,
  ovpnFileName,
} from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { type Keyring, SEAL } from '../../lib/keyring.js';
import { featuresRepository } from '../ad-blocker/index.js';
import { type NodeRow, nodesRepository } from '../nodes/repository.js';
import { accessOf } from '../locations/service.js';
import type { UserRow } from '../users/index.js';
import { makeVerifier, newServicePassword, newServiceUsername } from './credentials.js';
import type { PkiStore } from './pki.js';
import { renderOvpn } from './render.js';
import { type CredentialRow, type ServiceLocationRow, openvpnSocks5Repository } from './repository.js';

export interface OpenvpnSocks5Deps {
  db: Database;
  pki: PkiStore;
  /** Service passwords are sealed under OPENVPN_CA_SECRET or APP_SECRET (lib/keyring.ts). */
  keys: Keyring;
  /** config.vpn.demoNodes (outside production): nodes that have not reported yet are offered too (locations/repository.ts). */
  offerUnreported?: boolean;
  /**
   * Called after credentials are made or changed, before they are shown: wakes the nodes' long
   * polls and waits (bounded) until the reporting nodes applied them (nodes/service.ts publish), so
   * a client that connects at once is not refused.
   */
  published?: () => Promise<unknown>;
}

const localName = (l: ServiceLocationRow, lang: Language) => ({
  country: l[`country_${lang}`] || l.country_en,
  city: l[`city_${lang}`] || l.city_en,
});

/**
 * OpenVPN files, router variants and SOCKS5 details for the logged-in user, the credentials behind
 * them, and what each node needs to serve them. Every call works on the caller's own account only.
 */
export function openvpnSocks5Service({
  db,
  pki,
  keys,
  offerUnreported = false,
  published = async () => {},
}: OpenvpnSocks5Deps) {
  const repo = openvpnSocks5Repository(db, { offerUnreported });
  const seal = (password: string) => keys.seal(SEAL.servicePassword, password);

  const reveal = (row: CredentialRow): ServiceCredentials => {
    const password = keys.open(SEAL.servicePassword, row.password_enc);
    // Every key the data names was checked at start (modules/secrets): this is a damaged value.
    if (password === null)
      throw new Error(
        'Cannot open a service password with the configured secrets (OPENVPN_CA_SECRET or APP_SECRET, APP_SECRET_PREVIOUS).',
      );
    return { username: row.username, password };
  };

  async function credentialsOf(userId: number): Promise<ServiceCredentials> {
    const existing = await repo.credentials(userId);
    if (existing) return reveal(existing);
    for (let attempt = 0; attempt < 5; attempt++) {
      const password = newServicePassword();
      try {
        const row = await repo.createCredentials(
          userId,
          newServiceUsername(),
          seal(password),
          await makeVerifier(password),
        );
        if (row) {
          await published();
          return reveal(row);
        }
      } catch (err) {
        if ((err as { code?: string }).code !== '23505') throw err; // a username taken by someone else: draw again
      }
    }
    throw new Error('could not allocate a service username');
  }

  return {
    credentialsOf,

    async overview(user: UserRow, lang: Language): Promise<ServicesOverview> {
      const access = accessOf(user);
      const [credentials, locations, adblock] = await Promise.all([
        credentialsOf(user.id),
        repo.locations(),
        featuresRepository(db).adblockEnabled(user.id),
      ]);
      return {
        access,
        credentials,
        socksAvailable: access === 'paid',
        adblock: adblock && access === 'paid',
        locations: locations.map((l) => {
          const available = mayUseLocation(access, l.premium);
          return {
            id: l.id,
            slug: l.slug,
            countryCode: l.country_code,
            ...localName(l, lang),
            premium: l.premium,
            available,
            nodes: available ? l.nodes : [],
            unavailable: l.unavailable,
          };
        }),
      };
    },

    /** A new password (the username stays), answered once the reporting nodes have it (published): the old one no longer works there. */
    async resetPassword(user: UserRow): Promise<ServiceCredentials> {
      await credentialsOf(user.id);
      const password = newServicePassword();
      await repo.resetPassword(user.id, seal(password), await makeVerifier(password));
      await published();
      return reveal((await repo.credentials(user.id))!);
    },

    async openvpnConfig(
      user: UserRow,
      q: OpenVpnConfigQuery,
      lang: Language,
    ): Promise<{ fileName: string; text: string }> {
      const [loc] = await repo.locations(q.location);
      if (!loc) throw new NotFoundError('Unknown location.');
      const access = accessOf(user);
      if (access === 'none')
        throw new ForbiddenError('Activate your account or renew your plan to download configurations.');
      if (!mayUseLocation(access, loc.premium)) throw new ForbiddenError('This location needs a premium plan.');
      if (!loc.nodes.length) throw new NotFoundError('This location has no servers right now.');
      const ca = await pki.ensureCa();
      const name = localName(loc, lang);
      const text = renderOvpn({
        title: `${name.country}, ${name.city}`,
        protocol: q.protocol,
        remotes: loc.nodes.map((n) => ({ host: n.host, port: q.protocol === 'udp' ? n.udpPort : n.tcpPort })),
        ca: ca.caCert,
        tlsCrypt: ca.tlsCrypt,
        variant: q.variant,
        credentials: q.variant === 'keenetic' ? await credentialsOf(user.id) : undefined,
      });
      return { fileName: ovpnFileName(loc.slug, q.protocol, q.variant), text };
    },

    /** For the authenticated node only: the CA, its own certificate and key, tls-crypt, its ports. */
    async nodeServices(node: NodeRow): Promise<NodeServices> {
      const ca = await pki.ensureCa();
      const own = await pki.nodeCert(node.id, node.name);
      const ports = await nodesRepository(db).servicePorts(node.id);
      return {
        openvpn: {
          ca: ca.caCert,
          cert: own.cert,
          key: own.key,
          tlsCrypt: ca.tlsCrypt,
          udpPort: ports!.udp,
          tcpPort: ports!.tcp,
        },
        socksPort: ports!.socks,
      };
    },
  };
}
export type OpenvpnSocks5Service = ReturnType<typeof openvpnSocks5Service>;
