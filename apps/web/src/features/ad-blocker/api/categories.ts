import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AD_BLOCK_PATHS, type AdBlockCategory, type AdBlockSettings, isAdBlockSettingsAnswer } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';

const path = AD_BLOCK_PATHS.categories.replace(/^\/api\//, '');

/** GET setup/features/categories: the ad blocker's switch and what it blocks (issue 23). */
export async function getAdBlockSettings(): Promise<AdBlockSettings> {
  return ensureShape(await api.get(path).json(), isAdBlockSettingsAnswer, path).data;
}

export const adBlockQuery = queryOptions({
  queryKey: ['setup', 'features', 'categories'],
  queryFn: getAdBlockSettings,
  staleTime: 60_000,
});

export function useAdBlockSettings() {
  return useQuery(adBlockQuery);
}

/** POST setup/features/categories {categories}. Silent: a free user's 403 opens the upgrade dialog. */
export async function setAdBlockCategories(categories: AdBlockCategory[]): Promise<AdBlockSettings> {
  const res = await api.post(path, { json: { categories }, context: { silent: true } }).json();
  return ensureShape(res, isAdBlockSettingsAnswer, path).data;
}

export function useSetAdBlockCategories() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: setAdBlockCategories,
    onSuccess: (data) => qc.setQueryData(adBlockQuery.queryKey, data),
  });
}
