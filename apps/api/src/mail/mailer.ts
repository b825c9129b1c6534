import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. List-Unsubscribe on marketing mail. */
  headers?: Record<string, string>;
  /** Files sent with the mail (the receipt PDF). */
  attachments?: MailAttachment[];
  /** Which template it is (renderMail sets it): only the mail log keeps it (kind and time, for the operator console). */
  kind?: string;
}
export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}
export interface StoredMail extends Omit<OutgoingMail, 'attachments'> {
  sentAt: string;
  /** As stored by the outbox: the content in base64. */
  attachments?: { filename: string; contentType: string; content: string }[];
}

/** Records every mail sent to an account (kind and time only: no body, no links) after it went out. */
export function withMailLog(
  mailer: Mailer,
  record: (to: string, kind: string) => Promise<void>,
  onError?: (err: unknown) => void,
): Mailer {
  return {
    ...(mailer.list ? { list: (to: string) => mailer.list!(to) } : {}),
    ...(mailer.forget ? { forget: (to: string) => mailer.forget!(to) } : {}),
    close: () => mailer.close(),
    async send(mail) {
      await mailer.send(mail);
      if (mail.kind) await record(mail.to, mail.kind).catch((err) => onError?.(err));
    },
  };
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  /** Only the outbox transport can list what it sent (development and tests). */
  list?(to: string): StoredMail[];
  /**
   * Deletes what the transport kept of the mails to an address (an erased account): only the outbox
   * keeps mails; what SMTP delivered is the recipient's and the mail provider's. Answers how many.
   */
  forget?(to: string): Promise<number>;
  close(): void;
}

/** SMTP through nodemailer when MAIL_URL is set; otherwise one JSON file per mail in DATA_DIR/outbox. */
export function createMailer(config: Config['mail']): Mailer {
  if (config.url) {
    const transport = nodemailer.createTransport(config.url, { ignoreTLS: config.ignoreTls });
    return {
      async send({ kind: _kind, ...mail }) {
        await transport.sendMail({ from: config.from, ...mail });
      },
      close: () => transport.close(),
    };
  }
  return createOutbox(config.outboxDir);
}

function createOutbox(dir: string): Mailer {
  // Mails hold live sign-in and reset links: the server's user only, whatever the umask (lib/data-dir.ts).
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  let sequence = 0;
  return {
    async send({ kind: _kind, ...mail }) {
      const sentAt = new Date().toISOString();
      const name = `${Date.now()}-${process.pid}-${String(sequence++).padStart(6, '0')}.json`;
      // Written under a temporary name and renamed: a reader never sees half a mail.
      const tmp = path.join(dir, `.${name}.tmp`);
      // JSON has no bytes: an attachment is kept as base64, as it travels in a MIME message.
      const attachments = mail.attachments?.map((a) => ({
        filename: a.filename,
        contentType: a.contentType,
        content: a.content.toString('base64'),
      }));
      await fs.promises.writeFile(tmp, JSON.stringify({ ...mail, ...(attachments ? { attachments } : {}), sentAt }), {
        mode: 0o600,
      });
      await fs.promises.rename(tmp, path.join(dir, name));
    },
    list(to) {
      const wanted = to.trim().toLowerCase();
      return fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as StoredMail)
        .filter((m) => m.to.toLowerCase() === wanted);
    },
    async forget(to) {
      const wanted = to.trim().toLowerCase();
      let removed = 0;
      for (const f of await fs.promises.readdir(dir)) {
        if (!f.endsWith('.json')) continue;
        const file = path.join(dir, f);
        try {
          if ((JSON.parse(await fs.promises.readFile(file, 'utf8')) as StoredMail).to.toLowerCase() !== wanted)
            continue;
          await fs.promises.rm(file, { force: true });
          removed++;
        } catch {
          /* a file being renamed into place or unreadable: not this address's to forget */
        }
      }
      return removed;
    },
    close() {},
  };
}
