import { type NodeServiceUser, mayUseLocation, vpnAccess } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import type { LocationNames, LocationRow } from '../locations/repository.js';

export interface CredentialRow {
  user_id: number;
  username: string;
  password_enc: string;
  verifier: string;
}

/** A location (the locations repository's row, its names and plan) with the nodes that serve OpenVPN/SOCKS5. */
export interface ServiceLocationRow extends Pick<
  LocationRow,
  'id' | 'slug' | 'country_code' | LocationNames | 'premium'
> {
  nodes: { host: string; udpPort: number; tcpPort: number; socksPort: number }[];
  /** Set when no node takes anyone (then `nodes` is empty): every node switched off, or being retired. */
  unavailable: 'off' | 'retiring' | null;
}

/** `offerUnreported`: as in locations/repository.ts (off in production: only nodes that have reported are offered). */
export function openvpnSocks5Repository(
  db: Queryable,
  { offerUnreported = false }: { offerUnreported?: boolean } = {},
) {
  return {
    async credentials(userId: number): Promise<CredentialRow | undefined> {
      const [row] = await db.query<CredentialRow>(
        'select user_id, username, password_enc, verifier from service_credentials where user_id = $1',
        [userId],
      );
      return row;
    },

    /** Inserts unless the account has credentials already (a parallel request won); returns the row in force. */
    async createCredentials(
      userId: number,
      username: string,
      passwordEnc: string,
      verifier: string,
    ): Promise<CredentialRow | undefined> {
      await db.query(
        `insert into service_credentials (user_id, username, password_enc, verifier) values ($1, $2, $3, $4) on conflict do nothing`,
        [userId, username, passwordEnc, verifier],
      );
      return this.credentials(userId);
    },

    async resetPassword(userId: number, passwordEnc: string, verifier: string): Promise<boolean> {
      const rows = await db.query(
        'update service_credentials set password_enc = $2, verifier = $3, updated_at = now() where user_id = $1 returning user_id',
        [userId, passwordEnc, verifier],
      );
      return rows.length > 0;
    },

    /**
     * Offered locations (visible, with an enabled node that has reported and is not being drained)
     * with those nodes (hosts and service ports), or one by slug. A visible location whose nodes are
     * all switched off or being drained is listed too, without nodes and with why (`unavailable`), as
     * the WireGuard page and the server list do: customers who used it see why it is gone.
     */
    async locations(slug?: string): Promise<ServiceLocationRow[]> {
      const rows = await db.query<Omit<ServiceLocationRow, 'nodes'> & { nodes: string }>(
        `select l.id, l.slug, l.country_code, l.country_en, l.country_ru, l.country_zh, l.city_en, l.city_ru, l.city_zh, l.premium,
           coalesce((select json_agg(json_build_object('host', n.endpoint_host, 'udpPort', n.openvpn_udp_port, 'tcpPort', n.openvpn_tcp_port, 'socksPort', n.socks_port) order by n.id)
                     from vpn_nodes n where n.location_id = l.id and n.enabled and n.draining_since is null and (n.last_seen_at is not null or $2::bool)), '[]')::text as nodes,
           case when not exists (select 1 from vpn_nodes n where n.location_id = l.id and n.enabled and (n.last_seen_at is not null or $2::bool)) then 'off'
                when not exists (select 1 from vpn_nodes n where n.location_id = l.id and n.enabled and n.draining_since is null and (n.last_seen_at is not null or $2::bool)) then 'retiring'
           end as unavailable
         from vpn_locations l
         where l.dash_visible and ($1::text is null or l.slug = $1)
           and exists (select 1 from vpn_nodes n where n.location_id = l.id and (n.last_seen_at is not null or $2::bool))
         order by l.premium, l.country_en, l.city_en`,
        [slug ?? null, offerUnreported],
      );
      return rows.map((r) => ({ ...r, nodes: JSON.parse(r.nodes) as ServiceLocationRow['nodes'] }));
    },

    /** The stored CA (keys encrypted), if made. */
    async pki(): Promise<{ ca_cert: string; ca_key_enc: string; tls_crypt_enc: string } | undefined> {
      const [row] = await db.query<{ ca_cert: string; ca_key_enc: string; tls_crypt_enc: string }>(
        'select ca_cert, ca_key_enc, tls_crypt_enc from openvpn_pki where id = 1',
      );
      return row;
    },

    async savePki(caCert: string, caKeyEnc: string, tlsCryptEnc: string): Promise<void> {
      await db.query('insert into openvpn_pki (id, ca_cert, ca_key_enc, tls_crypt_enc) values (1, $1, $2, $3)', [
        caCert,
        caKeyEnc,
        tlsCryptEnc,
      ]);
    },

    async nodeCert(nodeId: number): Promise<{ cert: string; key_enc: string; not_after: Date | string } | undefined> {
      const [row] = await db.query<{ cert: string; key_enc: string; not_after: Date | string }>(
        'select cert, key_enc, not_after from openvpn_node_certs where node_id = $1',
        [nodeId],
      );
      return row;
    },

    async saveNodeCert(nodeId: number, cert: string, keyEnc: string, notAfter: Date): Promise<void> {
      await db.query(
        `insert into openvpn_node_certs (node_id, cert, key_enc, not_after) values ($1, $2, $3, $4)
         on conflict (node_id) do update set cert = excluded.cert, key_enc = excluded.key_enc, not_after = excluded.not_after, created_at = now()`,
        [nodeId, cert, keyEnc, notAfter],
      );
    },
  };
}

/**
 * The service users one node should accept: the accounts in `owners` (all when null) that have
 * credentials, filtered by THE access rule (vpnAccess + mayUseLocation, as for WireGuard peers).
 * SOCKS5 and the ad blocker need a paid plan; a lapsed one drops the account from every node.
 */
export async function serviceUsersFor(
  db: Queryable,
  owners: number[] | null,
  premium: boolean,
  now: number,
): Promise<NodeServiceUser[]> {
  const rows = await db.query<{
    user_id: number;
    username: string;
    verifier: string;
    account_status: string;
    tariff_key: string;
    expires: number | null;
    adblock: boolean;
  }>(
    `select c.user_id, c.username, c.verifier, u.account_status, u.tariff_key,
            floor(extract(epoch from u.subscription_expires_at) * 1000)::float8 as expires, coalesce(uf.enabled, false) as adblock
     from service_credentials c
     join users u on u.id = c.user_id
     left join features f on f.key = 'adblock'
     left join user_features uf on uf.user_id = c.user_id and uf.feature_id = f.id
     where u.deleted_at is null and u.account_status = 'Active' and ($1::int[] is null or c.user_id = any($1::int[]))`,
    [owners],
  );
  const out: NodeServiceUser[] = [];
  for (const r of rows) {
    const access = vpnAccess(
      {
        accountStatus: r.account_status,
        tariffKey: r.tariff_key,
        subscriptionExpiresAt: r.expires === null ? null : new Date(r.expires),
      },
      now,
    );
    const openvpn = mayUseLocation(access, premium);
    const socks = access === 'paid';
    if (!openvpn && !socks) continue;
    out.push({
      owner: r.user_id,
      username: r.username,
      verifier: r.verifier,
      openvpn,
      socks,
      adblock: r.adblock && access === 'paid',
    });
  }
  return out;
}

/** The account's part of an erasure: its OpenVPN/SOCKS5 username and password go (the nodes drop the user on their next sync). */
export async function eraseServiceCredentials(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query('delete from service_credentials where user_id = $1', [account.userId]);
}
