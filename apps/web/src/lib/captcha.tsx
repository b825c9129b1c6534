import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { getBrand } from './brand';

/**
 * The captcha the brand's API expects (reCAPTCHA v2 or Cloudflare Turnstile; none by default).
 * Both speak the same contract: load the provider's script, render a widget with the site key,
 * and the widget hands back a response token that goes into `g-recaptcha-response`.
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
/** Loads a provider script once per page. */
export function loadScript(src: string, doc: Document = document): Promise<void> {
  let p = loading.get(src);
  if (!p) {
    p = new Promise<void>((resolve, reject) => {
      const el = doc.createElement('script');
      el.src = src;
      el.async = true;
      el.onload = () => resolve();
      el.onerror = () => reject(new Error(`could not load ${src}`));
      doc.head.appendChild(el);
    });
    loading.set(src, p);
  }
  return p;
}

export interface Captcha {
  /** The widget to place in the form (null when the brand has no captcha). */
  element: ReactNode;
  /** The current response token, if the visitor solved the widget. */
  token: string | undefined;
  /** Forget the token (after a failed submit the provider wants a fresh one). */
  reset(): void;
  required: boolean;
}

export function useCaptcha(): Captcha {
  const { provider, siteKey } = getBrand().captcha;
  const [token, setToken] = useState<string>();
  const box = useRef<HTMLDivElement>(null);
  const widgetId = useRef<string | number>(undefined);
  const active = provider !== 'none' && !!siteKey;

  useEffect(() => {
    if (!active || !box.current) return;
    let cancelled = false;
    const el = box.current;
    void loadScript(CAPTCHA_SCRIPTS[provider as Exclude<Provider, 'none'>]).then(() => {
      const api = provider === 'recaptcha' ? window.grecaptcha : window.turnstile;
      if (cancelled || !api) return;
      const render = () => {
        widgetId.current = api.render(el, {
          sitekey: siteKey,
          callback: (t: string) => setToken(t),
          'expired-callback': () => setToken(undefined),
        });
      };
      if (provider === 'recaptcha' && window.grecaptcha?.ready) window.grecaptcha.ready(render);
      else render();
    });
    return () => {
      cancelled = true;
    };
  }, [active, provider, siteKey]);

  const reset = useCallback(() => {
    setToken(undefined);
    const api = provider === 'recaptcha' ? window.grecaptcha : window.turnstile;
    if (api && widgetId.current !== undefined) api.reset(widgetId.current);
  }, [provider]);

  return { element: active ? <div ref={box} data-testid="captcha" style={{ minHeight: 78 }} /> : null, token, reset, required: active };
}
