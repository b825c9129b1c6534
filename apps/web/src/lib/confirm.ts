import { useSyncExternalStore, type ReactNode } from 'react';

/**
 * Confirmation dialogs as a tiny store: pages ask with `openConfirm`, and the host in the
 * providers (components/ConfirmDialogsHost) loads the dialog code only when one is asked
 * for — Mantine's Modal, focus trap and scroll lock are not part of any first screen.
 */
export interface ConfirmRequest {
  id: number;
  title: ReactNode;
  body: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  /** Red confirm button, for destructive actions. */
  danger?: boolean;
  confirmTestId?: string;
  onConfirm: () => void;
}

let requests: readonly ConfirmRequest[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function set(next: readonly ConfirmRequest[]): void {
  requests = next;
  listeners.forEach((l) => l());
}

export function openConfirm(request: Omit<ConfirmRequest, 'id'>): number {
  const id = nextId++;
  set([...requests, { ...request, id }]);
  return id;
}

export function closeConfirm(id: number): void {
  set(requests.filter((r) => r.id !== id));
}

/** Payment success closes every open dialog (spec section 4). */
export function closeAllDialogs(): void {
  if (requests.length) set([]);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useConfirmRequests(): readonly ConfirmRequest[] {
  return useSyncExternalStore(
    subscribe,
    () => requests,
    () => requests,
  );
}
