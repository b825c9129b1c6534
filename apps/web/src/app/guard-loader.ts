import { redirect, type LoaderFunctionArgs } from 'react-router';
import i18next from 'i18next';
import { STORAGE_KEYS } from '@warren/contract';
import { getBrand } from '../lib/brand';
import { whenI18nReady } from '../lib/i18n';
import { snackbar } from '../lib/notify';
import { session, sessionReady } from '../lib/session';
import { storage } from '../lib/storage';
import { evaluateGuard, type GuardContext, type GuardKind, type GuardResult } from './guards';

export function guardContext(url: URL): GuardContext {
  const s = session.get();
  const brand = getBrand();
  return {
    url,
    user: s.authenticated ? s.user : null,
    brand,
    paymentStatus: s.paymentStatus,
    tariffName: storage.get(STORAGE_KEYS.tariffName),
    lastPathname: storage.get(STORAGE_KEYS.lastPathname),
    // The brand registry's hosts (brand JSON): the only other hosts a payment return may go to.
    allowedHosts: brand.redirectHosts,
  };
}

/** Carries out a guard's verdict: side effects, message, redirect. */
export function applyGuard(result: GuardResult): null {
  if (result.kind === 'allow') return null;
  if (result.kind === 'external') {
    if (result.newTab) {
      window.open(result.url, '_blank', 'noopener,noreferrer');
      if (result.then) throw redirect(result.then);
      return null;
    }
    window.location.assign(result.url);
    return null;
  }
  for (const effect of result.effects ?? []) {
    if (effect === 'resetPaymentStatus') session.setPaymentStatus('processed');
    if (effect === 'clearSubscriptionHash') {
      storage.remove(STORAGE_KEYS.userSubscrHash);
      storage.remove(STORAGE_KEYS.userSubscrHashTime);
    }
  }
  if (result.message) {
    snackbar(i18next.t(result.message.key), { ms: result.message.ms, kind: 'info', id: result.message.key });
  }
  throw redirect(result.to);
}

export function guard(kind: GuardKind) {
  return async ({ request }: LoaderFunctionArgs) => {
    await Promise.all([sessionReady(), whenI18nReady()]);
    return applyGuard(evaluateGuard(kind, guardContext(new URL(request.url))));
  };
}
