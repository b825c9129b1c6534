import type { CliGroup } from './command.js';
import { CliUsageError } from './command.js';

/** Values no configured secret opens: exit 1 (the command ran; the data needs the secret it was sealed with). */
class UnreadableValues extends CliUsageError {
  override readonly exitCode = 1;
}

/**
 * `npx warren secrets …`: secret rotation (README: Rotating secrets). Run through the server's
 * admin channel when one answers, so the keys are the server's own configuration.
 */
export const commands: CliGroup = {
  status: {
    summary: 'the id of each configured secret, and how many sealed values are under each key',
    async run(ctx) {
      const { keys, columns } = await (await ctx.services()).secrets.status();
      ctx.print('Configured secrets:');
      for (const k of keys) ctx.print(`  ${k.id}  ${k.setting}${k.current ? ' (seals new values)' : ''}`);
      ctx.print('Sealed values by key:');
      for (const c of columns) {
        const counts = Object.entries(c.keys).map(
          ([id, n]) =>
            `${id || 'no key id yet'}: ${n}${id && !keys.some((k) => k.id === id) ? ' (NOT CONFIGURED)' : ''}`,
        );
        ctx.print(`  ${c.what}: ${counts.length ? counts.join(', ') : 'none'}`);
      }
    },
  },
  reseal: {
    summary:
      'seal every value under the current APP_SECRET (OPENVPN_CA_SECRET for OpenVPN material) again; then APP_SECRET_PREVIOUS can be removed',
    async run(ctx) {
      const services = await ctx.services();
      const reports = await services.secrets.reseal();
      let unreadable = 0;
      for (const r of reports) {
        const under =
          Object.entries(r.keys)
            .map(([id, n]) => `${n} under ${id || 'no key id'}`)
            .join(', ') || 'none';
        ctx.print(
          `${r.what}: ${r.resealed} resealed${r.unreadable ? `, ${r.unreadable} NOT OPENED` : ''} (now ${under})`,
        );
        unreadable += r.unreadable;
      }
      if (unreadable)
        throw new UnreadableValues(
          `${unreadable} sealed values could not be opened with the configured secrets: they are left as they were. Add the secret they were sealed with to APP_SECRET_PREVIOUS and run this again (npx warren secrets status shows their key ids).`,
        );
      const current = (await services.secrets.status()).keys.filter((k) => k.current);
      ctx.print(
        `Every sealed value is under ${current.map((k) => `${k.setting} (${k.id})`).join(' and ')}: APP_SECRET_PREVIOUS can be removed once every instance runs with the new secret.`,
      );
    },
  },
};
