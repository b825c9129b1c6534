import { useSyncExternalStore } from 'react';
import {
  COOKIES,
  IS_USER_EXIST_COOKIE_DAYS,
  isCheckoutRoute,
  isUserShape,
  type AuthResult,
  type User,
} from '@warren/contract';
import { clearAnalyticsUser, identifyUser } from './analytics';
import { api, setUnauthorizedHandler } from './api-client';
import { ensureShape } from './answer-shape';
import { deleteCookie, setCookie } from './cookies';
import { detectDeviceType, type DeviceType } from './device';
import { navigateTo } from './navigation';
import { STORAGE_KEYS, storage } from './storage';
import { restrictedPost, usesRestrictedCalls } from './restricted-call';
import { getToken, setToken } from './token';

export type PaymentStatus = 'processed' | 'processing';

export interface SessionState {
  /** A login, sign-up or the start-up refresh is in flight. */
  loading: boolean;
  authenticated: boolean;
  user: User | null;
  paymentStatus: PaymentStatus;
  newSubscription: boolean;
  deviceType: DeviceType;
}

function readStoredUser(): User | null {
  const stored = storage.getJson(STORAGE_KEYS.user);
  return isUserShape(stored) ? stored : null;
}

let state: SessionState = {
  loading: false,
  authenticated: false,
  user: null,
  paymentStatus: 'processed',
  newSubscription: false,
  deviceType: typeof navigator === 'undefined' ? 'desktop' : detectDeviceType(navigator.userAgent),
};
const listeners = new Set<() => void>();

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function setState(patch: Partial<SessionState>): void {
  state = { ...state, ...patch };
  listeners.forEach((l) => l());
}

export const session = {
  get: (): SessionState => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  setLoading(loading: boolean) {
    setState({ loading });
  },
  /** Replaces the user (stored locally) and marks authenticated. */
  setUser(user: User) {
    storage.setJson(STORAGE_KEYS.user, user);
    // The start-up refresh usually brings back the stored user unchanged: re-rendering every
    // page that reads the session for nothing is the longest task of a returning visit.
    if (state.authenticated && state.user && sameJson(state.user, user)) return;
    setState({ user, authenticated: true });
  },
  setPaymentStatus(paymentStatus: PaymentStatus) {
    setState({ paymentStatus });
  },
  setNewSubscription(newSubscription: boolean) {
    setState({ newSubscription });
  },
  setDeviceType(deviceType: DeviceType) {
    if (deviceType !== state.deviceType) setState({ deviceType });
  },
  /** Login, sign-up, one-time login: store the token and user, set isUserExist for 1000 days, identify the user in analytics. */
  signedIn(result: AuthResult) {
    setToken(result.token);
    setCookie(COOKIES.isUserExist, '1', IS_USER_EXIST_COOKIE_DAYS);
    identifyUser(result.user.id);
    storage.setJson(STORAGE_KEYS.user, result.user);
    setState({ user: result.user, authenticated: true, loading: false });
  },
  /** Clears everything locally; `callApi` also revokes the token on the server (failure ignored). */
  async signOut(opts: { callApi?: boolean; navigate?: boolean } = {}) {
    const { callApi = true, navigate = true } = opts;
    if (callApi && getToken()) {
      try {
        await api.post('users/logout', { context: { silent: true, skipAuthHandling: true } });
      } catch {
        /* the token goes anyway */
      }
    }
    setToken(null);
    storage.remove(STORAGE_KEYS.user);
    deleteCookie(COOKIES.isUserExist);
    clearAnalyticsUser();
    setState({ user: null, authenticated: false, loading: false, paymentStatus: 'processed', newSubscription: false });
    if (navigate && !isCheckoutRoute(window.location.pathname)) navigateTo('/auth', { replace: true });
  },
};

export async function fetchUserInfo(): Promise<User> {
  // A restricted host checks the session with the token inside an encrypted body (restrictedUserCheck).
  if (usesRestrictedCalls()) {
    const answer = await restrictedPost<{ data?: { user?: unknown; token?: unknown } }>(
      'users/restrictedUserCheck',
      {},
      {},
      { withToken: true },
    );
    const rotated = answer.data?.token;
    if (typeof rotated === 'string' && getToken() && rotated !== getToken()) setToken(rotated);
    return ensureShape(answer.data?.user, isUserShape, 'users/restrictedUserCheck');
  }
  return api
    .get('users/info/get')
    .json<{ data: unknown }>()
    .then((body) => ensureShape(body.data, isUserShape, 'users/info/get'));
}

/** GET users/info/get → replaces the user. */
export async function refreshUser(): Promise<User | null> {
  if (!getToken()) return null;
  const user = await fetchUserInfo();
  session.setUser(user);
  return user;
}

export function useSession(): SessionState;
export function useSession<T>(select: (s: SessionState) => T): T;
export function useSession<T>(select?: (s: SessionState) => T): T | SessionState {
  const s = useSyncExternalStore(session.subscribe, session.get, session.get);
  return select ? select(s) : s;
}

let ready: Promise<void> | null = null;

/**
 * Start-up (spec section 2): `?t=TOKEN` sets the token and forgets the stored user; a stored
 * user + token restore the session at once and are refreshed in the background; a token
 * without a user waits for the refresh.
 */
export function initSession(search: string = window.location.search): Promise<void> {
  if (ready) return ready;
  setUnauthorizedHandler(() => void session.signOut({ callApi: false }));
  const params = new URLSearchParams(search);
  const t = params.get('t');
  if (t) {
    setToken(t);
    storage.remove(STORAGE_KEYS.user);
  }
  const token = getToken();
  const stored = readStoredUser();
  if (!token) {
    if (stored) storage.remove(STORAGE_KEYS.user);
    ready = Promise.resolve();
    return ready;
  }
  const refresh = (async () => {
    setState({ loading: true });
    try {
      await refreshUser();
    } catch {
      /* a 401 already signed out; anything else keeps the restored session */
    } finally {
      setState({ loading: false });
    }
  })();
  if (stored) {
    setState({ user: stored, authenticated: true });
    ready = Promise.resolve();
  } else {
    ready = refresh;
  }
  return ready;
}

export function sessionReady(): Promise<void> {
  return ready ?? initSession();
}

/** Tests only. */
export function resetSessionForTests(): void {
  ready = null;
  state = {
    ...state,
    loading: false,
    authenticated: false,
    user: null,
    paymentStatus: 'processed',
    newSubscription: false,
  };
}
