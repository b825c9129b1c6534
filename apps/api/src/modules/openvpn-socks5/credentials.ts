import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import { SERVICE_VERIFIER } from '@warren/contract';

/**
 * Service credentials: a random username and password per account, for OpenVPN and SOCKS5. The
 * nodes receive only a salted scrypt verifier (`scrypt$N$r$p$salt$hash`), which the agent checks
 * locally with node:crypto; the account password is never involved.
 */
const LOWER = 'abcdefghijkmnpqrstuvwxyz23456789'; // no l, o, 0, 1: read aloud or typed on a TV
const MIXED = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';

function pick(alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[randomInt(alphabet.length)];
  return s;
}

export const newServiceUsername = () => `w${pick(LOWER, 11)}`;
/** 20 characters of a 56-letter alphabet: ~116 bits. */
export const newServicePassword = () => pick(MIXED, 20);

const scryptAsync = (password: string, salt: Buffer, keyLen: number, o: { N: number; r: number; p: number }) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, keyLen, { N: o.N, r: o.r, p: o.p, maxmem: 256 * o.N * o.r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );

export async function makeVerifier(password: string): Promise<string> {
  const { N, r, p, keyLen } = SERVICE_VERIFIER;
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, keyLen, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** The same check the agent runs (kept here so the API's tests prove the format round-trips). */
export async function checkVerifier(verifier: string, password: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(verifier);
  if (!m) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N > 1 << 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64');
  const got = await scryptAsync(password, Buffer.from(m[4]!, 'base64'), expected.length, { N, r, p });
  return got.length === expected.length && timingSafeEqual(got, expected);
}
