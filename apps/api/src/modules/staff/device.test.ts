import { describe, expect, it } from 'vitest';
import { STAFF_DEVICE_DAYS, staffDevices } from './device.js';

describe('the known-device cookie of the staff sign-in', () => {
  const devices = staffDevices(['a-test-app-secret-of-enough-length-0123456789']);
  const now = new Date('2026-11-27T20:00:00Z');

  it('is known for the email it was issued to, in any case, until it is 30 days old', () => {
    const cookie = devices.issue('Member@Example.com', now, 'device1');
    expect(devices.verify(cookie, 'member@example.com', now)).toBe('device1');
    expect(devices.verify(cookie, 'member@example.com', new Date(now.getTime() + STAFF_DEVICE_DAYS * 86_400_000))).toBe(
      'device1',
    );
    expect(
      devices.verify(cookie, 'member@example.com', new Date(now.getTime() + STAFF_DEVICE_DAYS * 86_400_000 + 1)),
    ).toBeUndefined();
  });

  it("buys nothing for another account (an attacker's own cookie), another secret, or an edited cookie", () => {
    const cookie = devices.issue('attacker@example.com', now, 'device1');
    expect(devices.verify(cookie, 'member@example.com', now)).toBeUndefined();
    expect(
      staffDevices(['another-secret-of-enough-length-0123456789abc']).verify(cookie, 'attacker@example.com', now),
    ).toBeUndefined();
    const [id, at, sig] = cookie.split('.');
    for (const forged of [
      `x${id}.${at}.${sig}`,
      `${id}.${Number(at) + 1}.${sig}`,
      `${id}.${at}.${sig}x`,
      `${id}.${at}`,
      `${cookie}.x`,
      '',
      'a'.repeat(500),
    ]) {
      expect(devices.verify(forged, 'attacker@example.com', now), forged).toBeUndefined();
    }
    // A cookie from the future (more than a minute of clock skew) is no cookie.
    expect(
      devices.verify(
        devices.issue('attacker@example.com', new Date(now.getTime() + 120_000)),
        'attacker@example.com',
        now,
      ),
    ).toBeUndefined();
  });

  it('stays known across a rotation while the old secret is in APP_SECRET_PREVIOUS, and new cookies are signed with the new one', () => {
    const old = 'a-test-app-secret-of-enough-length-0123456789';
    const next = 'the-rotated-app-secret-of-enough-length-98765';
    const cookie = devices.issue('member@example.com', now, 'device1');
    const rotated = staffDevices([next, old]);
    expect(rotated.verify(cookie, 'member@example.com', now)).toBe('device1');
    expect(staffDevices([next]).verify(cookie, 'member@example.com', now)).toBeUndefined();
    expect(
      staffDevices([next]).verify(rotated.issue('member@example.com', now, 'device2'), 'member@example.com', now),
    ).toBe('device2');
  });
});
