import { readCatalogue, seedCatalogue } from '../modules/billing/index.js';
import { CliUsageError, type CliContext, type CliGroup } from './command.js';

/**
 * Billing operations for operators: prices, promo codes, grants and refunds. The services come
 * from the composition root, so a grant runs the same after-payment hooks as a payment through
 * the API (what a grant triggers: modules/billing/operator.ts).
 */
const operatorOf = async (ctx: CliContext) => (await ctx.services()).billing.operator;

async function userIdByEmail(ctx: CliContext, email: unknown): Promise<number> {
  if (typeof email !== 'string') throw new CliUsageError('--email is required');
  const id = await (await operatorOf(ctx)).userIdByEmail(email);
  if (id === undefined) throw new CliUsageError(`no user with email ${email}`);
  return id;
}

export const commands: CliGroup = {
  sync: {
    summary: 'apply the catalogue file (tariffs, prices, promo codes) to the database',
    usage: '[--file config/catalogue.json]',
    async run(ctx) {
      const file = typeof ctx.flags.file === 'string' ? ctx.flags.file : ctx.config.billing.catalogueFile;
      const catalogue = readCatalogue(file);
      await seedCatalogue(ctx.db, catalogue);
      ctx.print(`Catalogue applied from ${file}: ${catalogue.tariffs.length} tariffs, ${Object.keys(catalogue.priceLists).length} price lists, ${catalogue.promoCodes.length} promo codes.`);
    },
  },
  'set-price': {
    summary: 'set one price (minor units) until the next sync',
    usage: '--list default --tariff 3 --currency USD --amount 5999',
    async run(ctx) {
      const { list, tariff, currency, amount } = ctx.flags;
      if (typeof list !== 'string' || !/^[a-z0-9-]+$/.test(list)) throw new CliUsageError('--list is required');
      if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) throw new CliUsageError('--currency must be a 3-letter code');
      const tariffId = Number(tariff);
      const minor = Number(amount);
      if (!Number.isInteger(tariffId) || !Number.isInteger(minor) || minor <= 0) throw new CliUsageError('--tariff and --amount must be positive integers');
      await (await operatorOf(ctx)).setPrice(list, tariffId, currency, minor);
      ctx.print(`Price set: ${list} / tariff ${tariffId} / ${currency} = ${minor}. Put it in the catalogue file too, or the next sync reverts it.`);
    },
  },
  prices: {
    summary: 'list prices',
    async run(ctx) {
      const rows = await (await operatorOf(ctx)).prices();
      for (const r of rows) ctx.print(`${r.price_list.padEnd(18)} ${String(r.tariff_id).padEnd(3)} ${r.currency} ${(r.amount_minor / 100).toFixed(2)}`);
    },
  },
  grant: {
    summary: 'give a user a paid plan (support, tests)',
    usage: '--email user@example.com --tariff 1-year',
    async run(ctx) {
      const userId = await userIdByEmail(ctx, ctx.flags.email);
      if (typeof ctx.flags.tariff !== 'string') throw new CliUsageError('--tariff is required (a tariff key such as 1-month)');
      const payment = await (await operatorOf(ctx)).grant(userId, ctx.flags.tariff);
      ctx.print(`Granted ${ctx.flags.tariff} to ${ctx.flags.email} (${payment.public_id}), until ${payment.period_end ? new Date(payment.period_end).toISOString() : 'forever'}.`);
    },
  },
  refund: {
    summary: 'refund a payment inside the money-back window (--force outside it)',
    usage: '--payment pay_… [--force]',
    async run(ctx) {
      if (typeof ctx.flags.payment !== 'string') throw new CliUsageError('--payment is required');
      const operator = await operatorOf(ctx);
      try {
        const p = await operator.refund(ctx.flags.payment, { force: ctx.flags.force === true });
        ctx.print(`Refunded ${p.public_id}: the period it bought was taken back. Refund the money at ${p.provider} if it does not refund automatically.`);
      } catch (err) {
        const e = err as { errors?: Record<string, string[]>; message: string };
        throw new CliUsageError(e.errors ? Object.values(e.errors).flat().join(' ') : e.message);
      }
    },
  },
  payments: {
    summary: 'list the payments of a user',
    usage: '--email user@example.com',
    async run(ctx) {
      const userId = await userIdByEmail(ctx, ctx.flags.email);
      const rows = await (await operatorOf(ctx)).payments(userId);
      for (const r of rows) ctx.print(`${r.public_id}  tariff ${r.tariff_id}  ${(r.amount_minor / 100).toFixed(2)} ${r.currency}  ${r.status.padEnd(9)} ${r.provider}  ${new Date(r.created_at).toISOString()}`);
      if (!rows.length) ctx.print('No payments.');
    },
  },
};
