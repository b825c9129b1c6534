import { beforeEach, describe, expect, it } from 'vitest';
import { FALLBACK_BRAND, setBrand } from './brand';
import {
  analyticsIds,
  captureCheckoutParams,
  collectAttribution,
  externalReferrer,
  loginAttribution,
  verifyAttribution,
} from './attribution';
import { getCookie } from './cookies';

beforeEach(() => {
  localStorage.clear();
  setBrand(FALLBACK_BRAND);
  for (const c of [
    '_ga',
    '_ga_ABC123XYZ',
    'vl-cid',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'referrer',
    'a_aid',
    'ref',
    'friend_id',
    'vcomm_id',
    'mylead_id',
    'click_id',
  ])
    document.cookie = `${c}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
});

describe('attribution', () => {
  it('captures the checkout query parameters and a sign-up carries them', () => {
    captureCheckoutParams(
      new URLSearchParams('referralID=r1&a_aid=pap7&friendID=f2&vcommID=v3&myleadID=m4&voluum_id=vol5&junk=x'),
    );
    expect(localStorage.getItem('papReferralID')).toBe('pap7');
    expect(getCookie('vl-cid')).toBe('vol5');
    document.cookie = 'utm_source=newsletter; path=/';
    document.cookie = `referrer=${encodeURIComponent('https://search.example/?q=vpn')}; path=/`;
    expect(collectAttribution()).toEqual({
      referralID: 'r1',
      friendID: 'f2',
      vcommID: 'v3',
      myLeadID: 'm4',
      papReferralID: 'pap7',
      voluumID: 'vol5',
      utmSource: 'newsletter',
      referrer: 'https://search.example/?q=vpn',
    });
  });

  it('a visitor who left before the app ran: the ids the server kept as cookies (issue 23) are carried by sign-up and verification', () => {
    for (const c of [
      'ref=r1',
      'friend_id=f2',
      'vcomm_id=v3',
      'mylead_id=m4',
      'a_aid=pap7',
      'vl-cid=vol5',
      'click_id=clk-6',
    ])
      document.cookie = `${c}; path=/`;
    expect(collectAttribution()).toEqual({
      referralID: 'r1',
      friendID: 'f2',
      vcommID: 'v3',
      myLeadID: 'm4',
      papReferralID: 'pap7',
      voluumID: 'vol5',
      clickID: 'clk-6',
    });
    expect(verifyAttribution()).toMatchObject({ clickID: 'clk-6' });
    // What the app stored itself wins over an older cookie.
    captureCheckoutParams(new URLSearchParams('clickID=clk-7'));
    expect(collectAttribution()).toMatchObject({ clickID: 'clk-7' });
    expect(getCookie('click_id')).toBe('clk-7');
  });

  it('ignores junk values', () => {
    captureCheckoutParams(
      new URLSearchParams(`referralID=${encodeURIComponent('<script>')}&friendID=${'x'.repeat(300)}`),
    );
    expect(localStorage.getItem('referralID')).toBeNull();
    expect(localStorage.getItem('friendID')).toBeNull();
  });

  it('sets the campaign cookies: a_aid, ref, utm_*, and the referring site once', () => {
    const ref = captureCheckoutParams(
      new URLSearchParams('referralID=r9&a_aid=pap1&utm_source=news&utm_medium=email&utm_campaign=spring%20sale'),
      'https://blog.example/post?id=1',
      'https://vpn.example',
    );
    expect(ref).toBe('r9');
    expect(getCookie('a_aid')).toBe('pap1');
    expect(getCookie('ref')).toBe('r9');
    expect(getCookie('utm_source')).toBe('news');
    expect(getCookie('utm_medium')).toBe('email');
    expect(getCookie('utm_campaign')).toBe('spring sale');
    expect(getCookie('referrer')).toBe('https://blog.example/post?id=1');
    // First touch: a later referrer does not replace it; our own pages never count.
    captureCheckoutParams(new URLSearchParams(''), 'https://other.example/', 'https://vpn.example');
    expect(getCookie('referrer')).toBe('https://blog.example/post?id=1');
    expect(externalReferrer('https://vpn.example/plans', 'https://vpn.example')).toBeNull();
    expect(externalReferrer('javascript:alert(1)', 'https://vpn.example')).toBeNull();
    expect(captureCheckoutParams(new URLSearchParams('utm_source=%3Cscript%3E'))).toBeNull();
    expect(getCookie('utm_source')).toBe('news');
  });

  it('captures clickID on entry; sign-up and verification carry it back (every postback fills {clickID} from it)', () => {
    captureCheckoutParams(new URLSearchParams('clickID=clk-9a.7'));
    expect(localStorage.getItem('clickID')).toBe('clk-9a.7');
    expect(collectAttribution()).toMatchObject({ clickID: 'clk-9a.7' });
    expect(verifyAttribution()).toEqual({ clickID: 'clk-9a.7' });
    // A junk value is not stored and does not replace the one we have.
    captureCheckoutParams(new URLSearchParams(`clickID=${encodeURIComponent('"><img>')}`));
    expect(localStorage.getItem('clickID')).toBe('clk-9a.7');
  });

  it('reads cid/cid4 from the analytics cookies only where the brand runs analytics', () => {
    const cookies = '_ga=GA1.1.1234567890.1700000000; _ga_ABC123XYZ=GS1.1.1700000123.4.1.1700000200.0.0.0; other=x';
    expect(analyticsIds([], cookies)).toEqual({});
    expect(analyticsIds(['help-chat'], cookies)).toEqual({});
    expect(analyticsIds(['analytics'], cookies)).toEqual({ cid: '1234567890.1700000000', cid4: '1700000123' });
    // The newer GA4 cookie format.
    expect(analyticsIds(['tag-manager'], '_ga=GA1.2.99.88; _ga_Q1W2E3=GS2.1.s1700000999$o1$g0$t1700000999')).toEqual({
      cid: '99.88',
      cid4: '1700000999',
    });
    expect(analyticsIds(['analytics'], '_ga=<script>; _ga_ABC123=bogus')).toEqual({});
  });

  it('login, sign-up and verification carry cid and cid4 where the brand runs analytics (spec section 7 payloads)', () => {
    document.cookie = '_ga=GA1.1.1234567890.1700000000; path=/';
    document.cookie = '_ga_ABC123XYZ=GS1.1.1700000123.4.1.1700000200.0.0.0; path=/';
    localStorage.setItem('voluumID', 'vol-1');
    localStorage.setItem('clickID', 'clk-1');
    expect(loginAttribution()).toEqual({ voluumID: 'vol-1' });
    setBrand({
      ...FALLBACK_BRAND,
      scripts: [{ kind: 'analytics', src: 'https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ' }],
    });
    expect(loginAttribution()).toEqual({ cid: '1234567890.1700000000', cid4: '1700000123', voluumID: 'vol-1' });
    expect(verifyAttribution()).toEqual({ cid: '1234567890.1700000000', cid4: '1700000123', clickID: 'clk-1' });
    expect(collectAttribution()).toMatchObject({
      cid: '1234567890.1700000000',
      cid4: '1700000123',
      clickID: 'clk-1',
      voluumID: 'vol-1',
    });
  });
});
