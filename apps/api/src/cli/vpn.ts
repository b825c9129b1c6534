import { DomainError, ValidationError } from '../lib/errors.js';
import { type CliContext, type CliGroup, CliUsageError } from './command.js';

/**
 * `npx warren vpn …`: locations and nodes. A node token is printed once (only its hash is kept);
 * the node's agent reads it from /etc/warren/node-token (or --token-file), never from its command line.
 */
/** The operator's actions from the composition root, the same the API's VPN area uses. */
const adminOf = async (ctx: CliContext) => (await ctx.services()).vpn.admin;
type Services = Awaited<ReturnType<CliContext['services']>>;

const str = (ctx: CliContext, name: string, required = true): string | undefined => {
  const v = ctx.flags[name];
  if (typeof v === 'string' && v.trim()) return v.trim();
  if (required) throw new CliUsageError(`--${name} is required`);
  return undefined;
};
const num = (ctx: CliContext, name: string, required = true): number | undefined => {
  const v = str(ctx, name, required);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliUsageError(`--${name} must be a number`);
  return n;
};
const bool = (ctx: CliContext, name: string): boolean | undefined => {
  const v = ctx.flags[name];
  if (v === undefined) return undefined;
  if (v === true || v === 'true' || v === 'yes' || v === '1') return true;
  if (v === 'false' || v === 'no' || v === '0') return false;
  throw new CliUsageError(`--${name} must be true or false`);
};

/** Turns the admin functions' refusals (bad input, a taken or unknown name: 4xx domain errors) into usage errors (exit 64, one line). */
async function friendly<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ValidationError && err.errors)
      throw new CliUsageError(
        Object.entries(err.errors)
          .map(([field, messages]) => `${field}: ${messages.join(', ')}`)
          .join('; '),
      );
    if (err instanceof DomainError && err.status < 500) throw new CliUsageError(err.message);
    throw err;
  }
}

type AuditCli = (
  action: Parameters<Services['staff']['auditCliVpnChange']>[0],
  target: string,
  detail?: Record<string, unknown>,
) => Promise<void>;

/**
 * A command on the operator's actions, its validation and "not found" errors as usage errors.
 * What it changed is written to the staff audit log as "operator (CLI)" (`audit`), as the
 * console's same change is.
 */
const withAdmin =
  (fn: (admin: Awaited<ReturnType<typeof adminOf>>, ctx: CliContext, audit: AuditCli) => Promise<void>) =>
  async (ctx: CliContext): Promise<void> => {
    const services = await ctx.services();
    const audit: AuditCli = (action, target, detail) => services.staff.auditCliVpnChange(action, target, detail);
    await friendly(() => fn(services.vpn.admin, ctx, audit));
  };

/** The fields a change named (undefined ones left out), for its audit row. */
const named = (patch: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));

/** The one node name a command takes as its word (`npx warren vpn drain de-fra-1`). */
function nodeArg(ctx: CliContext, command: string): string {
  const [name] = ctx.positionals;
  if (ctx.positionals.length !== 1 || !name?.trim()) throw new CliUsageError(`usage: npx warren vpn ${command} <node>`);
  return name.trim();
}

function printToken(ctx: CliContext, node: string, token: string, port?: number) {
  ctx.print(`Node token for ${node} (shown once; only its hash is stored):`);
  ctx.print(token);
  ctx.print('');
  // The steps of apps/agent/README.md ("Adding a node"), as they are today: the token goes in a
  // file (a command line is visible to every user), then setup brings the node up and starts the agent.
  if (port === undefined) {
    // A new token for a node that runs: only the file changes.
    ctx.print('On the node, replace the token file and restart the agent (the old token already stopped working):');
    ctx.print('  (umask 077; cat > /etc/warren/node-token)   # paste the token, then Ctrl-D');
    ctx.print('  systemctl restart warren-agent');
    return;
  }
  ctx.print('On the node, with the agent copied to /opt/warren-agent (apps/agent/README.md):');
  ctx.print(
    '  install -d -m 700 /etc/warren && (umask 077; cat > /etc/warren/node-token)   # paste the token, then Ctrl-D',
  );
  ctx.print(`  node /opt/warren-agent/bin/warren-agent.mjs setup --api https://<api host> --port ${port}`);
}

