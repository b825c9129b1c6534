import type { Config } from '../config.js';
import { ValidationError } from './errors.js';

export interface CaptchaVerifier {
  verify(response: string | undefined, remoteIp: string): Promise<void>;
}

const FAILED = { 'g-recaptcha-response': ['The captcha check failed. Please try again.'] };

/**
 * reCAPTCHA and Turnstile share the siteverify protocol: POST secret + response (+ remoteip)
 * as a form, answer `{ success: boolean }`. The URL is configurable so tests use a local fake.
 */
export function createCaptchaVerifier(config: Config['captcha']): CaptchaVerifier {
  if (config.provider === 'none') return { verify: async () => undefined };
  return {
    async verify(response, remoteIp) {
      if (!response) throw new ValidationError(FAILED);
      let ok = false;
      try {
        const res = await fetch(config.verifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ secret: config.secret ?? '', response, remoteip: remoteIp }),
          signal: AbortSignal.timeout(5000),
        });
        ok = res.ok && ((await res.json()) as { success?: unknown }).success === true;
      } catch {
        ok = false; // the verifier being down must not let bots through
      }
      if (!ok) throw new ValidationError(FAILED);
    },
  };
}
