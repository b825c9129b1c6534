import { NotFoundError } from '../lib/errors.js';
import { type CliGroup, CliUsageError } from './command.js';

/**
 * `npx warren affiliate …`: the affiliate-portal flag, which the spec's portal rule reads (the
 * menu's affiliate link opens the brand's partner portal for accounts that have it). Each switch
 * is written to the staff audit log as "operator (CLI)", like a staff role.
 */
export const commands: CliGroup = {
  portal: {
    summary: "turn an account's affiliate-portal flag on or off (its menu's affiliate link opens the brand's portal)",
    usage: '<email> on|off',
    async run(ctx) {
      const [email, state, ...rest] = ctx.positionals;
      if (typeof email !== 'string' || !email.includes('@')) throw new CliUsageError("the account's email is required");
      if ((state !== 'on' && state !== 'off') || rest.length)
        throw new CliUsageError('usage: npx warren affiliate portal <email> on|off');
      const services = await ctx.services();
      const address = email.trim().toLowerCase();
      let r: Awaited<ReturnType<typeof services.staff.setAffiliatePortal>>;
      try {
        r = await services.staff.setAffiliatePortal(address, state === 'on');
      } catch (err) {
        if (err instanceof NotFoundError) throw new CliUsageError(err.message);
        throw err;
      }
      ctx.print(
        `${address}: affiliate portal ${state}${r.changed ? '' : ' (it already was)'}. It shows at the account's next page load.`,
      );
      if (state === 'on' && !services.brands.byId(r.brand)?.affiliatePortalUrl) {
        ctx.print(
          `Its brand (${r.brand}) has no affiliatePortalUrl in the brand registry: the menu keeps the built-in affiliate page until one is set.`,
        );
      }
    },
  },
};
