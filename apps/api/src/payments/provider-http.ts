import { createHash, createHmac } from 'node:crypto';
import type { Queryable } from '../db/client.js';
import { checkoutCacheRepository } from '../modules/billing/index.js';
import { DomainError } from '../lib/errors.js';
import { safeEqual } from '../lib/secrets.js';

/**
 * Shared plumbing of the HTTP providers (Payssion, Cardlink): form posts with a timeout,
 * provider failures mapped to clear client errors, decimal amounts, and single-flight creation
 * for providers that have no idempotency key of their own.
 */

/** The provider could not be reached, answered 5xx or something we cannot read: retry later. Nothing internal leaks. */
export class ProviderUnavailable extends DomainError {
  constructor() {
    super(503, 'The payment provider is unavailable. Please try again later.', undefined, { 'retry-after': '30' });
  }
}

/** The provider refused this payment (method, currency or amount it does not take). */
export class ProviderRefused extends DomainError {
  constructor(message = 'The payment provider refused this payment. Please choose another payment method.') {
    super(400, message, { type: [message] });
  }
}

export const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
export const hmacSha256Hex = (secret: string, text: string) =>
  createHmac('sha256', secret).update(text, 'utf8').digest('hex');
/** Timing-safe comparison of hex signatures, case-insensitive. */
export const sameSignature = (expected: string, given: unknown) =>
  typeof given === 'string' && safeEqual(expected.toLowerCase(), given.toLowerCase());

/** 1299 → "12.99" (every currency we sell has two decimals). */
export const toDecimal = (minor: number) => (minor / 100).toFixed(2);
/** "12.99" / "12.9" / "12" → 1299; anything else → undefined. */
export function fromDecimal(value: unknown): number | undefined {
  const text = typeof value === 'number' ? value.toFixed(2) : typeof value === 'string' ? value.trim() : '';
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

export const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

const TIMEOUT_MS = 10_000;

/** Sends a request and parses a JSON answer; network errors, 5xx and unreadable answers become ProviderUnavailable. */
export async function callJson(
  url: string,
  init: { method: 'GET' | 'POST'; form?: Record<string, string>; headers?: Record<string, string> },
  fetchImpl: typeof fetch = fetch,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetchImpl(url, {
      method: init.method,
      headers: {
        accept: 'application/json',
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...init.headers,
      },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new ProviderUnavailable();
  }
  if (res.status >= 500) {
    await res.body?.cancel();
    throw new ProviderUnavailable();
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ProviderUnavailable();
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ProviderUnavailable();
  return { status: res.status, body: body as Record<string, unknown> };
}

/** Concurrent calls with one key share one run (within this process). */
export function singleFlight<T>() {
  const running = new Map<string, Promise<T>>();
  return (key: string, fn: () => Promise<T>): Promise<T> => {
    const existing = running.get(key);
    if (existing) return existing;
    const p = fn().finally(() => running.delete(key));
    running.set(key, p);
    return p;
  };
}

/** What a provider without idempotency keys answered for one of our payments (billing's repository keeps it). */
export function checkoutCache(db: Queryable, provider: string) {
  return checkoutCacheRepository(db, provider);
}