export const commands: CliGroup = {
  'add-location': {
    summary: 'add a server location',
    usage:
      '--slug de-fra --country-code DE --country Germany --city Frankfurt --lat 50.11 --lon 8.68 [--country-ru … --country-zh … --city-ru … --city-zh …] [--free] [--hidden]',
    run: withAdmin(async (admin, ctx, audit) => {
      const country = str(ctx, 'country')!;
      const city = str(ctx, 'city')!;
      const { id } = await admin.addLocation({
        slug: str(ctx, 'slug')!,
        countryCode: str(ctx, 'country-code')!.toUpperCase(),
        country: {
          en: country,
          ru: str(ctx, 'country-ru', false) ?? country,
          zh: str(ctx, 'country-zh', false) ?? country,
        },
        city: { en: city, ru: str(ctx, 'city-ru', false) ?? city, zh: str(ctx, 'city-zh', false) ?? city },
        latitude: num(ctx, 'lat')!,
        longitude: num(ctx, 'lon')!,
        premium: !bool(ctx, 'free'),
        dashVisible: !bool(ctx, 'hidden'),
      });
      await audit('location-add', str(ctx, 'slug')!, {
        countryCode: str(ctx, 'country-code')!.toUpperCase(),
        city,
        premium: !bool(ctx, 'free'),
        visible: !bool(ctx, 'hidden'),
      });
      ctx.print(
        `Location ${str(ctx, 'slug')} added (id ${id}). Add a node to it with \`npx warren vpn add-node --location ${str(ctx, 'slug')} …\`.`,
      );
    }),
  },
  'add-node': {
    summary: 'add a node (VPN server) to a location and print its token',
    usage: '--location de-fra --name de-fra-2 --endpoint 203.0.113.10 [--port 51820] [--public-key KEY]',
    run: withAdmin(async (admin, ctx, audit) => {
      const name = str(ctx, 'name')!;
      const listenPort = num(ctx, 'port', false) ?? 51820;
      const { token } = await admin.addNode({
        location: str(ctx, 'location')!,
        name,
        endpointHost: str(ctx, 'endpoint')!,
        listenPort,
        publicKey: str(ctx, 'public-key', false),
      });
      await audit('node-add', name, {
        location: str(ctx, 'location')!,
        endpointHost: str(ctx, 'endpoint')!,
        listenPort,
      });
      printToken(ctx, name, token, listenPort);
    }),
  },
  'node-token': {
    summary: 'issue a new token for a node (the old one stops working)',
    usage: '--node de-fra-1',
    run: withAdmin(async (admin, ctx, audit) => {
      const name = str(ctx, 'node')!;
      const token = await admin.issueNodeToken(name);
      await audit('node-token', name);
      printToken(ctx, name, token);
    }),
  },
  'set-location': {
    summary: 'change a location: premium or free, shown or hidden',
    usage: '--slug de-fra [--premium true|false] [--visible true|false]',
    run: withAdmin(async (admin, ctx, audit) => {
      const patch = { premium: bool(ctx, 'premium'), dashVisible: bool(ctx, 'visible') };
      await admin.setLocation(str(ctx, 'slug')!, patch);
      await audit('location-update', str(ctx, 'slug')!, named(patch));
      ctx.print('Location updated; nodes pick the change up on their next poll.');
    }),
  },
  'set-node': {
    summary: 'change a node: enabled, draining, endpoint, port, public key',
    usage:
      '--node de-fra-1 [--enabled true|false] [--draining true|false] [--endpoint HOST] [--port N] [--public-key KEY]',
    run: withAdmin(async (admin, ctx, audit) => {
      const patch = {
        enabled: bool(ctx, 'enabled'),
        draining: bool(ctx, 'draining'),
        endpointHost: str(ctx, 'endpoint', false),
        listenPort: num(ctx, 'port', false),
        publicKey: str(ctx, 'public-key', false),
      };
      await admin.setNode(str(ctx, 'node')!, patch);
      await audit('node-update', str(ctx, 'node')!, named(patch));
      ctx.print('Node updated.');
    }),
  },
  drain: {
    summary:
      'drain a node (issue 22): no new customer gets it, its customers are told to take a new configuration; it keeps serving whoever is on it',
    usage: '<node>',
    run: withAdmin(async (admin, ctx, audit) => {
      const name = nodeArg(ctx, 'drain');
      await admin.setNode(name, { draining: true });
      await audit('node-update', name, { draining: true });
      ctx.print(
        `Node ${name} is draining: new configurations name another node of its location, and its customers are told to take a new one. It keeps every peer until you switch it off (set-node --node ${name} --enabled false); undrain gives it back.`,
      );
    }),
  },
  undrain: {
    summary: 'stop draining a node: it is given to new customers again',
    usage: '<node>',
    run: withAdmin(async (admin, ctx, audit) => {
      const name = nodeArg(ctx, 'undrain');
      await admin.setNode(name, { draining: false });
      await audit('node-update', name, { draining: false });
      ctx.print(`Node ${name} is no longer draining: it is given to new customers again.`);
    }),
  },
  list: {
    summary: 'list locations and their nodes',
    async run(ctx) {
      for (const r of await (await adminOf(ctx)).list()) {
        const seen = r.last_seen_at ? new Date(r.last_seen_at).toISOString() : 'never';
        // WireGuard peers of the interface's cap (issue 22), and since when a node drains.
        const wg =
          r.wg_max_peers === null
            ? 'wg:-'
            : `wg:${r.wg_peers ?? 0}/${r.wg_max_peers}${r.wg_kind === 'userspace' ? '(go)' : ''}${r.wg_refused ? ` refused:${r.wg_refused}` : ''}`;
        const drain = r.draining_since ? ` draining-since:${new Date(r.draining_since).toISOString()}` : '';
        ctx.print(
          `${r.slug.padEnd(12)} ${r.city.padEnd(16)} ${r.premium ? 'premium' : 'free   '} ${r.visible ? 'shown ' : 'hidden'}  ${r.node ? `${r.node.padEnd(16)} ${String(r.endpoint).padEnd(40)} ${r.enabled ? 'on ' : 'off'}${r.demo ? ' DEMO' : ''} token:${r.has_token ? 'yes' : 'no '} load:${r.load ?? '-'} seen:${seen} ${wg}${drain} agent:${r.agent_version ?? '-'}` : '(no nodes)'}`,
        );
      }
    },
  },
};
