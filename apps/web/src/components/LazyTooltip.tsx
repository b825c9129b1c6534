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

/**
 * Mantine's Tooltip without putting floating-ui (~15 kB gzip) on the first screen: the
 * target shows at once, the tooltip's code downloads when a target is first hovered,
 * touched or focused, and the tooltip asked for opens when it arrives.
 */
export function LazyTooltip({ children, ...props }: Omit<TooltipProps, 'children'> & { children: ReactElement }) {
  const [Tooltip, setTooltip] = useState<TooltipComponent | null>(() => loaded);
  const [askedEarly, setAskedEarly] = useState<'no' | 'hover' | 'focus'>('no');
  const wrapper = useRef<HTMLSpanElement>(null);

  // The target is a new element once the tooltip wraps it: give focus back to it.
  useEffect(() => {
    if (Tooltip && askedEarly === 'focus')
      wrapper.current?.querySelector<HTMLElement>('button, a[href], [tabindex]')?.focus();
  }, [Tooltip, askedEarly]);

  const ask = (how: 'hover' | 'focus') => {
    if (Tooltip) return;
    setAskedEarly(how);
    void loadTooltip().then((t) => setTooltip(() => t));
  };

  return (
    <span
      ref={wrapper}
      style={{ display: 'contents' }}
      onPointerEnter={() => ask('hover')}
      onPointerLeave={() => !Tooltip && askedEarly === 'hover' && setAskedEarly('no')}
      onFocus={() => ask('focus')}
    >
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
