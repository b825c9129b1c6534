import { hash, verify } from '@node-rs/argon2';

/** argon2id with the OWASP password-storage parameters: 19 MiB, 2 iterations, 1 lane. */
const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** A hash of nothing anyone knows: verifying against it costs what a real verify costs. */
let dummyHash: Promise<string> | undefined;

/** Always spends one argon2 verify, also for unknown accounts, so timing does not reveal them. */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  const target = storedHash || (await (dummyHash ??= hash(`no-such-user-${Math.random()}`, OPTIONS)));
  try {
    const ok = await verify(target, password);
    return ok && Boolean(storedHash);
  } catch {
    return false;
  }
}
