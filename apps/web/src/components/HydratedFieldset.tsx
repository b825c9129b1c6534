import type { ComponentPropsWithoutRef } from 'react';
import { useHydrated } from '../lib/hydration';

/**
 * A fieldset that stays disabled while React takes over the server's HTML (useHydrated): nothing
 * typed or pressed before the handlers are attached is lost. Its own component on purpose: the
 * switch to enabled right after the take-over is a synchronous re-render of whoever reads
 * useHydrated, and here that is this fieldset alone; its children are the parent's elements,
 * unchanged, so React skips them. In a page component it re-rendered the whole page in one task.
 */
export function HydratedFieldset({ disabled, ...props }: ComponentPropsWithoutRef<'fieldset'>) {
  const hydrated = useHydrated();
  return <fieldset {...props} disabled={!hydrated || disabled} />;
}
