import { STAFF_ROLES, type StaffRole } from '@warren/contract';
import { NotFoundError } from '../lib/errors.js';
import { parseHead } from '../modules/staff/index.js';
import { type CliContext, type CliGroup, CliUsageError } from './command.js';

/**
 * `npx warren staff …`: who may use the operator console. Roles are granted only here (never from
 * the console itself), and each grant or revoke is written to the audit log as "operator (CLI)".
 */
const staffOf = async (ctx: CliContext) => (await ctx.services()).staff;

function emailOf(ctx: CliContext): string {
  const email = ctx.positionals[0];
  if (typeof email !== 'string' || !email.includes('@')) throw new CliUsageError("the account's email is required");
  return email.trim().toLowerCase();
}

async function friendly<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NotFoundError) throw new CliUsageError(err.message);
    throw err;
  }
}

/** A broken audit chain: exit 1 (the command ran rightly; what it checked failed). */
class AuditChainBroken extends CliUsageError {
  override readonly exitCode = 1;
}

export const commands: CliGroup = {
  grant: {
    summary: 'give an account a staff role (support or admin); it signs in to the console with two-factor on',
    usage: '<email> --role support|admin',
    async run(ctx) {
      const email = emailOf(ctx);
      const role = ctx.flags.role;
      if (typeof role !== 'string' || !(STAFF_ROLES as readonly string[]).includes(role))
        throw new CliUsageError('--role must be support or admin');
      const r = await friendly(async () => (await staffOf(ctx)).grantRole(email, role as StaffRole));
      ctx.print(
        `${email} is ${role}${r.previous && r.previous !== role ? ` (was ${r.previous}; its console sessions ended)` : ''}.`,
      );
      if (!r.twoFactor)
        ctx.print(
          'Two-factor sign-in is off for this account: it must be turned on in the profile before the console lets it in.',
        );
    },
  },
  revoke: {
    summary: "take an account's staff role away (its console sessions end at once)",
    usage: '<email>',
    async run(ctx) {
      const email = emailOf(ctx);
      const removed = await friendly(async () => (await staffOf(ctx)).revokeRole(email));
      ctx.print(removed ? `${email} has no staff role any more.` : `${email} had no staff role.`);
    },
  },
  audit: {
    summary:
      "verify the audit log's hash chain: names the first row edited, inserted or missing (exit 1); --head compares with a head exported earlier",
    usage:
      'verify [--head SEQ[:HASH]]   (SEQ: the metric warren_staff_audit_head_seq; SEQ:HASH: a "staff audit appended" log line)',
    async run(ctx) {
      if (ctx.positionals[0] !== 'verify' || ctx.positionals.length > 1)
        throw new CliUsageError('usage: npx warren staff audit verify [--head SEQ[:HASH]]');
      const flag = ctx.flags.head;
      const head = flag === undefined ? undefined : typeof flag === 'string' ? parseHead(flag) : undefined;
      if (flag !== undefined && !head)
        throw new CliUsageError('--head must be SEQ or SEQ:HASH (12 to 64 hex digits of the hash)');
      const r = await (await staffOf(ctx)).verifyAudit(head);
      if (r.ok) {
        ctx.print(
          `OK: ${r.rows} rows, head seq ${r.head.seq} ${r.head.hash}${r.pseudonymised ? `, ${r.pseudonymised} pseudonymised (recorded)` : ''}${head ? `; the exported head seq ${head.seq} is in the chain` : ''}.`,
        );
        return;
      }
      for (const p of r.problems) ctx.print(p);
      throw new AuditChainBroken(
        `the staff audit chain is broken (${r.problems.length}${r.problems.length >= 20 ? '+' : ''} problems): first ${r.problems[0]}`,
      );
    },
  },
  list: {
    summary: 'list staff accounts and their roles',
    async run(ctx) {
      const rows = await (await staffOf(ctx)).members();
      for (const r of rows)
        ctx.print(
          `${r.email.padEnd(40)} ${r.role.padEnd(8)} granted ${new Date(r.granted_at).toISOString()}${r.totp_enabled ? '' : '  [two-factor off: cannot sign in]'}`,
        );
      if (!rows.length)
        ctx.print('No staff accounts. Make the first admin: npx warren staff grant <email> --role admin');
    },
  },
};
