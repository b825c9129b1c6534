/**
 * Checks an API answer with one of the contract's zod-free shape checks (shape-checks.ts):
 * the calls a first screen makes validate what they read without loading zod.
 */
export function ensureShape<T>(value: unknown, check: (v: unknown) => v is T, call: string): T {
  if (!check(value)) throw new TypeError(`${call} answered with an unexpected shape`);
  return value;
}
