import fs from 'node:fs';
import { escapeHtml as esc } from '../lib/html.js';
import { untrustedLinks } from '../mail/link-guard.js';
import { newsletterRecipients } from '../modules/users/index.js';
import { CliUsageError, type CliGroup } from './command.js';

/**
 * Marketing mail (news, offers) to every verified account that has not opted out. Each message
 * carries a signed one-click unsubscribe link in its body and in List-Unsubscribe /
 * List-Unsubscribe-Post headers (RFC 8058), so mail clients can offer it too.
 */
export const commands: CliGroup = {
  announce: {
    summary: 'send a marketing email to opted-in, verified users',
    usage: '--subject "…" --text-file message.txt [--brand warren-vpn] [--dry-run]',
    async run(ctx) {
      const { subject, 'text-file': textFile, brand: brandId } = ctx.flags;
      if (typeof subject !== 'string' || !subject.trim()) throw new CliUsageError('--subject is required');
      if (typeof textFile !== 'string' || !fs.existsSync(textFile))
        throw new CliUsageError('--text-file must name a readable file');
      const body = fs.readFileSync(textFile, 'utf8').trim();
      const { brands, origins, mailer, profiles } = await ctx.services();
      // Links in the message must point at a brand's origin, as every mail's must (mail/link-guard.ts): said before the first send.
      const foreign = untrustedLinks({ text: body, html: '' }, origins.isTrusted);
      if (foreign.length)
        throw new CliUsageError(`the message links outside the brands' origins: ${foreign.join(' ')}`);
      const recipients = await newsletterRecipients(ctx.db, typeof brandId === 'string' ? brandId : undefined);
      let sent = 0;
      for (const r of recipients) {
        const brand = brands.byId(r.brand) ?? brands.all()[0]!;
        const link = profiles.unsubscribeLink(origins.canonical(brand), r.id);
        if (ctx.flags['dry-run'] !== true) {
          await mailer.send({
            to: r.email,
            subject,
            text: `${body}\n\n—\n${brand.productName}\nUnsubscribe from news and offers: ${link}`,
            html: `<div style="font-family:Inter,Arial,sans-serif;font-size:15px;line-height:1.6;color:#222">${esc(body).replace(/\n/g, '<br>')}</div>
<p style="font-size:12px;color:#777;margin-top:32px">${esc(brand.productName)} · <a href="${esc(link)}">Unsubscribe from news and offers</a></p>`,
            headers: { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
          });
        }
        sent++;
      }
      ctx.print(`${ctx.flags['dry-run'] === true ? 'Would send' : 'Sent'} "${subject}" to ${sent} subscriber(s).`);
    },
  },
};
