import type { Mailer, OutgoingMail } from './mailer.js';

/** Every http(s) URL in a text, as far as a mail client would make a link of it. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/**
 * The URLs of a mail that could be clicked: in the text, in the HTML (attributes and text, with
 * entities such as `&amp;` read as a mail client reads them) and in its headers (List-Unsubscribe).
 * Attachments are not read.
 */
export function linksOf(mail: Pick<OutgoingMail, 'text' | 'html' | 'headers'>): string[] {
  const html = mail.html
    .replace(/&(amp|#38|#x26);/gi, '&')
    .replace(/&(quot|#34);/gi, '"')
    .replace(/&(#39|apos);/gi, "'");
  const sources = [mail.text, html, ...Object.values(mail.headers ?? {})];
  return sources.flatMap((s) => s.match(URL_IN_TEXT) ?? []);
}

/** The URLs of a mail that point anywhere but where `trusted` allows (also those that do not parse). */
export function untrustedLinks(
  mail: Pick<OutgoingMail, 'text' | 'html' | 'headers'>,
  trusted: (url: URL) => boolean,
): string[] {
  return linksOf(mail).filter((link) => {
    try {
      return !trusted(new URL(link));
    } catch {
      return true;
    }
  });
}

export class UntrustedLinkError extends Error {
  constructor(
    readonly kind: string | undefined,
    readonly origins: string[],
  ) {
    super(`mail${kind ? ` "${kind}"` : ''} refused: it links to ${origins.join(', ')}, not a brand origin`);
  }
}

/**
 * The last line of defence against links built from a forged Host (issue 20): a mail whose links
 * point at anything but a brand's origin (brands/origins.ts isTrusted) is not sent; the send
 * fails with UntrustedLinkError and the error is logged (the link's origin only: the path may hold
 * a token). Every mail of the server goes through it, whichever code wrote it.
 */
export function withLinkGuard(
  mailer: Mailer,
  trusted: (url: URL) => boolean,
  onRefused?: (err: UntrustedLinkError) => void,
): Mailer {
  return {
    ...(mailer.list ? { list: (to: string) => mailer.list!(to) } : {}),
    // An erased account's mails go from the outbox through every wrapper (test/profile-erasure.test.ts).
    ...(mailer.forget ? { forget: (to: string) => mailer.forget!(to) } : {}),
    close: () => mailer.close(),
    async send(mail) {
      const bad = untrustedLinks(mail, trusted);
      if (bad.length) {
        const origins = [...new Set(bad.map((l) => (URL.canParse(l) ? new URL(l).origin : l.slice(0, 60))))];
        const err = new UntrustedLinkError(mail.kind, origins);
        onRefused?.(err);
        throw err;
      }
      await mailer.send(mail);
    },
  };
}
