import type { Queryable } from '../../db/client.js';

export interface PasskeyRow {
  id: number;
  user_id: number;
  credential_id: string;
  public_key: string;
  counter: string | number;
  transports: string[];
  name: string;
  user_handle: string;
  device_type: string;
  backed_up: boolean;
  created_at: string | Date;
  last_used_at: string | Date | null;
}

export type ChallengePurpose = 'register' | 'sign-in' | 'staff-sign-in';

/** The passkeys and webauthn_challenges tables (migration 0033): their only home. */
export function passkeysRepository(db: Queryable) {
  return {
    async list(userId: number): Promise<PasskeyRow[]> {
      return db.query<PasskeyRow>('select * from passkeys where user_id = $1 order by created_at, id', [userId]);
    },

    async byCredentialId(credentialId: string): Promise<PasskeyRow | undefined> {
      const [row] = await db.query<PasskeyRow>('select * from passkeys where credential_id = $1', [credentialId]);
      return row;
    },

    async userHandleOf(userId: number): Promise<string | undefined> {
      const [row] = await db.query<{ user_handle: string }>(
        'select user_handle from passkeys where user_id = $1 order by id limit 1',
        [userId],
      );
      return row?.user_handle;
    },

    /**
     * Stores a new credential unless the account has `max` already or the credential id is taken (by
     * anyone): 'exists', 'full' or the row. The account's row is locked first, so parallel
     * registrations of one account are counted one after the other (run it in a transaction).
     */
    async insert(
      p: {
        userId: number;
        credentialId: string;
        publicKey: string;
        counter: number;
        transports: string[];
        name: string;
        userHandle: string;
        deviceType: string;
        backedUp: boolean;
      },
      max: number,
    ): Promise<PasskeyRow | 'exists' | 'full'> {
      await db.query('select id from users where id = $1 for update', [p.userId]);
      const [n] = await db.query<{ n: number }>('select count(*)::int as n from passkeys where user_id = $1', [
        p.userId,
      ]);
      if ((n?.n ?? 0) >= max) return 'full';
      const [row] = await db.query<PasskeyRow>(
        `insert into passkeys (user_id, credential_id, public_key, counter, transports, name, user_handle, device_type, backed_up)
         values ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9)
         on conflict (credential_id) do nothing returning *`,
        [
          p.userId,
          p.credentialId,
          p.publicKey,
          p.counter,
          p.transports,
          p.name,
          p.userHandle,
          p.deviceType,
          p.backedUp,
        ],
      );
      return row ?? 'exists';
    },

    /**
     * Records a verified use: the new counter only if it moved forward (or both are 0: the
     * authenticator keeps none), so of two parallel uses with one counter value only one passes.
     */
    async recordUse(id: number, newCounter: number, backedUp: boolean): Promise<boolean> {
      const rows = await db.query(
        `update passkeys set counter = $2, backed_up = $3, last_used_at = now()
          where id = $1 and (counter < $2 or ($2 = 0 and counter = 0)) returning id`,
        [id, newCounter, backedUp],
      );
      return rows.length > 0;
    },

    async rename(userId: number, id: number, name: string): Promise<boolean> {
      const rows = await db.query('update passkeys set name = $3 where id = $1 and user_id = $2 returning id', [
        id,
        userId,
        name,
      ]);
      return rows.length > 0;
    },

    async remove(userId: number, id: number): Promise<PasskeyRow | undefined> {
      const [row] = await db.query<PasskeyRow>('delete from passkeys where id = $1 and user_id = $2 returning *', [
        id,
        userId,
      ]);
      return row;
    },

    async count(userId: number): Promise<number> {
      const [r] = await db.query<{ n: number }>('select count(*)::int as n from passkeys where user_id = $1', [userId]);
      return r?.n ?? 0;
    },

    /** A new challenge; the expired ones go at the same time (an indexed delete of few rows). */
    async insertChallenge(c: {
      hash: string;
      purpose: ChallengePurpose;
      binding: string;
      userId: number | null;
      expiresAt: Date;
    }): Promise<void> {
      await db.query('delete from webauthn_challenges where expires_at < now()');
      await db.query(
        'insert into webauthn_challenges (challenge_hash, purpose, binding, user_id, expires_at) values ($1, $2, $3, $4, $5)',
        [c.hash, c.purpose, c.binding, c.userId, c.expiresAt],
      );
    },

    /**
     * Spends a challenge: one DELETE ... RETURNING, so of two parallel verifications with one
     * challenge only one gets the row. Answers the row's user (null for a sign-in challenge), or
     * undefined when there is no such live challenge for this purpose and binding.
     */
    async consumeChallenge(
      hash: string,
      purpose: ChallengePurpose,
      binding: string,
    ): Promise<{ user_id: number | null } | undefined> {
      const [row] = await db.query<{ user_id: number | null; live: boolean }>(
        `delete from webauthn_challenges where challenge_hash = $1 and purpose = $2 and binding = $3
          returning user_id, expires_at > now() as live`,
        [hash, purpose, binding],
      );
      return row?.live ? { user_id: row.user_id } : undefined;
    },
  };
}

/** The account erasure's part (users/erasure.ts): its passkeys and ceremonies in flight. */
export async function erasePasskeyData(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query('delete from passkeys where user_id = $1', [account.userId]);
  await tx.query('delete from webauthn_challenges where user_id = $1', [account.userId]);
}
