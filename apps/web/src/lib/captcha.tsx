import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { CAPTCHA_FAILED_MESSAGE, CAPTCHA_FIELD, CAPTCHA_UNAVAILABLE_MESSAGE, type ErrorBody } from '@warren/contract';
import { getBrand } from './brand';
import { errorBodyOf } from './http-error';

/**
 * The captcha the brand's API expects (reCAPTCHA v2 or Cloudflare Turnstile; none by default).
 * Both speak the same contract: load the provider's script, render a widget with the site key,
 * and the widget hands back a response token that goes into `g-recaptcha-response`.
 *
 * A token is good for one call only (the provider answers a second siteverify with
 * `timeout-or-duplicate`), and the API asks for one on sign-up, sign-in, the reset request and
 * every payment (spec section 7). So a page takes a token per call: the one the widget holds,
 * or, when it holds none (just used, not solved yet), the next one it produces. Taking a token
 * resets the widget, which makes the next one (Turnstile by itself; reCAPTCHA's box is ticked
 * again), so the one-step checkout's sign-up and its payment each get their own.
 */
type Provider = 'none' | 'recaptcha' | 'turnstile';

interface WidgetApi {
  render(el: HTMLElement, opts: Record<string, unknown>): string | number;
  reset(id?: string | number): void;
}
declare global {
  interface Window {
    grecaptcha?: WidgetApi & { ready?(cb: () => void): void };
    turnstile?: WidgetApi;
  }
}

export const CAPTCHA_SCRIPTS: Record<Exclude<Provider, 'none'>, string> = {
  recaptcha: 'https://www.google.com/recaptcha/api.js?render=explicit',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit',
};

const loading = new Map<string, Promise<void>>();
/** Loads a provider script once per page; a failed load may be tried again (a later page, a retry). */
export function loadScript(src: string, doc: Document = document): Promise<void> {
  let p = loading.get(src);
  if (!p) {
    p = new Promise<void>((resolve, reject) => {
      const el = doc.createElement('script');
      el.src = src;
      el.async = true;
      el.onload = () => resolve();
      el.onerror = () => {
        loading.delete(src);
        el.remove();
        reject(new Error(`could not load ${src}`));
      };
      doc.head.appendChild(el);
    });
    loading.set(src, p);
  }
  return p;
}

/** Why no token could be had: the widget did not load (provider unreachable), or its challenge failed. */
export class CaptchaError extends Error {
  constructor(readonly reason: 'unavailable' | 'failed') {
    super(`captcha ${reason}`);
    this.name = 'CaptchaError';
  }
}

export interface Captcha {
  /** The widget to place in the form (null when the brand has no captcha). */
  element: ReactNode;
  /**
   * A token for one call; undefined when the brand has no captcha. Waits for the visitor to
   * solve the widget when it holds no token; rejects with a CaptchaError when it cannot load.
   */
  take(): Promise<string | undefined>;
  required: boolean;
}

type Status = 'idle' | 'waiting' | 'unavailable' | 'failed';
interface Waiter {
  resolve(token: string): void;
  reject(err: CaptchaError): void;
}

export function useCaptcha(): Captcha {
  const { t } = useTranslation();
  const { provider, siteKey } = getBrand().captcha;
  const active = provider !== 'none' && !!siteKey;
  const box = useRef<HTMLDivElement>(null);
  const widgetId = useRef<string | number>(undefined);
  const token = useRef<string | undefined>(undefined);
  const waiters = useRef<Waiter[]>([]);
  const loadFailed = useRef(false);
  const [status, setStatus] = useState<Status>('idle');

  const api = useCallback(() => (provider === 'recaptcha' ? window.grecaptcha : window.turnstile), [provider]);
  /** After a token is taken: the widget makes the next one (a token is never sent twice). */
  const resetWidget = useCallback(() => {
    token.current = undefined;
    const w = api();
    if (w && widgetId.current !== undefined) w.reset(widgetId.current);
  }, [api]);

  const failAll = useCallback((reason: CaptchaError['reason']) => {
    for (const w of waiters.current.splice(0)) w.reject(new CaptchaError(reason));
    setStatus(reason);
  }, []);

  useEffect(() => {
    if (!active || !box.current) return;
    // The one queue the ref holds for the component's life (it is emptied in place, never replaced).
    const pending = waiters.current;
    let cancelled = false;
    const el = box.current;
    const onToken = (value: string) => {
      if (cancelled) return;
      setStatus('idle');
      const waiter = waiters.current.shift();
      if (!waiter) {
        token.current = value;
        return;
      }
      waiter.resolve(value);
      // Out of the provider's callback: the widget starts on the next token at once.
      setTimeout(resetWidget, 0);
    };
    loadScript(CAPTCHA_SCRIPTS[provider as Exclude<Provider, 'none'>]).then(
      () => {
        const w = api();
        if (cancelled || !w) return;
        const render = () => {
          widgetId.current = w.render(el, {
            sitekey: siteKey,
            callback: onToken,
            'expired-callback': () => (token.current = undefined),
            // The challenge failed (a network error, a refused visitor): say so; the widget offers a new try.
            'error-callback': () => failAll('failed'),
            ...(provider === 'turnstile' ? { size: 'flexible' } : {}),
          });
        };
        if (provider === 'recaptcha' && window.grecaptcha?.ready) window.grecaptcha.ready(render);
        else render();
      },
      () => {
        if (cancelled) return;
        loadFailed.current = true;
        failAll('unavailable');
      },
    );
    return () => {
      cancelled = true;
      for (const w of pending.splice(0)) w.reject(new CaptchaError('failed'));
    };
  }, [active, provider, siteKey, api, resetWidget, failAll]);

  const take = useCallback(async (): Promise<string | undefined> => {
    if (!active) return undefined;
    if (loadFailed.current) throw new CaptchaError('unavailable');
    const held = token.current;
    if (held) {
      resetWidget();
      return held;
    }
    setStatus('waiting');
    return new Promise<string>((resolve, reject) => waiters.current.push({ resolve, reject }));
  }, [active, resetWidget]);

  const message = status === 'idle' ? null : t(`captcha.${status}`);
  const element = active ? (
    <div>
      <div ref={box} data-testid="captcha" style={{ minHeight: provider === 'recaptcha' ? 78 : 65 }} />
      {message && (
        <Text
          size="sm"
          mt={4}
          c={status === 'waiting' ? 'dimmed' : 'red'}
          role={status === 'waiting' ? 'status' : 'alert'}
          data-testid="captcha-status"
        >
          {message}
        </Text>
      )}
    </div>
  ) : null;
  return { element, take, required: active };
}

/** The text for a failure that is the captcha's (no token could be had, or the API refused it), in the page's language; null for any other. */
export function captchaErrorText(err: unknown, t: TFunction): string | null {
  if (err instanceof CaptchaError) return t(`captcha.${err.reason}`);
  return captchaAnswerText(errorBodyOf(err), t);
}

/** The API's captcha answer (field g-recaptcha-response) translated; null when the body is about something else. */
export function captchaAnswerText(body: ErrorBody | null | undefined, t: TFunction): string | null {
  const messages = body?.errors?.[CAPTCHA_FIELD];
  if (!messages?.length) return null;
  if (messages.includes(CAPTCHA_UNAVAILABLE_MESSAGE)) return t('captcha.unavailable');
  if (messages.includes(CAPTCHA_FAILED_MESSAGE)) return t('captcha.rejected');
  return messages.join(' ');
}
