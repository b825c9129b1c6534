import { readCatalogue, seedCatalogue } from '../modules/billing/index.js';
import { CliNotFoundError, CliUsageError, type CliContext, type CliGroup } from './command.js';

/**
 * Billing operations for operators: prices, promo codes, grants and refunds. The services come
 * from the composition root, so a grant runs the same after-payment hooks as a payment through
 * the API (what a grant triggers: modules/billing/operator.ts).
 */
const operatorOf = async (ctx: CliContext) => (await ctx.services()).billing.operator;

async function userIdByEmail(ctx: CliContext, email: unknown): Promise<number> {
  if (typeof email !== 'string') throw new CliUsageError('--email is required');
  const id = await (await operatorOf(ctx)).userIdByEmail(email);
  if (id === undefined) throw new CliNotFoundError(`no user with email ${email}`);
  return id;
}

/** An email given as the first positional word or as --email. */
async function memberId(ctx: CliContext): Promise<{ id: number; email: string }> {
  const email = ctx.positionals[0];
  if (typeof email !== 'string') throw new CliUsageError("the customer's email is required");
  return { id: await userIdByEmail(ctx, email), email };
}

function asOfFlag(ctx: CliContext): Date {
  const v = ctx.flags['as-of'];
  if (v === undefined) return new Date();
  const d = typeof v === 'string' ? new Date(v) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new CliUsageError('--as-of must be an ISO time, e.g. 2026-12-01T00:00:00Z');
  return d;
}

const when = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : '-');
const money = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

