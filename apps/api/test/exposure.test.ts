import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { safeReturnUrl } from '../src/modules/billing/return-url.js';
import { TestClient, createTestApp, registerUser, type TestApp } from './helpers.js';

/**
 * Issue 11, findings 9 and 10: what a production server shows and accepts. Each test failed on
 * the code before the fix (500 on a webhook named after an Object.prototype key, no HSTS,
 * /api/docs open in production, the sandbox accepted in production, return URLs on any port).
 */

const PROD = { NODE_ENV: 'production', APP_SECRET: 'p'.repeat(40), ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true' };

let dev: TestApp;
let prod: TestApp;
beforeAll(async () => {
  dev = await createTestApp();
  prod = await createTestApp(PROD);
});
afterAll(async () => {
  await dev?.close();
  await prod?.close();
});

describe('finding 9: provider names from the URL', () => {
  it('an unknown provider, or one named after an Object.prototype key, is a 404, never a 500', async () => {
    for (const name of ['constructor', 'tostring', 'valueof', 'hasownproperty', 'proto', 'nosuchprovider']) {
      const res = await dev.app.inject({
        method: 'POST',
        url: `/api/billing/webhooks/${name}`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(res.statusCode, `${name}: ${res.body}`).toBe(404);
      expect(res.json()).toEqual({ message: expect.any(String) });
    }
    // Fastify's own names for the prototype: the path pattern refuses `__proto__` (422), the router never reaches a lookup.
    const proto = await dev.app.inject({
      method: 'POST',
      url: '/api/billing/webhooks/__proto__',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(proto.statusCode).toBeLessThan(500);
  });

  it('payment provider names in createPayment are looked up safely too', async () => {
    const c = new TestClient(dev.app);
    await registerUser(c);
    for (const provider of ['constructor', '__proto__', 'toString']) {
      const res = await c.post('/api/billing/createPayment', { tariffId: 1, currency: 'USD', provider });
      expect(res.statusCode, `${provider}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${provider}: ${res.body}`).toBeLessThan(500);
    }
  });
});

describe('finding 10: production headers and exposure', () => {
  it('HSTS in production only', async () => {
    const p = await prod.app.inject({ method: 'GET', url: '/api/brand', headers: { host: 'localhost' } });
    expect(p.headers['strict-transport-security']).toMatch(/^max-age=31536000/);
    const d = await dev.app.inject({ method: 'GET', url: '/api/brand', headers: { host: 'localhost' } });
    expect(d.headers['strict-transport-security']).toBeUndefined();
  });

  it('keeps the security headers on every answer, with the per-brand CSP and the captcha hosts', async () => {
    // Two brands with third-party scripts of their own: each host's CSP allows its brand's hosts only.
    const file = path.join(dev.dataDir, 'brands.json');
    const registry = JSON.parse(fs.readFileSync(dev.config.brandsFile, 'utf8')) as {
      brands: { hosts: string[]; scripts: { kind: string; src: string }[] }[];
    };
    registry.brands[0]!.scripts = [{ kind: 'analytics', src: 'https://analytics.one.example/a.js' }];
    registry.brands[1]!.scripts = [{ kind: 'help-chat', src: 'https://chat.two.example/c.js' }];
    fs.writeFileSync(file, JSON.stringify(registry));
    // With a captcha provider too: its hosts join script-src and frame-src.
    const branded = await createTestApp({
      BRANDS_FILE: file,
      CAPTCHA_PROVIDER: 'turnstile',
      CAPTCHA_SECRET: 's',
      CAPTCHA_SITE_KEY: 'k',
    });
    try {
      for (const url of ['/api/brand', `/sandbox/checkout/sbx_${'0'.repeat(32)}`]) {
        const res = await branded.app.inject({ method: 'GET', url, headers: { host: registry.brands[0]!.hosts[0]! } });
        expect(res.headers, url).toMatchObject({
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'strict-origin-when-cross-origin',
          'x-frame-options': 'DENY',
          'x-request-id': expect.any(String),
        });
        const csp = String(res.headers['content-security-policy']);
        for (const directive of [
          "default-src 'self'",
          "frame-ancestors 'none'",
          "object-src 'none'",
          "base-uri 'self'",
          "form-action 'self'",
          "style-src 'self' 'unsafe-inline'",
        ])
          expect(csp, url).toContain(directive);
        expect(/script-src ([^;]*)/.exec(csp)![1], url).toContain('https://analytics.one.example');
        expect(/connect-src ([^;]*)/.exec(csp)![1], url).toContain('https://analytics.one.example');
        expect(csp, url).not.toContain('chat.two.example');
        expect(/script-src ([^;]*)/.exec(csp)![1], url).toContain('https://challenges.cloudflare.com');
        expect(/frame-src ([^;]*)/.exec(csp)![1], url).toContain('https://challenges.cloudflare.com');
      }
      const other = await branded.app.inject({
        method: 'GET',
        url: '/api/brand',
        headers: { host: registry.brands[1]!.hosts[0]! },
      });
      const csp = String(other.headers['content-security-policy']);
      expect(/script-src ([^;]*)/.exec(csp)![1]).toContain('https://chat.two.example');
      expect(csp).not.toContain('analytics.one.example');
    } finally {
      await branded.close();
    }
  });

  it('/api/docs is off in production unless API_DOCS=true, and carries a CSP when on', async () => {
    for (const url of ['/api/docs', '/api/docs/json', '/api/docs/static/index.html']) {
      const res = await prod.app.inject({ method: 'GET', url, headers: { host: 'localhost' } });
      expect(res.statusCode, url).toBe(404);
    }
    const docs = await createTestApp({ ...PROD, API_DOCS: 'true' });
    try {
      const res = await docs.app.inject({ method: 'GET', url: '/api/docs', headers: { host: 'localhost' } });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['content-security-policy'])).toMatch(/script-src/);
      expect(
        (await docs.app.inject({ method: 'GET', url: '/api/docs/json', headers: { host: 'localhost' } })).statusCode,
      ).toBe(200);
    } finally {
      await docs.close();
    }
    expect((await dev.app.inject({ method: 'GET', url: '/api/docs/json' })).statusCode).toBe(200);
  });

  it('refuses SANDBOX_PAYMENTS=true in production with a config error naming it', () => {
    let problems: string[] = [];
    try {
      loadConfig({ ...PROD, SANDBOX_PAYMENTS: 'true' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      problems = (err as ConfigError).problems;
    }
    expect(problems).toEqual([expect.stringMatching(/^SANDBOX_PAYMENTS: cannot be true in production/)]);
    expect(loadConfig({ ...PROD }).billing.sandbox).toBe(false);
    expect(loadConfig({ ...PROD, SANDBOX_PAYMENTS: 'false' }).billing.sandbox).toBe(false);
    expect(loadConfig({ SANDBOX_PAYMENTS: 'true' }).billing.sandbox).toBe(true);
  });
});

describe('finding 10: return URLs are a registered origin plus a one-slash path', () => {
  const known = (host: string) => ['localhost', '127.0.0.1', 'proxy.localhost'].includes(host.split(':')[0]!);
  const origin = 'http://localhost:8080';

  it('accepts paths and the registered origins on the same scheme and port', () => {
    expect(safeReturnUrl('/thank-you?x=1', origin, known)?.href).toBe('http://localhost:8080/thank-you?x=1');
    expect(safeReturnUrl('http://localhost:8080/plans', origin, known)?.href).toBe('http://localhost:8080/plans');
    expect(safeReturnUrl('http://proxy.localhost:8080/plans', origin, known)?.href).toBe(
      'http://proxy.localhost:8080/plans',
    );
    expect(safeReturnUrl('https://localhost/x', 'https://localhost', known)?.href).toBe('https://localhost/x');
    expect(safeReturnUrl('https://localhost:443/x', 'https://localhost', known)?.href).toBe('https://localhost/x');
  });

  it('refuses another port or scheme on a brand host, and paths that start with two slashes', () => {
    for (const bad of [
      'http://localhost:6666/x',
      'http://proxy.localhost:9999/plans',
      'https://localhost:8080/x',
      'http://localhost/x',
      'ftp://localhost:8080/x',
      '//evil.com',
      '/\\evil.com',
      '/%5Cevil.com',
      '/%2F/evil.com',
      '/%2f%2fevil.com',
      'http://localhost:8080//evil.com',
      'http://localhost:8080/%2F%2Fevil.com',
      'http://evil.com/',
      'http://localhost:8080@evil.com/',
      'http://user:pass@localhost:8080/',
      'javascript:alert(1)',
      '/x\u0000',
    ]) {
      expect(safeReturnUrl(bad, origin, known), bad).toBeNull();
    }
  });
});
