import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { CAPTCHA_FAILED_MESSAGE, CAPTCHA_UNAVAILABLE_MESSAGE } from '@warren/contract';
import i18next from 'i18next';
import { renderRoute } from '../test/render';
import { FALLBACK_BRAND, setBrand } from './brand';
import { CAPTCHA_SCRIPTS, CaptchaError, captchaAnswerText, useCaptcha, type Captcha } from './captcha';

let current: Captcha | null = null;
function Probe() {
  const c = useCaptcha();
  current = c;
  return <div>{c.element ?? <span>no captcha</span>}</div>;
}

/** A stand-in for the provider's widget API: the test plays the provider, handing out tokens. */
function fakeWidget() {
  const widget = {
    callback: null as null | ((t: string) => void),
    errorCallback: null as null | (() => void),
    resets: 0,
    options: {} as Record<string, unknown>,
  };
  window.turnstile = {
    render: (_el, opts) => {
      widget.options = opts;
      widget.callback = opts.callback as (t: string) => void;
      widget.errorCallback = opts['error-callback'] as () => void;
      return 'w1';
    },
    reset: () => void (widget.resets += 1),
  };
  return widget;
}

const script = () => document.head.querySelector<HTMLScriptElement>(`script[src="${CAPTCHA_SCRIPTS.turnstile}"]`);

describe('captcha', () => {
  afterEach(() => {
    setBrand(FALLBACK_BRAND);
    delete window.turnstile;
    current = null;
  });

  it('renders nothing, loads no script and takes no token when the brand has none', async () => {
    setBrand(FALLBACK_BRAND);
    await renderRoute(<Probe />);
    expect(screen.getByText('no captcha')).toBeTruthy();
    expect(document.head.querySelector('script')).toBeNull();
    expect(await current!.take()).toBeUndefined();
  });

  it('fails clearly when the provider script cannot load, then a later page tries again', async () => {
    setBrand({ ...FALLBACK_BRAND, captcha: { provider: 'turnstile', siteKey: 'site-key' } });
    await renderRoute(<Probe />);
    expect(screen.getByTestId('captcha')).toBeTruthy();
    act(() => void script()!.dispatchEvent(new Event('error')));
    expect(await screen.findByRole('alert')).toHaveTextContent('The security check could not be loaded');
    await expect(current!.take()).rejects.toEqual(new CaptchaError('unavailable'));
    // The failed script is gone, so the next page asks the provider again.
    expect(script()).toBeNull();
  });

  it('gives each call its own token: the held one, then waits for the next the widget makes', async () => {
    setBrand({ ...FALLBACK_BRAND, captcha: { provider: 'turnstile', siteKey: 'site-key' } });
    const widget = fakeWidget();
    await renderRoute(<Probe />);
    await act(async () => void script()!.dispatchEvent(new Event('load')));
    await waitFor(() => expect(widget.callback).not.toBeNull());
    expect(widget.options.sitekey).toBe('site-key');

    // Solved before the click: that token goes, and the widget is reset for the next one.
    act(() => widget.callback!('token-1'));
    expect(await current!.take()).toBe('token-1');
    expect(widget.resets).toBe(1);

    // The next call (the payment after the one-step sign-up) waits for a new token, never the old one.
    let second: string | undefined;
    const pending = current!.take().then((t) => (second = t));
    expect(await screen.findByRole('status')).toHaveTextContent('Complete the security check');
    expect(second).toBeUndefined();
    act(() => widget.callback!('token-2'));
    await pending;
    expect(second).toBe('token-2');
    await waitFor(() => expect(widget.resets).toBe(2));
    await waitFor(() => expect(screen.queryByRole('status')).toBeNull());

    // A failed challenge while a call waits: the call stops with a message instead of hanging.
    const third = current!.take();
    act(() => widget.errorCallback!());
    await expect(third).rejects.toEqual(new CaptchaError('failed'));
    expect(await screen.findByRole('alert')).toHaveTextContent('The security check did not pass');
  });

  it("translates the API's two captcha answers and leaves other answers alone", async () => {
    await renderRoute(<span />);
    const t = i18next.t.bind(i18next);
    expect(captchaAnswerText({ message: 'x', errors: { 'g-recaptcha-response': [CAPTCHA_FAILED_MESSAGE] } }, t)).toBe(
      'The security check failed. Please complete it again and retry.',
    );
    expect(
      captchaAnswerText({ message: 'x', errors: { 'g-recaptcha-response': [CAPTCHA_UNAVAILABLE_MESSAGE] } }, t),
    ).toMatch(/try again in a few minutes/);
    expect(captchaAnswerText({ message: 'x', errors: { email: ['taken'] } }, t)).toBeNull();
  });
});
