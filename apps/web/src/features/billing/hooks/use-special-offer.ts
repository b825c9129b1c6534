import { useCallback, useEffect, useMemo, useState } from 'react';
import { useLocation } from 'react-router';
import { FREE_TARIFF_KEY } from '@warren/contract';
import { usePlanInfo } from '../../../lib/billing/plan-info';
import { dismissOffer, readDismissedOffers, specialOfferBanner } from '../../../lib/billing/special-offer';
import { useSession } from '../../../lib/session';

export interface SpecialOffer {
  paymentId: string;
  secondsLeft: number;
  close: () => void;
}

/**
 * The special offer of spec section 4 for the shell: plan info is fetched per plan name, so a
 * plan change re-fetches it (and the new payments list ends the offer); ticks once a second.
 */
export function useSpecialOffer(): SpecialOffer | null {
  const user = useSession((s) => (s.authenticated ? s.user : null));
  const { pathname } = useLocation();
  const paid = !!user && user.subscriptionData.tariffKey !== FREE_TARIFF_KEY;
  const info = usePlanInfo(user?.subscriptionData.tariffName, { enabled: paid });
  const [dismissed, setDismissed] = useState<string[]>(() => readDismissedOffers());
  const [now, setNow] = useState(() => Date.now());

  const state = useMemo(
    () => (paid ? specialOfferBanner({ planInfo: info.data, nowMs: now, dismissed, pathname }) : null),
    [paid, info.data, now, dismissed, pathname],
  );
  const active = state !== null;

  useEffect(() => {
    if (!active) return;
    const id = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(id);
  }, [active]);

  const paymentId = state?.paymentId;
  const close = useCallback(() => {
    if (paymentId) setDismissed(dismissOffer(paymentId));
  }, [paymentId]);

  return state ? { ...state, close } : null;
}
