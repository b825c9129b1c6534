import { STORAGE_KEYS, storage } from './storage';

type Listener = (token: string | null) => void;
const listeners = new Set<Listener>();

export function getToken(): string | null {
  return storage.get(STORAGE_KEYS.token);
}

export function setToken(token: string | null): void {
  if (token) storage.set(STORAGE_KEYS.token, token);
  else storage.remove(STORAGE_KEYS.token);
  listeners.forEach((l) => l(token));
}

export function onTokenChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
