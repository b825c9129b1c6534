import type { Database, Queryable } from '../../db/client.js';
import { usersRepository } from './repository.js';

/** The account being erased, as it was: what each area needs to find its rows. */
export interface ErasedAccount {
  userId: number;
  email: string;
  referralCode: string | null;
  friendCode: string | null;
}

/**
 * One area's part of an erasure (README: the data map, one row per table): it deletes or
 * pseudonymises its own tables inside the erasure's transaction, and may answer work to do once
 * that has committed (telling a payment provider to forget a saved card): never a call to the
 * outside while the account's row is locked.
 */
export type ErasurePart = (tx: Queryable, account: ErasedAccount) => Promise<void | (() => Promise<void>)>;

export interface ErasureDeps {
  db: Database;
  /** Every area's part, from the composition root. */
  parts: readonly ErasurePart[];
  /** What the mail transport keeps of the address (the outbox's files); after the commit. */
  forgetMail?: (email: string) => Promise<unknown>;
  log?: { warn: (obj: object, msg: string) => void };
}

/**
 * Deletes an account (the customer's own deletion and staff's): one transaction erases the account's
 * row and every area's personal data, so a deleted account never half-exists, and the VPN loses it at
 * once (the users row's change reaches the nodes through the change log). Answers the erased
 * account, or undefined when it was deleted already (two deletions at once: one erases, one finds
 * nothing). Outside calls (payment providers, the outbox) follow the commit; their failures are
 * logged and do not undo the erasure.
 */
export function accountErasure(deps: ErasureDeps) {
  return {
    async erase(userId: number): Promise<ErasedAccount | undefined> {
      const done = await deps.db.transaction(async (tx) => {
        const old = await usersRepository(tx).erase(userId);
        if (!old) return undefined;
        const account: ErasedAccount = { userId, ...old };
        const after: (() => Promise<void>)[] = [];
        for (const part of deps.parts) {
          const then = await part(tx, account);
          if (then) after.push(then);
        }
        return { account, after };
      });
      if (!done) return undefined;
      for (const then of done.after)
        await then().catch((err) => deps.log?.warn({ err: (err as Error).message }, 'erasure: an outside step failed'));
      await deps
        .forgetMail?.(done.account.email)
        .catch((err) => deps.log?.warn({ err: (err as Error).message }, 'erasure: forgetting the mails failed'));
      return done.account;
    },
  };
}
export type AccountErasure = ReturnType<typeof accountErasure>;
