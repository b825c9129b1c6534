import { AD_BLOCK_DEFAULT, type AdBlockCategory, type AdBlockSettings, type Feature } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { isPaidActive } from '../billing/index.js';
import type { UserRow } from '../users/index.js';
import { featuresRepository } from './repository.js';

/**
 * Per-user VPN features (the ad blocker). State is stored per user so the nodes can apply it;
 * premium features need a paid, unexpired plan, and free users get a 403 (the web app then
 * shows its upgrade dialog, spec section 4).
 */
export function featuresService(db: Database) {
  const repo = featuresRepository(db);
  const hasPaidPlan = (u: UserRow) =>
    isPaidActive(
      {
        tariffKey: u.tariff_key,
        tariffName: u.tariff_name,
        expiresAt: u.subscription_expires_at ? new Date(u.subscription_expires_at) : null,
      },
      new Date(),
    );

  return {
    async list(user: UserRow): Promise<Feature[]> {
      const rows = await repo.listFor(user.id);
      // A premium feature left on from a lapsed plan shows (and acts) as off.
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        premium: r.premium,
        isEnabled: Boolean(r.enabled) && (!r.premium || hasPaidPlan(user)),
      }));
    },

    async setState(user: UserRow, featureId: number, enabled: boolean): Promise<{ id: number; isEnabled: boolean }> {
      const f = await repo.find(featureId);
      if (!f) throw new NotFoundError('No such feature.');
      if (f.premium && !hasPaidPlan(user)) throw new ForbiddenError('This feature needs a premium plan.');
      await repo.setState(user.id, featureId, enabled);
      return { id: featureId, isEnabled: enabled };
    },

    /** The switch (as features/get shows it) and the categories it blocks. */
    async adBlocker(user: UserRow): Promise<AdBlockSettings> {
      const s = await repo.adblockSettings(user.id);
      return { enabled: s.enabled && hasPaidPlan(user), categories: s.categories ?? [...AD_BLOCK_DEFAULT] };
    },

    /** Premium like the switch; the nodes get it as this user's delta (the table's trigger). */
    async setCategories(user: UserRow, categories: AdBlockCategory[]): Promise<AdBlockSettings> {
      if (!hasPaidPlan(user)) throw new ForbiddenError('The ad blocker needs a premium plan.');
      await repo.setAdblockCategories(user.id, categories);
      return this.adBlocker(user);
    },
  };
}
export type FeaturesService = ReturnType<typeof featuresService>;
