import { describe, expect, it } from 'vitest';
import { initials } from '@warren/contract';
import { isChineseBrowser, supportChatState, userDisplayName } from './support-chat';

describe('supportChatState', () => {
  const botUrl = 'https://t.me/warren_support_bot';
  it.each([
    [botUrl, ['en-US', 'en'], '', { button: true, openOnStart: false }],
    [botUrl, ['ru-RU'], '?openChat', { button: true, openOnStart: true }],
    [botUrl, ['zh-CN', 'zh'], '', { button: false, openOnStart: false }],
    [botUrl, ['en-US', 'zh-TW'], '', { button: false, openOnStart: false }],
    [botUrl, ['zh'], '?openChat=1', { button: false, openOnStart: true }],
    [null, ['en-US'], '?openChat', { button: false, openOnStart: false }],
    [undefined, [], '', { button: false, openOnStart: false }],
  ] as const)('bot %s, languages %o, search %s', (url, languages, search, expected) => {
    expect(supportChatState({ botUrl: url, languages, search })).toEqual(expected);
  });

  it('recognises Chinese language tags only', () => {
    expect(isChineseBrowser(['zh-Hans-CN'])).toBe(true);
    expect(isChineseBrowser(['zu', 'en'])).toBe(false);
    expect(isChineseBrowser([])).toBe(false);
  });
});

describe('user menu display', () => {
  it.each([
    [{ firstName: 'ada', secondName: 'Lovelace', email: 'ada@example.com' }, 'AD', 'ada Lovelace'],
    [{ firstName: '  ', secondName: '', email: 'zed@example.com' }, 'ZE', ''],
    [{ firstName: 'Ян', secondName: ' ', email: 'y@example.com' }, 'ЯН', 'Ян'],
    [{ firstName: '', secondName: 'Only', email: 'x@example.com' }, 'X@', 'Only'],
  ])('%o → %s / %s', (u, expectedInitials, name) => {
    expect(initials(u)).toBe(expectedInitials);
    expect(userDisplayName(u)).toBe(name);
  });
});
