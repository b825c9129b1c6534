import type { BillingAddress, BillingAddressResult } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import { billingAddressRepository } from './repository.js';

/**
 * The member's billing address and VAT number (issue 23): kept on the account, printed on the
 * receipts issued after it was saved (each receipt keeps its own copy), deleted with the account.
 * The VAT number is checked by its format only (contract billing-address.ts): VIES cannot be
 * reached from here.
 */
export function billingAddressService(db: Queryable) {
  const repo = billingAddressRepository(db);
  return {
    get: async (userId: number): Promise<BillingAddressResult> => ({ address: await repo.get(userId) }),
    save: async (userId: number, a: BillingAddress): Promise<BillingAddressResult> => ({
      address: await repo.save(userId, a),
    }),
    remove: async (userId: number): Promise<BillingAddressResult> => {
      await repo.remove(userId);
      return { address: null };
    },
  };
}
export type BillingAddressService = ReturnType<typeof billingAddressService>;
