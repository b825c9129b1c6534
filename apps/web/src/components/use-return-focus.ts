import { useEffect, useRef } from 'react';

/**
 * Gives focus back to the control that opened a dialog when it closes or unmounts. Mantine's
 * own returnFocus only notices a dialog that goes from closed to open while mounted; ours mount
 * already open (their code loads on first use, confirmations mount per request), so the
 * control is remembered at the first open render, before the dialog's focus trap moves focus.
 */
export function useReturnFocus(opened: boolean): void {
  const opener = useRef<HTMLElement | null>(null);
  if (
    opened &&
    !opener.current &&
    typeof document !== 'undefined' &&
    document.activeElement instanceof HTMLElement &&
    document.activeElement !== document.body
  ) {
    opener.current = document.activeElement;
  }
  useEffect(() => {
    if (opened) return;
    restore(opener);
  }, [opened]);
  useEffect(() => () => restore(opener), []);
}

/**
 * Focus fell to the page, or stayed in the closing dialog or menu (it is still in the page
 * during its exit transition). Focus the user put elsewhere is left alone.
 */
export function focusIsLost(now: Element | null): boolean {
  return !now || now === document.body || !now.isConnected || !!now.closest('[role="dialog"], [role="menu"]');
}

function restore(opener: { current: HTMLElement | null }) {
  const el = opener.current;
  opener.current = null;
  if (!el) return;
  // After the dialog's focus trap lets go (it deactivates in the same commit).
  window.setTimeout(() => {
    const now = document.activeElement;
    if (el.isConnected && focusIsLost(now)) el.focus();
  }, 0);
}
