import { describe, expect, it } from 'vitest';
import type { Mailer, OutgoingMail } from './mailer.js';
import { UntrustedLinkError, linksOf, withLinkGuard } from './link-guard.js';

const trusted = (url: URL) => url.origin === 'https://vpn.example.com';
function recording() {
  const sent: OutgoingMail[] = [];
  const mailer: Mailer = { send: async (m) => void sent.push(m), close() {} };
  return { sent, mailer };
}
const mail = (link: string, where: 'text' | 'html' | 'header' = 'text'): OutgoingMail => ({
  to: 'a@example.com',
  subject: 'Reset',
  kind: 'reset',
  text: where === 'text' ? `Choose a new password:\n${link}\n` : 'Hello',
  html: where === 'html' ? `<a href="${link.replace(/&/g, '&amp;')}">Reset</a>` : '<p>Hello</p>',
  ...(where === 'header' ? { headers: { 'List-Unsubscribe': `<${link}>` } } : {}),
});

describe('the mail link guard', () => {
  it('sends mails whose links all point at a brand origin', async () => {
    const { sent, mailer } = recording();
    await withLinkGuard(mailer, trusted).send(mail('https://vpn.example.com/reset-password?userId=1&token=abc'));
    await withLinkGuard(mailer, trusted).send({ ...mail('https://vpn.example.com/x', 'html'), text: 'no link at all' });
    expect(sent).toHaveLength(2);
  });

  it('refuses, and reports, a mail with a link anywhere else: in the text, the HTML or a header, whatever its spelling', async () => {
    for (const [link, where] of [
      ['http://localhost:18441@evil.example/reset-password?token=x', 'text'],
      ['https://vpn.example.com@evil.example/reset', 'text'],
      ['https://vpn.example.com.evil.example/reset', 'html'],
      ['https://vpn.example.com:444/reset', 'html'],
      ['http://vpn.example.com/reset', 'text'],
      ['HTTPS://EVIL.EXAMPLE/unsubscribe?u=1&sig=x', 'header'],
      ['https://evil.example\\@vpn.example.com/', 'text'],
    ] as const) {
      const { sent, mailer } = recording();
      const refused: UntrustedLinkError[] = [];
      await expect(
        withLinkGuard(mailer, trusted, (e) => refused.push(e)).send(mail(link, where)),
        link,
      ).rejects.toBeInstanceOf(UntrustedLinkError);
      expect(sent, link).toHaveLength(0);
      expect(refused, link).toHaveLength(1);
      // The report names the origin only: the path may hold a live token.
      expect(refused[0]!.message).not.toContain('token=');
      expect(refused[0]!.message).not.toContain('sig=');
    }
  });

  it('reads links out of text, HTML entities and headers', () => {
    expect(
      linksOf({
        text: 'see https://a.example/x?y=1. and http://b.example',
        html: '<a href="https://c.example/?a=1&amp;b=2">x</a>',
        headers: { 'List-Unsubscribe': '<https://d.example/u>' },
      }),
    ).toEqual(['https://a.example/x?y=1.', 'http://b.example', 'https://c.example/?a=1&b=2', 'https://d.example/u']);
  });
});
