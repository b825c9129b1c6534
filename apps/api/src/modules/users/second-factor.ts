import type { Keyring } from '../../lib/keyring.js';
import { hashToken } from '../../lib/secrets.js';
import { totpStep } from '../../lib/totp.js';
import type { UsersRepository } from './repository.js';

/** Recovery codes look like `abcd-efgh-ijkl`; compared case- and dash-insensitively. */
export const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Checks second-factor codes and spends them: an authenticator code's time step (with every
 * earlier step) and a recovery code are each good once, decided by one conditional UPDATE so
 * parallel requests cannot share a code. Callers budget the tries (LIMITS.secondFactorPerUser).
 */
export function secondFactor(repo: UsersRepository, keys: Keyring) {
  async function totp(userId: number, sealedSecret: string | null, code: string): Promise<boolean> {
    if (!sealedSecret) return false;
    const step = totpStep(keys, sealedSecret, code);
    return step !== null && (await repo.useTotpStep(userId, step));
  }

  return {
    totp,
    /** An authenticator code of the account's secret, or one of its recovery codes: which one it was (the owner is told of a recovery code), or false. */
    async check(user: { id: number; totp_secret: string | null }, code: string): Promise<'totp' | 'recovery' | false> {
      if (await totp(user.id, user.totp_secret, code)) return 'totp';
      const normalised = normaliseRecoveryCode(code);
      return normalised.length >= 8 && (await repo.useRecoveryCode(user.id, hashToken(normalised)))
        ? 'recovery'
        : false;
    },
  };
}
export type SecondFactor = ReturnType<typeof secondFactor>;
