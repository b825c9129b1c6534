import { useSyncExternalStore } from 'react';

const noSubscription = () => () => undefined;

/**
 * False while React takes over HTML the server rendered (and in that HTML), true otherwise:
 * forms stay disabled until their handlers are attached, so nothing typed or pressed before
 * the app's code arrived is lost or sent as a plain browser form.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
