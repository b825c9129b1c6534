import type { StaffRole } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import { type ChainRow, GENESIS_HASH, PSEUDONYMISE } from './audit-chain.js';
import { containsPattern } from './email-search.js';

/** The chain's newest row: what is exported (metric, log line) so a deletion of the newest rows shows. */
export interface AuditHead {
  seq: string;
  hash: string;
}
/** The actor of the recorded pseudonymisations. */
export const PSEUDONYMISE_ACTOR = 'Warren (pseudonymisation)';

export interface StaffSessionRow {
  id: number;
  user_id: number;
  email: string;
  role: StaffRole;
  xsrf_key_hash: string;
  created_at: Date | string;
  last_used_at: Date | string;
}

export interface AuditRow {
  id: string;
  at: Date | string;
  actor_user_id: number | null;
  actor: string;
  role: string | null;
  action: string;
  target_user_id: number | null;
  target: string;
  detail: Record<string, unknown>;
  ip: string;
  user_agent: string;
}

export interface NewAudit {
  actorUserId: number | null;
  actor: string;
  role: string | null;
  action: string;
  targetUserId?: number | null;
  target?: string;
  detail?: Record<string, unknown>;
  ip?: string;
  userAgent?: string;
}

export interface CustomerRow {
  id: number;
  email: string;
  verified: boolean;
  account_status: string;
  created_at: Date | string;
  totp_enabled: boolean;
  language: string;
  brand: string;
  tariff_name: string;
  subscription_expires_at: Date | string | null;
  staff_role: StaffRole | null;
  is_post_affiliate_available: boolean;
}

