import type { PaymentProvider } from '../../payments/provider.js';
import type { ErasurePart } from '../users/index.js';
import { forgetReceiptBuyer } from './receipts-repository.js';
import { renewalsRepository } from './renewals-repository.js';
import { billingErasureRepository } from './repository.js';

/**
 * Billing's part of an account's erasure (README: the data map). Auto-renew ends with the renewal
 * row (its saved method's references and label), billing mails' records go, receipts lose the
 * buyer; payments stay for the accounting retention under the account's number. After the commit
 * the provider is told to forget the saved method (Stripe: the customer it made for renewals; the
 * sandbox: its saved cards), so nothing can charge the person again.
 */
export function billingErasure(providers: Partial<Record<string, PaymentProvider>>): ErasurePart {
  const providerOf = (id: string | null | undefined) =>
    id && Object.hasOwn(providers, id) ? providers[id] : undefined;
  return async (tx, { userId }) => {
    const renewal = await renewalsRepository(tx).forget(userId);
    await forgetReceiptBuyer(tx, userId);
    const { sandboxCards } = await billingErasureRepository(tx).erase(userId);
    const forget: (() => Promise<void>)[] = [];
    const saved = providerOf(renewal?.provider);
    if (
      renewal?.method_ref &&
      saved?.forgetMethod &&
      !(renewal.provider === 'sandbox' && sandboxCards.includes(renewal.method_ref))
    ) {
      const method = {
        customerRef: renewal.customer_ref ?? undefined,
        methodRef: renewal.method_ref,
        label: renewal.method_label ?? '',
      };
      forget.push(() => saved.forgetMethod!(method));
    }
    const sandbox = providerOf('sandbox');
    for (const card of sandboxCards)
      if (sandbox?.forgetMethod) forget.push(() => sandbox.forgetMethod!({ methodRef: card, label: '' }));
    if (!forget.length) return;
    return async () => {
      for (const f of forget) await f();
    };
  };
}
