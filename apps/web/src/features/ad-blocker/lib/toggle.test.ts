import { describe, expect, it } from 'vitest';
import { AD_BLOCKER_ID, featureRows, isAdBlocker, toggleOutcome } from './toggle';

describe('toggleOutcome', () => {
  it('a truthy answer keeps the switch and notes on/off', () => {
    expect(toggleOutcome(true, { result: true })).toEqual({ kind: 'saved', state: true, note: 'turnedOn' });
    expect(toggleOutcome(false, { result: 1 })).toEqual({ kind: 'saved', state: false, note: 'turnedOff' });
  });
  it('a falsy answer says "Error to save" and flips back', () => {
    expect(toggleOutcome(true, { result: false })).toEqual({ kind: 'notSaved', state: false, note: 'errorToSave' });
    expect(toggleOutcome(false, {})).toEqual({ kind: 'notSaved', state: true, note: 'errorToSave' });
  });
  it('"your plan does not include this" (403, 402) opens the upgrade dialog and flips the switch back', () => {
    expect(toggleOutcome(true, { httpError: new Error('403'), status: 403 })).toEqual({
      kind: 'upgrade',
      state: false,
    });
    expect(toggleOutcome(false, { httpError: new Error('402'), status: 402 })).toEqual({
      kind: 'upgrade',
      state: true,
    });
  });
  it('a server error, a 404 or no answer at all is an error, never the upgrade dialog', () => {
    for (const status of [500, 502, 503, 404, 429, null]) {
      expect(toggleOutcome(true, { httpError: new Error(String(status)), status })).toEqual({
        kind: 'failed',
        state: false,
      });
    }
  });
});

describe('featureRows', () => {
  it('an empty or missing list falls back to a single premium Ad Blocker row', () => {
    for (const items of [[], undefined]) {
      const rows = featureRows(items);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        id: AD_BLOCKER_ID,
        name: 'Ad Blocker',
        premium: true,
        isEnabled: false,
        fallback: true,
      });
    }
  });
  it('a list is shown as it is, one row per feature', () => {
    const items = [
      { id: 1, name: 'Ad Blocker', isEnabled: true, premium: true },
      { id: 2, name: 'Kill switch', isEnabled: false, premium: false },
    ];
    expect(featureRows(items)).toEqual(items);
  });
  it('recognises the ad blocker by name', () => {
    expect(isAdBlocker({ name: 'Ad Blocker' })).toBe(true);
    expect(isAdBlocker({ name: 'ad-blocker' })).toBe(true);
    expect(isAdBlocker({ name: 'Kill switch' })).toBe(false);
  });
});