/** Staff roles, sessions, the audit log and the reads of the customer view. The only SQL of the staff module. */
export function staffRepository(db: Queryable) {
  return {
    // --- roles -------------------------------------------------------------------------------
    async roleOf(userId: number): Promise<StaffRole | undefined> {
      return (await db.query<{ role: StaffRole }>(`select role from staff_members where user_id = $1`, [userId]))[0]
        ?.role;
    },
    /** Grants or changes a role; answers the previous one. */
    async setRole(userId: number, role: StaffRole): Promise<StaffRole | null> {
      const [row] = await db.query<{ previous: StaffRole | null }>(
        `with old as (select role from staff_members where user_id = $1)
         insert into staff_members (user_id, role) values ($1, $2)
         on conflict (user_id) do update set role = excluded.role, granted_at = now()
         returning (select role from old) as previous`,
        [userId, role],
      );
      // A changed role takes effect at once: sessions signed in under the old one end.
      if (row?.previous && row.previous !== role)
        await db.query(`delete from staff_sessions where user_id = $1`, [userId]);
      return row?.previous ?? null;
    },
    /** Takes the role away (its sessions end by trigger); false when there was none. */
    async removeRole(userId: number): Promise<boolean> {
      return (await db.query(`delete from staff_members where user_id = $1 returning user_id`, [userId])).length === 1;
    },
    async members(): Promise<
      { user_id: number; email: string; role: StaffRole; granted_at: Date | string; totp_enabled: boolean }[]
    > {
      return db.query(
        `select m.user_id, u.email, m.role, m.granted_at, u.totp_enabled from staff_members m join users u on u.id = m.user_id order by u.email`,
      );
    },

    // --- sessions ----------------------------------------------------------------------------
    async insertSession(s: {
      userId: number;
      tokenHash: string;
      xsrfKeyHash: string;
      now: Date;
      ip: string;
      userAgent: string;
    }): Promise<void> {
      await db.query(
        `insert into staff_sessions (user_id, token_hash, xsrf_key_hash, created_at, last_used_at, ip, user_agent) values ($1, $2, $3, $4, $4, $5, $6)`,
        [s.userId, s.tokenHash, s.xsrfKeyHash, s.now, s.ip.slice(0, 100), s.userAgent.slice(0, 300)],
      );
    },
    /**
     * The live session of this token, touched in the same statement: inside both the idle and the
     * absolute limit, the account still holding a role, not deleted and not disabled. Expired ones are removed.
     */
    async useSession(
      tokenHash: string,
      now: Date,
      idleMs: number,
      absoluteMs: number,
    ): Promise<StaffSessionRow | undefined> {
      const [row] = await db.query<StaffSessionRow>(
        `update staff_sessions s set last_used_at = $2
         from staff_members m, users u
         where s.token_hash = $1 and m.user_id = s.user_id and u.id = s.user_id and u.deleted_at is null and u.account_status <> 'Suspended'
           and s.last_used_at > $2::timestamptz - make_interval(secs => $3::float8 / 1000)
           and s.created_at > $2::timestamptz - make_interval(secs => $4::float8 / 1000)
         returning s.id, s.user_id, u.email, m.role, s.xsrf_key_hash, s.created_at, s.last_used_at`,
        [tokenHash, now, idleMs, absoluteMs],
      );
      if (!row) await db.query(`delete from staff_sessions where token_hash = $1`, [tokenHash]);
      return row;
    },
    async deleteSession(id: number): Promise<void> {
      await db.query(`delete from staff_sessions where id = $1`, [id]);
    },

    // --- audit -------------------------------------------------------------------------------
    /**
     * Appends one row; the database chains it (migration 0014) and answers the new head. The log
     * outlives the accounts it names and cannot be edited, so it names a customer by number only
     * (written pseudonymous: the console shows the account's email as it is now, a placeholder once
     * deleted), and an email typed into a reason is replaced.
     */
    async audit(a: NewAudit): Promise<AuditHead> {
      const target = a.targetUserId != null ? '' : (a.target ?? '');
      const [person] =
        a.targetUserId != null
          ? await db.query<{ first_name: string; second_name: string }>(
              'select first_name, second_name from users where id = $1',
              [a.targetUserId],
            )
          : [];
      const [head] = await db.query<AuditHead>(
        `insert into staff_audit (actor_user_id, actor, role, action, target_user_id, target, detail, ip, user_agent) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         returning seq::text as seq, row_hash as hash`,
        [
          a.actorUserId,
          a.actor,
          a.role,
          a.action,
          a.targetUserId ?? null,
          target,
          JSON.stringify(withoutPersonal(a.detail ?? {}, [person?.first_name, person?.second_name])),
          (a.ip ?? '').slice(0, 100),
          (a.userAgent ?? '').slice(0, 300),
        ],
      );
      return head!;
    },
    /** The chain's head as the database keeps it (the last row's seq and hash). */
    async auditHead(): Promise<AuditHead> {
      return (
        (await db.query<AuditHead>(`select seq::text as seq, hash from staff_audit_head`))[0] ?? {
          seq: '0',
          hash: GENESIS_HASH,
        }
      );
    },
    /** Rows in chain order after (seq, id), every value as the database's text, for the verifier. */
    async auditChainPage(after: { seq: string; id: string } | null, limit: number): Promise<ChainRow[]> {
      return db.query<ChainRow>(
        `select id::text as id, seq::text as seq, ((extract(epoch from at) * 1000000)::bigint)::text as at_us, actor_user_id::text as actor_user_id, role, action,
                target_user_id::text as target_user_id, detail::text as detail, personal_salt, personal_hash, prev_hash, row_hash, actor, target, ip, user_agent
         from staff_audit where $1::bigint is null or (seq, id) > ($1::bigint, $2::bigint)
         order by staff_audit.seq, staff_audit.id limit $3`, // the columns, not their text aliases (10 before 9)
        [after?.seq ?? null, after?.id ?? null, limit],
      );
    },
    /**
     * The recorded pseudonymisation of one account in the audit (account deletion): where the account
     * is the actor, its email, address and user agent; where it is the target and the row still names
     * it in words (rows written before targets were numbers only), that text. The salt of
     * each row's personal commitment is erased with them (the chain stays valid, the old values cannot
     * be guessed back from it), and one chained `pseudonymise` row records it, in the same statement.
     * Answers the number of rows pseudonymised.
     */
    async pseudonymiseAccount(userId: number, reason: string): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        `with erased as (
           update staff_audit set
             actor = case when actor_user_id = $1 then $2 else actor end,
             target = case when target_user_id = $1 and target <> '' then $2 else target end,
             ip = case when actor_user_id = $1 then '' else ip end,
             user_agent = case when actor_user_id = $1 then '' else user_agent end,
             personal_salt = null
           where (actor_user_id = $1 or (target_user_id = $1 and target <> '')) and personal_salt is not null
           returning 1
         ), record as (
           insert into staff_audit (actor, role, action, target_user_id, target, detail)
           select $3, 'operator', '${PSEUDONYMISE}', $1, $2, jsonb_build_object('userId', $1::int, 'rows', (select count(*) from erased), 'reason', $4::text)
           where exists (select 1 from erased)
         )
         select count(*)::int as n from erased`,
        [userId, `deleted account ${userId}`, PSEUDONYMISE_ACTOR, reason.slice(0, 500)],
      );
      return row?.n ?? 0;
    },
    /**
     * The retention of staff addresses: the address and user agent of rows older than `before` are
     * erased, recorded by one chained `pseudonymise` row (detail.before). Answers how many.
     */
    async expireAddresses(before: Date, reason: string): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        `with erased as (
           update staff_audit set ip = '', user_agent = '', personal_salt = null
           where at < $1 and (ip <> '' or user_agent <> '') returning 1
         ), record as (
           insert into staff_audit (actor, role, action, detail)
           select $2, 'operator', '${PSEUDONYMISE}', jsonb_build_object('before', $3::text, 'rows', (select count(*) from erased), 'reason', $4::text)
           where exists (select 1 from erased)
         )
         select count(*)::int as n from erased`,
        [before, PSEUDONYMISE_ACTOR, before.toISOString(), reason],
      );
      return row?.n ?? 0;
    },
    /** Newest first by the numeric id (`staff_audit.id`: a bare `id` would sort by the text alias, 99 before 100). */
    async auditPage(opts: { targetUserId?: number; before?: string; limit: number }): Promise<AuditRow[]> {
      return db.query<AuditRow>(
        `select a.id::text as id, a.at, a.actor_user_id, a.actor, a.role, a.action, a.target_user_id,
                coalesce(nullif(a.target, ''), u.email, '') as target, a.detail, a.ip, a.user_agent
         from staff_audit a left join users u on u.id = a.target_user_id
         where ($1::int is null or a.target_user_id = $1) and ($2::bigint is null or a.id < $2)
         order by a.id desc limit $3`,
        [opts.targetUserId ?? null, opts.before ?? null, opts.limit],
      );
    },

    // --- customers ---------------------------------------------------------------------------
    /**
     * Accounts by numeric id or by part of the email. `lookFor` are the fragments the trigram index is
     * asked for (the rarest of q: `email-search.ts`); the whole of q is then checked on what they find.
     */
    async search(q: string, lookFor: string[], limit: number): Promise<CustomerRow[]> {
      const id = /^\d{1,10}$/.test(q) && Number(q) <= 2 ** 31 - 1 ? Number(q) : null;
      const lowered = q.toLowerCase();
      // Two index conditions (the same one twice when there is one); LIKE ALL over an array would not use the index.
      const [a, b] = lookFor.length ? [lookFor[0]!, lookFor[1] ?? lookFor[0]!] : [lowered, lowered];
      return db.query<CustomerRow>(
        `select u.id, u.email, u.verified, u.account_status, u.created_at, u.totp_enabled, u.language, u.brand, u.tariff_name, u.subscription_expires_at, u.is_post_affiliate_available, m.role as staff_role
         from users u left join staff_members m on m.user_id = u.id
         where u.deleted_at is null
           and (u.id = $1 or (lower(u.email) like $2 and lower(u.email) like $3 and strpos(lower(u.email), $4) > 0))
         order by (u.id = $1) desc nulls last, (lower(u.email) = $4) desc, u.id limit $5`,
        [id, containsPattern(a), containsPattern(b), lowered, limit],
      );
    },
    /**
     * Up to `size` lowered addresses picked at random (row-level sampling), for telling the common
     * parts of addresses from the rare ones. Reads the table once; the caller keeps it for a while.
     */
    async emailSample(size: number): Promise<string[]> {
      const rows = await db.query<{ email: string }>(
        `select lower(email) as email from users
           tablesample bernoulli (least(100, $1 * 100.0 / greatest((select reltuples from pg_class where oid = 'users'::regclass), 1)))
         where deleted_at is null limit $1`,
        [size],
      );
      return rows.map((r) => r.email);
    },
    async customer(id: number): Promise<CustomerRow | undefined> {
      return (
        await db.query<CustomerRow>(
          `select u.id, u.email, u.verified, u.account_status, u.created_at, u.totp_enabled, u.language, u.brand, u.tariff_name, u.subscription_expires_at, u.is_post_affiliate_available, m.role as staff_role
           from users u left join staff_members m on m.user_id = u.id where u.id = $1 and u.deleted_at is null`,
          [id],
        )
      )[0];
    },
    /** Devices and their counters per node: never addresses or destinations (none are stored). */
    async devices(userId: number) {
      return db.query<{
        id: number;
        name: string;
        created_at: Date | string;
        location: string | null;
        city: string | null;
        node: string | null;
        last_handshake_at: Date | string | null;
        rx_bytes: string | number | null;
        tx_bytes: string | number | null;
        updated_at: Date | string | null;
      }>(
        `select d.id, d.name, d.created_at, l.slug as location, l.city_en as city, n.name as node, s.last_handshake_at, s.rx_bytes, s.tx_bytes, s.updated_at
         from wg_devices d left join wg_peer_stats s on s.device_id = d.id left join vpn_nodes n on n.id = s.node_id left join vpn_locations l on l.id = n.location_id
         where d.user_id = $1 order by d.id, n.name`,
        [userId],
      );
    },
    async serviceCredentials(userId: number): Promise<{ username: string; updated_at: Date | string } | undefined> {
      return (
        await db.query<{ username: string; updated_at: Date | string }>(
          `select username, updated_at from service_credentials where user_id = $1`,
          [userId],
        )
      )[0];
    },
    async activeSessions(userId: number): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        `select count(*)::int as n from auth_tokens where user_id = $1 and expires_at > now() and rotated_at is null`,
        [userId],
      );
      return row?.n ?? 0;
    },
    async mails(userId: number, limit: number): Promise<{ kind: string; sent_at: Date | string }[]> {
      return db.query(`select kind, sent_at from mail_log where user_id = $1 order by id desc limit $2`, [
        userId,
        limit,
      ]);
    },
    /** The account's console sessions end (sign-out-everywhere from the console or the customer's profile). */
    async endSessionsOf(userId: number): Promise<number> {
      return (await db.query(`delete from staff_sessions where user_id = $1 returning id`, [userId])).length;
    },

    // --- nodes -------------------------------------------------------------------------------
    async locationsWithNodes() {
      return db.query<{
        slug: string;
        country_code: string;
        country: string;
        city: string;
        premium: boolean;
        visible: boolean;
        node: string | null;
        endpoint_host: string | null;
        listen_port: number | null;
        enabled: boolean | null;
        demo: boolean | null;
        has_token: boolean;
        last_seen_at: Date | string | null;
        active_peers: number | null;
        load: number | null;
        agent_version: string | null;
        last_apply_error: string | null;
        draining_since: Date | string | null;
        wg_kind: 'kernel' | 'userspace' | null;
        wg_max_peers: number | null;
        wg_peers: number | null;
        wg_refused: number | null;
      }>(
        `select l.slug, l.country_code, l.country_en as country, l.city_en as city, l.premium, l.dash_visible as visible,
                n.name as node, n.endpoint_host, n.listen_port, n.enabled, n.demo, n.token_hash is not null as has_token,
                n.last_seen_at, n.active_peers, n.load, n.agent_version, n.last_apply_error, n.draining_since,
                n.wg_kind, n.wg_max_peers, n.wg_peers, n.wg_refused
         from vpn_locations l left join vpn_nodes n on n.location_id = l.id order by l.slug, n.name`,
      );
    },
    async locationExists(slug: string): Promise<boolean> {
      return (await db.query(`select 1 from vpn_locations where slug = $1`, [slug])).length === 1;
    },
    async nodeLocation(name: string): Promise<string | undefined> {
      return (
        await db.query<{ slug: string }>(
          `select l.slug from vpn_nodes n join vpn_locations l on l.id = n.location_id where n.name = $1`,
          [name],
        )
      )[0]?.slug;
    },
  };
}
export type StaffRepository = ReturnType<typeof staffRepository>;

