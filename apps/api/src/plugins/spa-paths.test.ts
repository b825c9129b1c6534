import { describe, expect, it } from 'vitest';
import { isReservedPath } from './spa.js';

describe('paths that are never a page', () => {
  it('are the API and /metrics however spelt', () => {
    for (const url of [
      '/metrics',
      '/Metrics',
      '/METRICS',
      '/metrics/',
      '/metrics?x=1',
      '/%6detrics',
      '/%6Detrics/',
      '//metrics',
      '/./metrics',
      '/x/../metrics',
      '/%2e/metrics',
      '/x%2F..%2Fmetrics',
      '/metrics;x',
      '/metrics%00',
      '\\\\metrics',
      '/api',
      '/api/',
      '/Api/users/info/get',
      '/%61pi/x',
      '/%E0%A4%A',
      'http://evil.example/metrics',
    ])
      expect(isReservedPath(url), url).toBe(true);
  });
  it('leave every page alone', () => {
    for (const url of [
      '/',
      '/sign-in',
      '/dashboard?x=/metrics',
      '/checkout/',
      '/metricsx',
      '/apiary',
      '/setup/wg',
      '/reset-password?userId=1&token=a%2Fb',
    ])
      expect(isReservedPath(url), url).toBe(false);
  });
});
