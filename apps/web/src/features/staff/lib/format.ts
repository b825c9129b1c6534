/** A date and time in the page's language, or a dash for none. */
export function formatWhen(iso: string | null | undefined, language: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDay(iso: string | null | undefined, language: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleDateString(language, { dateStyle: 'medium' });
}

/** "3 minutes ago" in the page's language (Intl), for live status. */
export function formatAgo(iso: string | null | undefined, language: string, now = Date.now()): string {
  if (!iso) return '—';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '—';
  const s = Math.round((t - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(s, 'second');
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86_400), 'day');
}

/**
 * A second-factor code the console's sign-in sends: the authenticator's 6 digits, or a recovery code
 * (`abcd-efgh-ijkl`, compared by the API without case or dashes: at least 8 letters and digits).
 */
export function isSecondFactorCode(code: string): boolean {
  const c = code.trim();
  if (/^\d+$/.test(c)) return c.length === 6;
  return /^[A-Za-z0-9-]{8,32}$/.test(c) && c.replace(/-/g, '').length >= 8;
}
