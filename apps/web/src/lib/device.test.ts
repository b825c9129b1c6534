import { describe, expect, it } from 'vitest';
import { detectDeviceType } from './device';

describe('detectDeviceType', () => {
  it.each([
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile Safari/537.36', 'mobile'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148', 'mobile'],
    ['Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15', 'mobile'],
    ['Mozilla/5.0 (iPod touch; CPU iPhone OS 12_0 like Mac OS X)', 'mobile'],
    ['Mozilla/5.0 (BlackBerry; U; BlackBerry 9900; en)', 'mobile'],
    ['Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950)', 'mobile'],
    ['Mozilla/5.0 (webOS/1.4.0; U; en-US) AppleWebKit/532.2', 'mobile'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126 Safari/537.36', 'desktop'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15', 'desktop'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 'desktop'],
    ['', 'desktop'],
  ])('%s → %s', (ua, expected) => {
    expect(detectDeviceType(ua)).toBe(expected);
  });
});
