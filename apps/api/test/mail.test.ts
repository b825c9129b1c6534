import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../src/mail/mailer.js';
import { PASSWORD, TestClient, createTestApp, linkParams, registerUser, uniqueEmail, type TestApp } from './helpers.js';

/**
 * Real SMTP: the app sends through nodemailer to an smtp-server on a loopback port. The
 * bundled certificate of smtp-server has expired, so STARTTLS is off on the server and
 * MAIL_IGNORE_TLS on the client. `app.settle()` resolves once the server has accepted the
 * message (nodemailer waits for the 250 after DATA), so no waiting is needed.
 */
interface Received {
  envelope: SMTPServerEnvelope;
  raw: Buffer;
}
interface Mime {
  headers: Record<string, string>;
  text?: string;
  html?: string;
  parts: Mime[];
  body: string;
}

// --- a small MIME reader: enough for what nodemailer writes ------------------------------------

/** RFC 2047 encoded words; consecutive words are joined before decoding (a character may span two). */
function decodeWords(value: string): string {
  return value.replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)(\s+=\?[^?]+\?[BbQq]\?[^?]*\?=)*/g, (run) => {
    const bytes: Buffer[] = [];
    for (const [, , enc, data] of run.matchAll(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g)) {
      bytes.push(enc!.toUpperCase() === 'B' ? Buffer.from(data!, 'base64') : qpBytes(data!.replace(/_/g, ' ')));
    }
    return Buffer.concat(bytes).toString('utf8');
  });
}
function qpBytes(s: string): Buffer {
  return Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  );
}
function parseMime(raw: string): Mime {
  const split = /\r?\n\r?\n/.exec(raw);
  const head = split ? raw.slice(0, split.index) : raw;
  const body = split ? raw.slice(split.index + split[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const type = (headers['content-type'] ?? 'text/plain').toLowerCase();
  const mime: Mime = { headers, parts: [], body: '' };
  if (type.startsWith('multipart/')) {
    const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type']!)![1]!;
    const chunks = body.split(`--${boundary}`).slice(1);
    for (const chunk of chunks) {
      if (chunk.startsWith('--')) break;
      const part = parseMime(chunk.replace(/^\r?\n/, ''));
      mime.parts.push(part);
      mime.text ??= part.text;
      mime.html ??= part.html;
    }
    return mime;
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? qpBytes(body)
        : Buffer.from(body, 'latin1');
  mime.body = bytes.toString('utf8').replace(/\r?\n$/, '');
  if (type.startsWith('text/html')) mime.html = mime.body;
  else if (type.startsWith('text/plain')) mime.text = mime.body;
  return mime;
}

// --- setup ----------------------------------------------------------------------------------

const received: Received[] = [];
let smtp: SMTPServer;
let t: TestApp;

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ envelope: structuredClone(session.envelope), raw: Buffer.concat(chunks) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = smtp.server.address() as AddressInfo;
  t = await createTestApp({
    MAIL_URL: `smtp://127.0.0.1:${port}`,
    MAIL_IGNORE_TLS: 'true',
    MAIL_FROM: 'Warren <no-reply@warren.test>',
  });
});

afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

async function mailsTo(email: string) {
  await t.app.settle();
  return received
    .filter((m) => m.envelope.rcptTo.some((r) => r.address.toLowerCase() === email.toLowerCase()))
    .map((m) => ({ ...m, mime: parseMime(m.raw.toString('latin1')), subject: '' }))
    .map((m) => ({ ...m, subject: decodeWords(m.mime.headers.subject ?? '') }));
}

async function register(client: TestClient, email: string, extra: Record<string, unknown> = {}) {
  const res = await client.post('/api/users/register', {
    name: 'Mail Tester',
    email,
    password: PASSWORD,
    password_confirmation: PASSWORD,
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { user: { id: number }; token: string };
}

function expectNoSecret(mail: { raw: Buffer; mime: Mime; subject: string }, secret: string) {
  const everything = [
    mail.raw.toString('latin1'),
    mail.raw.toString('utf8'),
    mail.subject,
    mail.mime.text ?? '',
    mail.mime.html ?? '',
  ].join('\n');
  expect(everything).not.toContain(secret);
  expect(everything).not.toContain(Buffer.from(secret).toString('base64'));
}

describe('mail over real SMTP', () => {
  it('does not offer the outbox listing when mail goes out over SMTP', async () => {
    const res = await new TestClient(t.app).get('/api/dev/mail?to=someone%40example.com');
    expect(res.statusCode).toBe(404);
  });

  it('sends the verification mail with HTML and text parts, the brand in the subject and a working link', async () => {
    const client = new TestClient(t.app);
    const email = uniqueEmail('smtp');
    const { user } = await register(client, email);
    const mails = await mailsTo(email);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.envelope.mailFrom && mail.envelope.mailFrom.address).toBe('no-reply@warren.test');
    expect(mail.envelope.rcptTo.map((r) => r.address)).toEqual([email]);
    expect(mail.mime.headers['content-type']).toMatch(/^multipart\/alternative/i);
    expect(mail.subject).toBe('Confirm your email for Warren VPN');
    expect(mail.mime.text).toContain('Welcome to Warren VPN');
    expect(mail.mime.html).toContain('<h1');
    expect(mail.mime.html).toContain('Welcome to Warren VPN');
    const link = linkParams(mail.mime.text!, '/sign-in');
    expect(link.userId).toBe(user.id);
    expect(mail.mime.text).toContain(`http://localhost/sign-in?userId=${user.id}&token=`);
    // The HTML part carries the same link (attribute-escaped).
    expect(mail.mime.html).toContain(
      `http://localhost/sign-in?userId=${user.id}&amp;token=${encodeURIComponent(link.token)}`,
    );
    expectNoSecret(mail, PASSWORD);
    // The link is real: it verifies the account.
    const verified = await client.post('/api/users/verifyUser', { userId: link.userId, token: link.token });
    expect(verified.statusCode).toBe(200);
    expect(verified.json().data.user.verified).toBe(1);
  });

  it.each([
    ['ru', 'Подтвердите email для Warren VPN', 'Ссылка действует 48 часов', 'Подтвердить email'],
    ['zh', '确认您的 Warren VPN 邮箱', '链接 48 小时内有效', '确认邮箱'],
  ])(
    'writes the verification mail in %s for a user who signed up in it',
    async (language, subject, bodyText, button) => {
      const email = uniqueEmail(`smtp-${language}`);
      await register(new TestClient(t.app), email, { language });
      const [mail, ...more] = await mailsTo(email);
      expect(more).toHaveLength(0);
      expect(mail!.subject).toBe(subject);
      expect(mail!.mime.text).toContain(bodyText);
      expect(mail!.mime.html).toContain(`lang="${language}"`);
      expect(mail!.mime.html).toContain(button);
      expect(mail!.mime.html).not.toContain('Confirm email');
      linkParams(mail!.mime.text!, '/sign-in');
      expectNoSecret(mail!, PASSWORD);
    },
  );

  it('sends the reset mail in the account language and the changed-password notice without either password', async () => {
    const client = new TestClient(t.app);
    const email = uniqueEmail('smtp-reset');
    await register(client, email, { langCode: 'ru' });
    expect((await client.post('/api/users/requestResetPassword', { email })).statusCode).toBe(200);
    const reset = (await mailsTo(email)).find((m) => m.subject === 'Сброс пароля Warren VPN');
    expect(reset, 'reset mail').toBeDefined();
    const { userId, token } = linkParams(reset!.mime.text!, '/reset-password');
    const newPassword = 'another horse battery 42';
    const res = await client.post('/api/users/resetPassword', {
      userId,
      token,
      password: newPassword,
      password_confirmation: newPassword,
    });
    expect(res.statusCode).toBe(200);
    const all = await mailsTo(email);
    // Each mail goes out on its own connection, so arrival order is not guaranteed.
    expect(all.map((m) => m.subject).sort()).toEqual(
      ['Подтвердите email для Warren VPN', 'Сброс пароля Warren VPN', 'Пароль Warren VPN изменён'].sort(),
    );
    for (const m of all) {
      expectNoSecret(m, PASSWORD);
      expectNoSecret(m, newPassword);
    }
  });

  it('brands the mail by the host the user signed up on', async () => {
    const email = uniqueEmail('smtp-proxy');
    await registerUser(new TestClient(t.app, { host: 'proxy.localhost' }), email); // the encrypted sign-up: restricted hosts take no other
    const [mail] = await mailsTo(email);
    expect(mail!.subject).toBe('Confirm your email for Warren Proxy');
    expect(mail!.mime.text).toContain('http://proxy.localhost/sign-in?userId=');
  });
});

describe('the development outbox', () => {
  it('never shows a half-written mail to a reader listing while mail is being written', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-outbox-'));
    const mailer = createMailer({ from: 'Warren <no-reply@warren.localhost>', ignoreTls: false, outboxDir: dir });
    const body = 'x'.repeat(200_000); // large enough that a write takes several chunks
    const writes = Array.from({ length: 40 }, (_, i) =>
      mailer.send({ to: 'reader@example.com', subject: `#${i}`, text: body, html: body }),
    );
    let done = false;
    const all = Promise.all(writes).then(() => (done = true));
    let reads = 0;
    while (!done) {
      const seen = mailer.list!('reader@example.com'); // throws on a half-written file
      for (const m of seen) expect(m.text.length).toBe(body.length);
      reads += 1;
      await new Promise((r) => setImmediate(r));
    }
    await all;
    expect(mailer.list!('reader@example.com')).toHaveLength(40);
    expect(reads).toBeGreaterThan(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
