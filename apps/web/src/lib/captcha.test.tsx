import { render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FALLBACK_BRAND, setBrand } from './brand';
import { CAPTCHA_SCRIPTS, useCaptcha } from './captcha';

function Probe() {
  const c = useCaptcha();
  return <div>{c.element ?? <span>no captcha</span>}</div>;
}

describe('captcha', () => {
  afterEach(() => {
    setBrand(FALLBACK_BRAND);
    document.head.querySelectorAll('script').forEach((s) => s.remove());
  });

  it('renders nothing and loads no script when the brand has none', () => {
    setBrand(FALLBACK_BRAND);
    const { getByText } = render(<Probe />);
    expect(getByText('no captcha')).toBeTruthy();
    expect(document.head.querySelector('script')).toBeNull();
  });

  it('loads the provider script and places the widget when configured', () => {
    setBrand({ ...FALLBACK_BRAND, captcha: { provider: 'turnstile', siteKey: 'site-key' } });
    const { getByTestId } = render(<Probe />);
    expect(getByTestId('captcha')).toBeTruthy();
    expect(document.head.querySelector(`script[src="${CAPTCHA_SCRIPTS.turnstile}"]`)).not.toBeNull();
  });
});