const EMAIL = /[^\s@<>()"',;:]+@[^\s@<>()"',;:]+\.[^\s@<>()"',;:]+/g;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * An audit row's detail with every email-shaped text and the customer's names (whole words of 3
 * letters or more) replaced: staff type reasons by hand, and the row cannot be edited later.
 */
function withoutPersonal(value: unknown, names: (string | undefined)[]): unknown {
  const words = names.flatMap((n) => (n ?? '').split(/\s+/)).filter((w) => w.length >= 3);
  const name = words.length
    ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, 'giu')
    : null;
  const scrub = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const noEmail = v.replace(EMAIL, '[email]');
      return name ? noEmail.replace(name, '[name]') : noEmail;
    }
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    return v;
  };
  return scrub(value);
}

/**
 * The staff area's part of an account's erasure: the log of mails sent to it (staff_members and
 * staff_sessions go by trigger), and the audit's personal fields about it (rows written before the
 * audit named customers by number only, and a staff member's own email, addresses and user agents)
 * as the recorded pseudonymisation the audit chain allows.
 */
export async function eraseStaffData(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query(`delete from mail_log where user_id = $1`, [account.userId]);
  await staffRepository(tx).pseudonymiseAccount(account.userId, 'account deleted');
}

/** Records a mail sent to an address (kind and time only) when the address is an account's. */
export async function logMail(db: Queryable, to: string, kind: string): Promise<void> {
  await db.query(
    `insert into mail_log (user_id, kind) select id, $2 from users where lower(email) = lower($1) and deleted_at is null`,
    [to, kind.slice(0, 40)],
  );
}