export const commands: CliGroup = {
  'renew-due': {
    summary: 'run the renewal pass now: reminders, due renewals and retries, plans that ended',
    usage: '[--as-of 2026-12-01T00:00:00Z]',
    async run(ctx) {
      const asOf = asOfFlag(ctx);
      const r = await (await ctx.services()).jobs.runPass(asOf);
      ctx.print(
        `Renewal pass as of ${r.asOf}: ${r.reminders} reminder(s), ${r.renewals.length} renewal attempt(s), ${r.ended.length} plan(s) ended, ${r.resent} mail(s) re-sent.`,
      );
      for (const x of r.renewals)
        ctx.print(
          `  user ${x.userId}: ${x.outcome}${x.payment ? ` ${x.payment}` : ''}${x.error ? ` (${x.error})` : ''}`,
        );
    },
  },
  show: {
    summary: "a customer's subscription, renewal state, payments, billing mails and jobs",
    usage: '<email>',
    async run(ctx) {
      const { id, email } = await memberId(ctx);
      const services = await ctx.services();
      const { renewals, operator } = services.billing;
      const sub = await renewals.infoOf(id);
      const state = await renewals.state(id);
      ctx.print(`${email} (user ${id})`);
      ctx.print(
        `  plan        ${sub.plan.tariffName} (${sub.plan.tariffKey})${sub.plan.lifetime ? ', lifetime' : ''}, ${sub.status}, paid until ${sub.paidUntil ?? '-'}`,
      );
      ctx.print(
        `  auto-renew  ${sub.autoRenew ? 'on' : 'off'}${sub.canAutoRenew ? '' : ' (cannot renew)'}, renews at ${sub.renewsAt ?? '-'}${sub.nextCharge ? `, next charge ${money(sub.nextCharge.amountMinor, sub.nextCharge.currency)}` : ''}`,
      );
      ctx.print(
        `  method      ${sub.paymentMethod ? `${sub.paymentMethod.label} (${sub.paymentMethod.provider})` : '-'}${state?.unusable ? ' [reported unusable]' : ''}`,
      );
      if (state)
        ctx.print(
          `  attempts    ${state.failed_attempts} failed this period, next retry ${when(state.next_retry_at)}${state.last_error ? `, last error: ${state.last_error}` : ''}`,
        );
      ctx.print('Payments:');
      const payments = await operator.payments(id);
      for (const p of payments) {
        ctx.print(
          `  ${p.public_id}  ${String(p.kind ?? 'purchase').padEnd(8)} ${money(p.amount_minor, p.currency).padEnd(12)} ${p.status.padEnd(9)} ${p.provider.padEnd(10)} ${when(p.created_at)}${p.failure_reason ? `  ${String(p.failure_reason)}` : ''}`,
        );
      }
      if (!payments.length) ctx.print('  none');
      ctx.print('Billing mails:');
      const notices = await renewals.notices(id);
      for (const n of notices)
        ctx.print(
          `  ${n.kind.padEnd(16)} ${n.period_key.padEnd(26)} ${n.sent_at ? `sent ${when(n.sent_at)}` : 'NOT SENT yet'}`,
        );
      if (!notices.length) ctx.print('  none');
      ctx.print('Jobs:');
      const jobs = await services.jobs.list({ userId: id, all: true });
      for (const j of jobs)
        ctx.print(
          `  ${j.queue.padEnd(14)} ${j.state.padEnd(9)} ${j.startAfter}  retries ${j.retryCount}  ${JSON.stringify(j.output ?? null)}`,
        );
      if (!jobs.length) ctx.print('  none');
    },
  },
  'auto-renew': {
    summary: "turn a customer's auto-renew off or on",
    usage: '<email> off|on',
    async run(ctx) {
      const { id, email } = await memberId(ctx);
      const choice = ctx.positionals[1];
      if (choice !== 'on' && choice !== 'off') throw new CliUsageError('say on or off');
      try {
        const sub = await (await ctx.services()).billing.renewals.setAutoRenewOf(id, choice === 'on');
        ctx.print(
          `Auto-renew for ${email} is ${sub.autoRenew ? 'on' : 'off'}${sub.renewsAt ? `; renews at ${sub.renewsAt}` : ''}.`,
        );
      } catch (err) {
        throw new CliUsageError((err as Error).message);
      }
    },
  },
  'retry-renewal': {
    summary: "try a customer's failed renewal again now (the saved method, if still usable)",
    usage: '<email>',
    async run(ctx) {
      const { id, email } = await memberId(ctx);
      try {
        const r = await (await ctx.services()).billing.renewals.retryNow(id, new Date());
        ctx.print(
          `Renewal for ${email}: ${r.outcome}${r.payment ? ` (${r.payment})` : ''}${r.error ? `: ${r.error}` : ''}.`,
        );
      } catch (err) {
        throw new CliUsageError((err as Error).message);
      }
    },
  },
  'sandbox-card': {
    summary: "tests: make a customer's saved sandbox card decline its next charge, or report it lost (unusable)",
    usage: '<email> decline-next|lost',
    async run(ctx) {
      const { id, email } = await memberId(ctx);
      const what = ctx.positionals[1];
      if (what !== 'decline-next' && what !== 'lost') throw new CliUsageError('say decline-next or lost');
      const services = await ctx.services();
      const state = await services.billing.renewals.state(id);
      if (!services.sandbox || state?.provider !== 'sandbox' || !state.method_ref)
        throw new CliUsageError(`${email} has no saved sandbox card`);
      await services.sandbox.setCard(state.method_ref, what === 'lost' ? { unusable: true } : { declineNext: true });
      ctx.print(`Sandbox card of ${email}: ${what === 'lost' ? 'reported lost' : 'its next charge is declined'}.`);
    },
  },

  sync: {
    summary: 'apply the catalogue file (tariffs, prices, promo codes) to the database',
    usage: '[--file config/catalogue.json]',
    async run(ctx) {
      const file = typeof ctx.flags.file === 'string' ? ctx.flags.file : ctx.config.billing.catalogueFile;
      const catalogue = readCatalogue(file);
      await seedCatalogue(ctx.db, catalogue);
      ctx.print(
        `Catalogue applied from ${file}: ${catalogue.tariffs.length} tariffs, ${Object.keys(catalogue.priceLists).length} price lists, ${catalogue.promoCodes.length} promo codes.`,
      );
    },
  },
  'set-price': {
    summary: 'set one price (minor units) until the next sync',
    usage: '--list default --tariff 3 --currency USD --amount 5999',
    async run(ctx) {
      const { list, tariff, currency, amount } = ctx.flags;
      if (typeof list !== 'string' || !/^[a-z0-9-]+$/.test(list)) throw new CliUsageError('--list is required');
      if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
        throw new CliUsageError('--currency must be a 3-letter code');
      const tariffId = Number(tariff);
      const minor = Number(amount);
      if (!Number.isInteger(tariffId) || !Number.isInteger(minor) || minor <= 0)
        throw new CliUsageError('--tariff and --amount must be positive integers');
      await (await operatorOf(ctx)).setPrice(list, tariffId, currency, minor);
      ctx.print(
        `Price set: ${list} / tariff ${tariffId} / ${currency} = ${minor}. Put it in the catalogue file too, or the next sync reverts it.`,
      );
    },
  },
  prices: {
    summary: 'list prices',
    async run(ctx) {
      const rows = await (await operatorOf(ctx)).prices();
      for (const r of rows)
        ctx.print(
          `${r.price_list.padEnd(18)} ${String(r.tariff_id).padEnd(3)} ${r.currency} ${(r.amount_minor / 100).toFixed(2)}`,
        );
    },
  },
  grant: {
    summary: 'give a user a paid plan (support, tests)',
    usage: '--email user@example.com --tariff 1-year',
    async run(ctx) {
      const userId = await userIdByEmail(ctx, ctx.flags.email);
      if (typeof ctx.flags.tariff !== 'string')
        throw new CliUsageError('--tariff is required (a tariff key such as 1-month)');
      const payment = await (await operatorOf(ctx)).grant(userId, ctx.flags.tariff);
      ctx.print(
        `Granted ${ctx.flags.tariff} to ${ctx.flags.email} (${payment.public_id}), until ${payment.period_end ? new Date(payment.period_end).toISOString() : 'forever'}.`,
      );
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
        ctx.print(
          `Refunded ${p.public_id}: the period it bought was taken back. Refund the money at ${p.provider} if it does not refund automatically.`,
        );
      } catch (err) {
        const e = err as { errors?: Record<string, string[]>; message: string };
        throw new CliUsageError(e.errors ? Object.values(e.errors).flat().join(' ') : e.message);
      }
    },
  },
  'refund-requests': {
    summary: "list customers' money-back requests support still has to refund (Payssion, Cardlink)",
    async run(ctx) {
      const rows = await (await ctx.services()).billing.refunds.pending();
      for (const r of rows)
        ctx.print(
          `${r.public_id}  ${r.email}  ${r.provider}  ${money(r.amount_minor, r.currency)}  requested ${when(r.requested_at)}`,
        );
      if (!rows.length) ctx.print('No pending refund requests.');
      else
        ctx.print(
          'Give the money back at the provider, then: warren billing refund --payment <id> (--force once the window has closed).',
        );
    },
  },
  payments: {
    summary: 'list the payments of a user',
    usage: '--email user@example.com',
    async run(ctx) {
      const userId = await userIdByEmail(ctx, ctx.flags.email);
      const rows = await (await operatorOf(ctx)).payments(userId);
      for (const r of rows)
        ctx.print(
          `${r.public_id}  tariff ${r.tariff_id}  ${(r.amount_minor / 100).toFixed(2)} ${r.currency}  ${r.status.padEnd(9)} ${r.provider}  ${new Date(r.created_at).toISOString()}`,
        );
      if (!rows.length) ctx.print('No payments.');
    },
  },
};
