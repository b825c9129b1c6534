/** The visitor's system first, the others in the API's order. */
export function mineFirst<T extends { platform: string }>(items: readonly T[], mine: string): T[] {
  return [...items].sort((a, b) => Number(b.platform === mine) - Number(a.platform === mine));
}
