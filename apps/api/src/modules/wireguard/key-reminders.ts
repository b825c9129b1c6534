import { languageOr } from '@warren/contract';
import type { Database } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import { renderMail, timeLabel } from '../../mail/templates.js';
import { type KeyReminderRow, wireguardRepository } from './repository.js';

const HOUR_MS = 3_600_000;
/** A key is reminded about this long before it expires (issue 23)… */
export const KEY_REMINDER_LEAD_MS = 24 * HOUR_MS;
/** Keys read per pass (the rest waits for the next pass, a minute later). */
const BATCH = 500;

/**
 * When a key's reminder is due: 24 h before it expires, or for a key that lives only one day half
 * way through its life (a reminder the moment a one-day key is made says nothing). Never after
 * the key expired: then the device list says it, and the nodes have dropped the peer.
 */
export function keyReminderDue(expiresAt: Date | string, lifetimeDays: number, asOf: Date): boolean {
  const end = new Date(expiresAt).getTime();
  const lead = Math.min(KEY_REMINDER_LEAD_MS, (lifetimeDays * 24 * HOUR_MS) / 2);
  return asOf.getTime() < end && asOf.getTime() >= end - lead;
}

export interface KeyRemindersDeps {
  db: Database;
  mailer: Mailer;
  /** The member's brand's canonical origin (brands/origins.ts): where the mail's link points. */
  originOf: (brand: string) => string;
  brandName: (brand: string) => string;
}

/**
 * The WireGuard key reminder (issue 23): one mail per key, about a day before it expires, linking
 * to /setup/wg on the member's brand, where the browser rotates it. Run by the job engine every
 * minute (modules/billing/jobs.ts, queue wg-key-reminders). Each key is claimed before its mail
 * goes (two passes at once send it once); a mail that could not be sent gives the claim back.
 */
export function keyReminders({ db, mailer, originOf, brandName }: KeyRemindersDeps) {
  const repo = wireguardRepository(db);

  async function remind(k: KeyReminderRow): Promise<boolean> {
    if (!(await repo.claimKeyReminder(k.id, k.public_key))) return false;
    const language = languageOr(k.language);
    const mail = renderMail('wgKeyExpiring', {
      language,
      productName: brandName(k.brand),
      link: `${originOf(k.brand)}/setup/wg`,
      vars: { device: k.name, time: timeLabel(language, new Date(k.key_expires_at)) },
    });
    try {
      await mailer.send({ to: k.email, ...mail });
      return true;
    } catch {
      await repo.releaseKeyReminder(k.id, k.public_key);
      return false;
    }
  }

  return {
    /** Mails the reminders due as of `asOf`; answers how many went. */
    async sendDue(asOf: Date): Promise<number> {
      let sent = 0;
      for (const k of await repo.keyRemindersDue(asOf, KEY_REMINDER_LEAD_MS, BATCH))
        if (keyReminderDue(k.key_expires_at, k.key_lifetime_days, asOf) && (await remind(k))) sent++;
      return sent;
    },
  };
}
export type KeyReminders = ReturnType<typeof keyReminders>;
