/** Flag emoji from a two-letter country code (regional indicator symbols). */
export function flagOf(countryCode: string): string {
  if (!/^[A-Za-z]{2}$/.test(countryCode)) return '🏳️';
  return String.fromCodePoint(...[...countryCode.toUpperCase()].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

/** Case- and accent-insensitive match of a query against location names. */
export function matchesQuery(query: string, ...fields: string[]): boolean {
  const norm = (s: string) =>
    s
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
      .toLowerCase();
  const q = norm(query.trim());
  return !q || fields.some((f) => norm(f).includes(q));
}
