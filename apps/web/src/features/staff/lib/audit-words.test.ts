import i18next from 'i18next';
import { STAFF_AUDIT_ACTIONS, type StaffAuditEntry } from '@warren/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { TARGET_MARK, auditWords } from './audit-words';
import { STAFF_NS, addStaffTranslations } from './i18n';

const entry = (
  action: StaffAuditEntry['action'],
  detail: Record<string, unknown>,
  target = 'ann@example.com',
): StaffAuditEntry => ({
  id: '1',
  at: '2026-11-28T00:00:00.000Z',
  actorUserId: 2,
  actor: 'admin@example.com',
  role: 'admin',
  action,
  targetUserId: 3,
  target,
  detail,
  ip: '',
  userAgent: '',
});

const instance = i18next.createInstance();
beforeAll(async () => {
  await instance.init({ lng: 'en', fallbackLng: false, resources: {} });
  addStaffTranslations(instance);
});

/** The sentence as the page shows it, the target put where the mark is. */
function say(e: StaffAuditEntry, lng = 'en'): string {
  const w = auditWords(e, lng);
  const lists = Object.fromEntries(
    Object.entries(w.lists ?? {}).map(([n, keys]) => [
      n,
      keys.map((k) => instance.t(k, { ns: STAFF_NS, lng })).join(', '),
    ]),
  );
  const text = instance.t(w.key, { ns: STAFF_NS, lng, ...w.values, ...lists, interpolation: { escapeValue: false } });
  expect(text, w.key).not.toBe(w.key);
  return text.replace(TARGET_MARK, e.target);
}

describe('audit entries in words (issue 22)', () => {
  it('a grant, a refund and a recovery-code sign-in read as sentences, with no raw field names', () => {
    expect(
      say(entry('grant-days', { days: 30, reason: 'outage', paymentId: 'grant_1', until: '2027-01-02T10:00:00.000Z' })),
    ).toBe('Granted 30 days to ann@example.com, paid until Jan 2, 2027');
    expect(say(entry('grant-days', { days: 1 }))).toBe('Granted 1 day to ann@example.com');
    expect(
      say(
        entry('refund', {
          paymentId: 'pay_9',
          amountMinor: 1299,
          currency: 'USD',
          provider: 'sandbox',
          viaProvider: true,
          outsideWindow: false,
          reason: 'asked',
        }),
      ),
    ).toBe('Refunded payment pay_9 ($12.99) of ann@example.com through the payment provider');
    expect(
      say(
        entry('refund', {
          paymentId: 'pay_9',
          amountMinor: 1299,
          currency: 'USD',
          viaProvider: false,
          outsideWindow: true,
        }),
      ),
    ).toMatch(/by hand, outside the refund window$/);
    expect(say(entry('sign-in', { secondFactor: 'recovery', recoveryCodesLeft: 9 }))).toBe(
      'Signed in to the console with a recovery code (9 codes left)',
    );
    expect(say(entry('location-update', { enabled: false, visible: true }, 'de-fra'))).toBe(
      'Changed the location de-fra: switched off, shown to customers',
    );
    expect(say(entry('node-update', { draining: true }, 'fra-1'))).toMatch(/^Started draining the node fra-1/);
    expect(auditWords(entry('grant-days', { days: 3, reason: 'outage' }), 'en').reason).toBe('outage');
    expect(say(entry('affiliate-portal', { enabled: true, previous: false }))).toBe(
      'Turned the affiliate portal on for ann@example.com',
    );
    expect(say(entry('affiliate-portal', { enabled: false, previous: true }))).toBe(
      'Turned the affiliate portal off for ann@example.com',
    );
    expect(say(entry('passkey-add', { name: 'YubiKey', where: 'console' }))).toBe(
      'Added the passkey “YubiKey” to their account in the console',
    );
    expect(say(entry('passkey-remove', { name: 'Phone', where: 'profile' }))).toBe(
      'Removed the passkey “Phone” from their account in their profile',
    );
    expect(say(entry('passkey-add', { name: 'Phone', where: 'profile' }), 'ru')).toBe(
      'Добавил ключ доступа «Phone» к своему аккаунту в профиле',
    );
    expect(say(entry('sign-in', { secondFactor: 'passkey' }))).toBe('Signed in to the console with a passkey');
  });

  it('every action has its sentence in en, ru and zh, also with an empty detail', () => {
    for (const lng of ['en', 'ru', 'zh']) {
      for (const action of STAFF_AUDIT_ACTIONS) {
        const text = say(entry(action, {}), lng);
        expect(text).not.toMatch(/\{\{|undefined|null|\[object/);
      }
    }
    expect(say(entry('grant-days', { days: 5 }), 'ru')).toBe('Добавил 5 дней клиенту ann@example.com');
  });
});
