import type { StaffAuditEntry } from '@warren/contract';
import { formatMoney } from '../../../lib/billing/format';
import { formatDay } from './format';

/** Where the entry's target goes in its sentence: the page puts a link (a customer) or the plain name there. */
export const TARGET_MARK = '\u0000';

/** One audit entry in words: the translation key (namespace staff) and its values; the reason apart. */
export interface AuditWords {
  key: string;
  values: Record<string, string | number>;
  /** Values that are lists of phrases: each item a translation key, joined by the page into the value of that name. */
  lists?: Record<string, string[]>;
  reason: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

/**
 * What an audit entry says, as a sentence (issue 22: "granted 30 days to …", not `days: 30 ·
 * paymentId: …`). Pure: the page translates `key` with `values` (the target's place is
 * TARGET_MARK), and shows the reason below. A detail this page does not know (an older or newer
 * server) still reads: the sentence of the action, then its fields as `name: value`.
 */
export function auditWords(e: StaffAuditEntry, language: string): AuditWords {
  const d = e.detail;
  const reason = str(d.reason);
  const base = { target: TARGET_MARK };
  const say = (key: string, values: Record<string, string | number> = {}): AuditWords => ({
    key: `audit.say.${key}`,
    values: { ...base, ...values },
    reason,
  });
  switch (e.action) {
    case 'sign-in':
      if (d.secondFactor === 'recovery') return say('sign-in-recovery', { count: num(d.recoveryCodesLeft) ?? 0 });
      if (d.secondFactor === 'passkey') return say('sign-in-passkey');
      return say(d.secondFactor === 'totp' ? 'sign-in-totp' : 'sign-in');
    case 'sign-in-failed': {
      const why = str(d.why);
      return say(
        why && ['password', 'code', 'two-factor-off', 'disabled'].includes(why)
          ? `sign-in-failed-${why}`
          : 'sign-in-failed',
      );
    }
    case 'grant-days': {
      const until = str(d.until);
      const count = num(d.days) ?? 0;
      return until
        ? say('grant-days-until', { count, until: formatDay(until, language) })
        : say('grant-days', { count });
    }
    case 'refund': {
      const amountMinor = num(d.amountMinor);
      const currency = str(d.currency);
      const amount = amountMinor !== null && currency ? formatMoney(amountMinor, currency, language) : '';
      const how = bool(d.viaProvider) === false ? 'recorded' : 'provider';
      return say(`refund-${how}${bool(d.outsideWindow) ? '-outside' : ''}`, {
        payment: str(d.paymentId) ?? '—',
        amount,
      });
    }
    case 'sign-out-all':
      return say('sign-out-all', { count: num(d.sessions) ?? 0 });
    case 'disable':
    case 'enable':
    case 'delete':
    case 'resend-verification':
    case 'auto-renew-off':
    case 'reset-service-credentials':
    case 'customer-view':
    case 'sign-out':
    case 'node-token':
      return say(e.action);
    case 'location-add':
      return say(bool(d.premium) ? 'location-add-premium' : 'location-add', {
        city: str(d.city) ?? '',
        country: str(d.countryCode) ?? '',
      });
    case 'location-update':
      return { ...say('location-update'), lists: { changes: changes(d, ['enabled', 'premium', 'visible']) } };
    case 'node-add':
      return say('node-add', {
        location: str(d.location) ?? '',
        endpoint: `${str(d.endpointHost) ?? ''}:${num(d.listenPort) ?? ''}`,
      });
    case 'node-update':
      if (bool(d.draining) === true) return say('node-drain');
      if (bool(d.draining) === false) return say('node-undrain');
      return say(bool(d.enabled) === false ? 'node-off' : 'node-on');
    case 'job-retry':
      return say('job-retry', { queue: str(d.queue) ?? '', id: str(d.id) ?? '' });
    case 'role-grant':
      return str(d.previous)
        ? say('role-change', { role: str(d.role) ?? '', previous: str(d.previous)! })
        : say('role-grant', { role: str(d.role) ?? '' });
    case 'role-revoke':
      return say('role-revoke', { role: str(d.role) ?? '' });
    case 'affiliate-portal':
      return say(bool(d.enabled) === false ? 'affiliate-portal-off' : 'affiliate-portal-on');
    case 'passkey-add':
    case 'passkey-remove':
      return say(`${e.action}${d.where === 'profile' ? '-profile' : ''}`, { name: str(d.name) ?? '—' });
    case 'pseudonymise':
      return say(num(d.userId) !== null ? 'pseudonymise-account' : 'pseudonymise-addresses', {
        count: num(d.rows) ?? 0,
      });
    default:
      return { key: 'audit.say.unknown', values: { ...base, fields: fields(d) }, reason };
  }
}

/** The switches changed, each as the key of its phrase ("switched on", "made Premium"), in the order given. */
function changes(d: Record<string, unknown>, keys: string[]): string[] {
  return keys.filter((k) => typeof d[k] === 'boolean').map((k) => `audit.change.${k}-${d[k] ? 'on' : 'off'}`);
}

/** Any detail as `name: value` text, for an action this page does not know. */
export function fields(d: Record<string, unknown>): string {
  return Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}
