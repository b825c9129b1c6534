import { describe, expect, it } from 'vitest';
import { createCipheriv, randomBytes } from 'node:crypto';
import { decryptPayload, encryptPayload } from './restricted-crypto';

const key = randomBytes(32).toString('base64');

describe('restricted crypto', () => {
  it('round-trips a JSON payload', async () => {
    const payload = { email: 'ann@example.com', password: 'pässwörd 密码', n: 1 };
    const text = await encryptPayload(payload, key);
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(await decryptPayload(text, key)).toEqual(payload);
  });

  it('uses a fresh iv every time', async () => {
    const a = await encryptPayload({ a: 1 }, key);
    const b = await encryptPayload({ a: 1 }, key);
    expect(a).not.toBe(b);
  });

  it('reads what a server (node:crypto) produced: iv || ciphertext || tag', async () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ data: { token: 't' } }), 'utf8'), cipher.final()]);
    const text = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
    expect(await decryptPayload(text, key)).toEqual({ data: { token: 't' } });
  });

  it('rejects a tampered payload and a wrong key', async () => {
    const text = await encryptPayload({ a: 1 }, key);
    const bytes = Buffer.from(text, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    await expect(decryptPayload(bytes.toString('base64'), key)).rejects.toThrow();
    await expect(decryptPayload(text, randomBytes(32).toString('base64'))).rejects.toThrow();
  });
});
