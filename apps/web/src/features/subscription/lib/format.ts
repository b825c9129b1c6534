/** Money and dates as the page shows them, in the page's language. */
export function formatMoney(amountMinor: number, currency: string, language: string): string {
  try {
    return new Intl.NumberFormat(language, { style: 'currency', currency }).format(amountMinor / 100);
  } catch {
    return `${(amountMinor / 100).toFixed(2)} ${currency}`;
  }
}

export function formatDate(iso: string, language: string): string {
  return new Date(iso).toLocaleDateString(language, { year: 'numeric', month: 'long', day: 'numeric' });
}

/** A provider's id as a customer knows it. */
export function providerName(provider: string): string {
  const names: Record<string, string> = {
    sandbox: 'Sandbox',
    stripe: 'Stripe',
    payssion: 'Payssion',
    payssionv2: 'Payssion',
    cardlink: 'Cardlink',
    grant: '—',
  };
  return names[provider] ?? provider;
}
