import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { getBrand } from '../brand';
import { closeAllDialogs } from '../confirm';
import { refreshUser, session } from '../session';
import { isPaymentSuccessMessage } from './payment-return';

// Apart from the Pay flow (payment-flow.ts): every logged-in page listens for this message,
// and the Pay flow brings the contract's zod schemas with it.
/**
 * The payment success message (spec section 4): a `paymentSuccess` post from the provider's page
 * (popup or frame) refreshes the user, opens /thank-you and closes every dialog.
 */
export function usePaymentSuccessMessage(): void {
  const navigate = useNavigate();
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (!isPaymentSuccessMessage(event, window.location.origin, getBrand().redirectHosts)) return;
      session.setPaymentStatus('processed');
      closeAllDialogs();
      void refreshUser()
        .catch(() => null)
        .finally(() => navigate('/thank-you'));
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [navigate]);
}
