// Pure account rules, free of zod so the web app's first screen does not load the schema library.
import type { User } from './account.js';

/** Activation guard (spec section 4): a user passes only once verified, or on payment-first brands once paid. */
export function isActivated(u: Pick<User, 'verified' | 'accountStatus'>, paymentFirst: boolean): boolean {
  return paymentFirst ? u.accountStatus === 'Active' : u.verified === 1 && u.accountStatus === 'Active';
}

/** Emails ending in an internal test suffix never enter the guarded pages (spec section 5). */
export function isTestAccountEmail(address: string, suffixes: readonly string[]): boolean {
  const lower = address.toLowerCase();
  return suffixes.some((s) => s.length > 0 && lower.endsWith(s.toLowerCase()));
}

/** Initials: the first two letters, uppercased, of the first name, else of the email. */
export function initials(u: Pick<User, 'firstName' | 'email'>): string {
  const source = u.firstName.trim() || u.email;
  return source.slice(0, 2).toUpperCase();
}
