import { WG_KEY_LIFETIME_CHOICES, type WgDevice, wgKeyLeft } from '@warren/contract';

/**
 * What the device list says of a key (issue 23): nothing for a key that never expires, "expires in
 * N days/hours", or expired (the device cannot connect until its key is rotated). `tone` picks
 * the colour: a key in its last day is a warning.
 */
export function keyExpiryLabel(
  device: Pick<WgDevice, 'keyExpiresAt'>,
  now: number,
  t: (key: string, o?: Record<string, unknown>) => string,
): { text: string; tone: 'ok' | 'soon' | 'expired' } | null {
  const left = wgKeyLeft(device.keyExpiresAt ?? null, now);
  if (left.state === 'never') return null;
  if (left.state === 'expired') return { text: t('setup.wgKey.expired'), tone: 'expired' };
  if (left.state === 'hours') return { text: t('setup.wgKey.expiresInHours', { count: left.count }), tone: 'soon' };
  return { text: t('setup.wgKey.expiresInDays', { count: left.count }), tone: left.count <= 1 ? 'soon' : 'ok' };
}

/** The lifetime select's choices: never, then the offered days, and the device's own if it is another. */
export function lifetimeChoices(current: number | null | undefined): (number | null)[] {
  const days: number[] = [...WG_KEY_LIFETIME_CHOICES];
  if (current && !days.includes(current)) days.push(current);
  return [null, ...days.sort((a, b) => a - b)];
}
