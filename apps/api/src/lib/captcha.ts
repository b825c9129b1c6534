import { CAPTCHA_FAILED_MESSAGE, CAPTCHA_FIELD, CAPTCHA_UNAVAILABLE_MESSAGE } from '@warren/contract';
import type { Config } from '../config.js';
import { ValidationError } from './errors.js';

export interface CaptchaVerifier {
  verify(response: string | undefined, remoteIp: string): Promise<void>;
}

const FAILED = { [CAPTCHA_FIELD]: [CAPTCHA_FAILED_MESSAGE] };
/** The provider could not be asked: still refused (bots must not pass), but the buyer learns it is not their doing. */
const UNAVAILABLE = { [CAPTCHA_FIELD]: [CAPTCHA_UNAVAILABLE_MESSAGE] };

/**
 * reCAPTCHA and Turnstile share the siteverify protocol: POST secret + response (+ remoteip)
 * as a form, answer `{ success: boolean }`. The URL is configurable so tests use a local fake.
 * Tokens are single use at the provider: a replayed one comes back `success: false`.
 */
export function createCaptchaVerifier(config: Config['captcha']): CaptchaVerifier {
  if (config.provider === 'none') return { verify: async () => undefined };
  return {
    async verify(response, remoteIp) {
      if (!response) throw new ValidationError(FAILED);
      let answer: { success?: unknown } | null = null;
      try {
        const res = await fetch(config.verifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ secret: config.secret ?? '', response, remoteip: remoteIp }),
          signal: AbortSignal.timeout(5000),
        });
        if (res.ok) answer = (await res.json()) as { success?: unknown };
      } catch {
        answer = null; // down, timed out or not JSON: the verifier being down must not let bots through
      }
      if (!answer || typeof answer !== 'object') throw new ValidationError(UNAVAILABLE);
      if (answer.success !== true) throw new ValidationError(FAILED);
    },
  };
}
