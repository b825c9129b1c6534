import { useMutation, useQueryClient } from '@tanstack/react-query';
import { isFeatureStateResultShape } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';
import { featuresQuery } from './get-features';

export type FeatureStateResult = { result: boolean; data: { id: number; isEnabled: boolean } };

/**
 * POST setup/features/state {id, state}. Silent: a free user's 403 opens the upgrade dialog
 * instead of a snackbar (spec section 4, feature toggle).
 */
export async function setFeatureState(body: { id: number; state: boolean }): Promise<FeatureStateResult> {
  const res = await api.post('setup/features/state', { json: body, context: { silent: true } }).json();
  return ensureShape(res, isFeatureStateResultShape, 'setup/features/state');
}

export function useSetFeatureState() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: setFeatureState,
    onSuccess: (res) => {
      if (!res.result) return;
      qc.setQueryData(featuresQuery.queryKey, (items) =>
        items?.map((f) => (f.id === res.data.id ? { ...f, isEnabled: res.data.isEnabled } : f)),
      );
    },
  });
}
