/**
 * Which parts of a staff search the trigram index should look up (issue 22).
 *
 * `lower(email) like '%q%'` makes pg_trgm's GIN index read the posting list of every trigram of q,
 * and the common ones (a shared domain such as `gma`/`com`, or a shared prefix) hold most of the
 * table: at 200,000 accounts a pasted full address took 49 ms in the index, and `1037` alone 0.2 ms.
 * So the index is asked only for the rarest trigrams of q (as a sample of the addresses counts them),
 * and the whole of q is checked on the few rows they leave. The answer is the same rows: every
 * trigram is part of q, so a row holding q holds them.
 */

/** Trigrams of the lowered query that pg_trgm extracts from a LIKE pattern: three ASCII letters or digits in a row. */
export function trigramsOf(q: string): string[] {
  const out = new Set<string>();
  // ASCII only: pg_trgm's idea of a word character follows the database's locale, and a trigram it would
  // not extract would make the index scan everything (still correct, but slow).
  for (const word of q.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []) {
    for (let i = 0; i + 3 <= word.length; i++) out.add(word.slice(i, i + 3));
  }
  return [...out];
}

/**
 * The `count` trigrams of q that the fewest addresses of the sample contain (ties: the later in q,
 * which for addresses is the more particular part before a shared domain has begun). Empty when q has
 * none: the caller then matches q alone.
 */
export function rarestTrigrams(q: string, sample: readonly string[], count = 2): string[] {
  const trigrams = trigramsOf(q);
  const seen = trigrams.map((t, i) => ({ t, i, n: sample.reduce((n, email) => (email.includes(t) ? n + 1 : n), 0) }));
  return seen
    .sort((a, b) => a.n - b.n || b.i - a.i)
    .slice(0, count)
    .map((s) => s.t);
}

/** A LIKE pattern that finds `fragment` anywhere, its wildcards escaped so `_` and `%` match themselves. */
export const containsPattern = (fragment: string) => `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
