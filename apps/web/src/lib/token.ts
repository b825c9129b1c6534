import { STORAGE_KEYS, storage } from './storage';

export function getToken(): string | null {
  return storage.get(STORAGE_KEYS.token);
}

export function setToken(token: string | null): void {
  if (token) storage.set(STORAGE_KEYS.token, token);
  else storage.remove(STORAGE_KEYS.token);
}
