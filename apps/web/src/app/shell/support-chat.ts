/** Chinese-language browsers get no chat button (spec section 2): the messenger is blocked there. */
export function isChineseBrowser(languages: readonly string[]): boolean {
  return languages.some((l) => /^zh\b/i.test(l.trim()));
}

export interface SupportChatState {
  /** The floating chat button. */
  button: boolean;
  /** The chat card is open on arrival (`?openChat`). */
  openOnStart: boolean;
}

/**
 * The support chat (spec section 2): on brands with a chat, a floating button unless the
 * browser language is Chinese; the opt-in `?openChat` opens the card for everyone on such a brand.
 */
export function supportChatState(opts: {
  botUrl: string | null | undefined;
  languages: readonly string[];
  search: string;
}): SupportChatState {
  if (!opts.botUrl) return { button: false, openOnStart: false };
  const openOnStart = new URLSearchParams(opts.search).has('openChat');
  return { button: !isChineseBrowser(opts.languages), openOnStart };
}

/** The user menu's head: initials (contract rule), full name, email. */
export function userDisplayName(u: { firstName: string; secondName: string }): string {
  return [u.firstName, u.secondName]
    .map((s) => s.trim())
    .filter(Boolean)
    .join(' ');
}
