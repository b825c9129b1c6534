import { useEffect, useRef, useState, type ReactElement } from 'react';
import type { TooltipProps } from '@mantine/core';
import type { Tooltip as MantineTooltip } from './TooltipChunk';

type TooltipComponent = typeof MantineTooltip;

let loaded: TooltipComponent | null = null;
let loading: Promise<TooltipComponent> | null = null;
function loadTooltip(): Promise<TooltipComponent> {
  loading ??= import('./TooltipChunk').then((m) => (loaded = m.Tooltip));
  return loading;
}

function whenIdle(run: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(run, { timeout: 3000 });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = window.setTimeout(run, 1000);
  return () => window.clearTimeout(handle);
}

/**
 * Mantine's Tooltip without putting floating-ui (~15 kB gzip) on the first screen: the
 * target shows at once, the tooltip's code downloads when the page is idle or when the
 * target is first hovered or focused, and a tooltip asked for meanwhile opens when it arrives.
 */
export function LazyTooltip({ children, ...props }: Omit<TooltipProps, 'children'> & { children: ReactElement }) {
  const [Tooltip, setTooltip] = useState<TooltipComponent | null>(() => loaded);
  const [askedEarly, setAskedEarly] = useState<'no' | 'hover' | 'focus'>('no');
  const wrapper = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (Tooltip) return;
    let live = true;
    const arrive = () => void loadTooltip().then((t) => live && setTooltip(() => t));
    const cancel = whenIdle(arrive);
    return () => {
      live = false;
      cancel();
    };
  }, [Tooltip]);

  // The target is a new element once the tooltip wraps it: give focus back to it.
  useEffect(() => {
    if (Tooltip && askedEarly === 'focus') wrapper.current?.querySelector<HTMLElement>('button, a[href], [tabindex]')?.focus();
  }, [Tooltip, askedEarly]);

  const ask = (how: 'hover' | 'focus') => {
    if (Tooltip) return;
    setAskedEarly(how);
    void loadTooltip().then((t) => setTooltip(() => t));
  };

  return (
    <span ref={wrapper} style={{ display: 'contents' }} onPointerEnter={() => ask('hover')} onFocus={() => ask('focus')}>
      {Tooltip ? (
        <Tooltip {...props} defaultOpened={askedEarly === 'hover' || undefined}>
          {children}
        </Tooltip>
      ) : (
        children
      )}
    </span>
  );
}
