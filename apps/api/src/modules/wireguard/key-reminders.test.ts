import { describe, expect, it } from 'vitest';
import { keyReminderDue } from './key-reminders.js';

const END = new Date('2026-12-01T12:00:00Z');
const before = (h: number) => new Date(END.getTime() - h * 3_600_000);

describe('keyReminderDue', () => {
  it('is due in the last 24 hours of a key that lives two days or more', () => {
    expect(keyReminderDue(END, 7, before(25))).toBe(false);
    expect(keyReminderDue(END, 7, before(24))).toBe(true);
    expect(keyReminderDue(END, 2, before(1))).toBe(true);
    expect(keyReminderDue(END.toISOString(), 30, before(0.01))).toBe(true);
  });
  it('is due half way through a one-day key, not the moment it is made', () => {
    expect(keyReminderDue(END, 1, before(24))).toBe(false);
    expect(keyReminderDue(END, 1, before(12.5))).toBe(false);
    expect(keyReminderDue(END, 1, before(12))).toBe(true);
  });
  it('is never due once the key expired', () => {
    expect(keyReminderDue(END, 7, END)).toBe(false);
    expect(keyReminderDue(END, 7, before(-1))).toBe(false);
  });
});
