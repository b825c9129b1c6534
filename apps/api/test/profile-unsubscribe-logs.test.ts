import { afterAll, beforeAll, expect, it } from 'vitest';
import { redactUrl } from '../src/app.js';
import { TestClient, createTestApp, registerUser, type TestApp } from './helpers.js';

/**
 * Issue 20, finding 10: the one-click unsubscribe link's `sig` is a credential (it unsubscribes
 * without signing in) and was written to the request log in clear. Every request line of the
 * real logger, for every spelling of the parameter the query parser reads as `sig`, must not hold it.
 */
const logLines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(
    { JOBS: 'false', LOG_LEVEL: 'info' },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
});
afterAll(async () => {
  await t?.close();
});

it('the unsubscribe link works and its sig never reaches the log, however the parameter is spelt', async () => {
  const { user } = await registerUser(new TestClient(t.app));
  const link = new URL(t.app.services.profiles.unsubscribeLink('http://localhost', user.id));
  const sig = link.searchParams.get('sig')!;
  expect(sig.length).toBeGreaterThanOrEqual(10);
  const spellings = [
    `u=${user.id}&sig=${sig}`,
    `u=${user.id}&%73ig=${sig}`,
    `u=${user.id}&%73%69%67=${encodeURIComponent(sig)}`,
    `sig=${sig}&u=${user.id}`,
  ];
  for (const q of spellings)
    expect((await t.app.inject({ method: 'GET', url: `/unsubscribe?${q}` })).statusCode, q).toBe(200);
  // The parser reads the encoded names as sig: these really are the credential.
  const done = await t.app.inject({
    method: 'POST',
    url: `/unsubscribe?u=${user.id}&%73ig=${sig}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(done.body).toContain('You are unsubscribed');
  const requestLines = logLines.filter((l) => l.includes('/unsubscribe'));
  expect(requestLines.length).toBeGreaterThanOrEqual(spellings.length + 1);
  for (const l of logLines) expect(l.includes(sig), l).toBe(false);
  expect(requestLines.some((l) => l.includes('[redacted]'))).toBe(true);
});

it('redacts secret parameters by their decoded name and leaves the others', () => {
  expect(redactUrl('/unsubscribe?u=7&sig=abc')).toBe('/unsubscribe?u=7&sig=[redacted]');
  expect(redactUrl('/unsubscribe?u=7&%73ig=abc&x=1')).toBe('/unsubscribe?u=7&%73ig=[redacted]&x=1');
  expect(redactUrl('/reset-password?userId=1&token=abc')).toBe('/reset-password?userId=1&token=[redacted]');
  expect(redactUrl('/x?TOKEN=a&signature=b&page=2')).toBe('/x?TOKEN=[redacted]&signature=[redacted]&page=2');
});
