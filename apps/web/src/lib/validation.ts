import type { TFunction } from 'i18next';
import { PASSWORD_MIN } from '@warren/contract';

/** The contract's (English) zod messages → translation keys; anything else is shown as it is. */
const KNOWN: Record<string, string> = {
  'The email is required.': 'validation.emailRequired',
  'The email must be a valid email address.': 'validation.emailInvalid',
  'The password is required.': 'validation.passwordRequired',
  [`The password must be at least ${PASSWORD_MIN} characters.`]: 'validation.passwordMin',
  'The password confirmation does not match.': 'validation.passwordMismatch',
  'The password confirmation is required.': 'validation.confirmationRequired',
};

export function translateValidation(message: string | undefined, t: TFunction): string | undefined {
  if (!message) return undefined;
  if (/^The email may not be longer/.test(message)) return t('validation.emailLong');
  if (/^The password may not be longer/.test(message)) return t('validation.passwordLong');
  if (/^The name may not be longer/.test(message)) return t('validation.nameLong');
  const key = KNOWN[message];
  return key ? t(key, { min: PASSWORD_MIN }) : message;
}
