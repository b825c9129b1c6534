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
 * How many addresses of the sample hold each trigram, counted once when the sample is read: a search
 * then looks its trigrams up instead of scanning 2,000 addresses for each (a long query has ~250).
 */
export function trigramCounts(sample: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const email of sample) for (const t of trigramsOf(email)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/**
 * The `count` trigrams of q that the fewest addresses of the sample contain (ties: the later in q,
 * which for addresses is the more particular part before a shared domain has begun). Empty when q has
 * none: the caller then matches q alone.
 */
export function rarestTrigrams(q: string, counts: ReadonlyMap<string, number>, count = 2): string[] {
  return trigramsOf(q)
    .map((t, i) => ({ t, i, n: counts.get(t) ?? 0 }))
    .sort((a, b) => a.n - b.n || b.i - a.i)
    .slice(0, count)
    .map((s) => s.t);
}

/** A LIKE pattern that finds `fragment` anywhere, its wildcards escaped so `_` and `%` match themselves. */
export const containsPattern = (fragment: string) => `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
