import { useMutation, useQueryClient } from '@tanstack/react-query';
import { STAFF_KEY } from './client';

/**
 * A staff action on one customer: after it (done or refused) the customer's view is read again,
 * so what the page shows is what the server now holds, and the audit list too.
 */
export function useCustomerMutation<V extends { customerId: string }, R>(call: (vars: V) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: (_data, _err, vars) =>
      Promise.all([qc.invalidateQueries({ queryKey: [STAFF_KEY, 'customer', vars.customerId] }), qc.invalidateQueries({ queryKey: [STAFF_KEY, 'audit'] })]),
  });
}
