import fs from 'node:fs';
import { type Config, adminChannelOf, loadConfig } from '../config.js';
import { type Database, NoDatabaseError, openDatabase } from '../db/client.js';
import { describeLooseDataDir, secureDataDir } from '../lib/data-dir.js';
import { type Services, buildServices } from '../composition.js';
import { isMigrated, migrate } from '../db/migrate.js';
import { type CliCommand, type CliContext, type CliGroup, CliUsageError, parseFlags } from './command.js';
import { runOnServer } from './remote.js';

export {
  type CliCommand,
  type CliContext,
  type CliGroup,
  CliNotFoundError,
  CliRefusedError,
  CliUsageError,
  parseFlags,
} from './command.js';

/**
 * `npx warren <group> <command> [--flag value]`. Each area contributes its own commands in
 * its own file (cli/<area>.ts) and registers them in GROUPS below; cli/main.ts is the entry.
 * `--help` (or `-h`) anywhere prints the usage of what comes before it and exits 0.
 *
 * A running server runs the command itself, in-process with its own services, when the CLI
 * reaches its admin channel (cli/remote.ts → admin/channel.ts; README: Operating Warren); only
 * when no server answers does the CLI open the database directly.
 */
const GROUPS: Record<string, () => Promise<CliGroup>> = {
  affiliate: async () => (await import('./affiliate.js')).commands,
  billing: async () => (await import('./billing.js')).commands,
  db: async () => (await import('./db.js')).commands,
  jobs: async () => (await import('./jobs.js')).commands,
  mail: async () => (await import('./mail.js')).commands,
  vpn: async () => (await import('./vpn.js')).commands,
  staff: async () => (await import('./staff.js')).commands,
  secrets: async () => (await import('./secrets.js')).commands,
};

const INIT_SUMMARY =
  'npx warren init: make a new, empty database where DATA_DIR (or DATABASE_URL) points; the other commands never make one';

function help(): string {
  return [
    'Usage: npx warren <group> <command> [options]',
    '       npx warren init',
    '',
    'Groups:',
    ...Object.keys(GROUPS).map((g) => `  ${g}`),
    '',
    'Run `npx warren <group>` to list its commands.',
  ].join('\n');
}

/** Where the configuration points, for messages: the PGlite folder, or the PostgreSQL server and schema (never its password). */
function databaseName(config: Config): string {
  if (config.database.kind === 'pglite')
    return `the embedded database in ${config.database.dataDir} (DATA_DIR=${config.dataDir})`;
  const url = new URL(config.database.url);
  url.password = '';
  return `PostgreSQL ${url.toString()}${config.database.schema ? ` schema ${config.database.schema}` : ''}`;
}

/** No server answered and the configuration names no existing database: a wrong DATA_DIR or ADMIN_SOCKET, most likely. */
class NoWarrenDatabase extends CliUsageError {
  override readonly exitCode = 1;
}

/**
 * The database a command runs on when no server answers: only one that exists and was migrated
 * (issue 22: with the admin socket moved and only DATA_DIR set, the CLI used to make a new empty
 * database and answer "added (id 1)"). `npx warren init` is the one way to make one.
 */
async function existingDatabase(config: Config, socket: string | undefined): Promise<Database> {
  const refuse = () =>
    new NoWarrenDatabase(
      `no Warren database: ${socket ? `no server answers on ${socket}, and ` : ''}${databaseName(config)} does not exist or has no schema. ` +
        "Point DATA_DIR (or ADMIN_SOCKET) at the running server's, or DATABASE_URL (DATABASE_SCHEMA) at its database; `npx warren init` makes a new, empty one here.",
    );
  let db: Database;
  try {
    db = await openDatabase(config.database, false);
  } catch (err) {
    if (err instanceof NoDatabaseError) throw refuse();
    throw err;
  }
  if (await isMigrated(db)) return db;
  await db.close();
  throw refuse();
}

/** `npx warren init`: a new database, migrated; refused where one exists (a server's, or one made before). */
async function init(argv: string[], print: (line: string) => void): Promise<number> {
  if (argv.some((a) => a === '--help' || a === '-h')) {
    print(INIT_SUMMARY);
    return 0;
  }
  try {
    parseFlags(argv, undefined);
  } catch (err) {
    print([`Error: ${(err as Error).message}`, 'Usage: npx warren init'].join('\n'));
    return 64;
  }
  const config = loadConfig();
  const existing = await existingDatabase(config, undefined).catch((err: unknown) => {
    if (err instanceof NoWarrenDatabase) return undefined;
    throw err;
  });
  if (existing) {
    await existing.close();
    print(`Error: ${databaseName(config)} exists already: nothing made.`);
    return 1;
  }
  secureDataDir(config.dataDir);
  const db = await openDatabase(config.database);
  try {
    const applied = await migrate(db);
    secureDataDir(config.dataDir); // a database PGlite has just unpacked is 0666
    print(
      `Made ${databaseName(config)} (${applied.length} migrations). The server fills in the rest at its first start.`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

/** A command found from the words of argv, or the exit code once usage or help was printed (no database needed). */
type Resolved =
  { command: CliCommand; flags: Record<string, string | boolean>; positionals: string[] } | { exit: number };

async function resolveCommand(argv: string[], print: (line: string) => void): Promise<Resolved> {
  const wantsHelp = argv.some((a) => a === '--help' || a === '-h');
  const words = argv.filter((a) => a !== '--help' && a !== '-h');
  const [groupName, commandName, ...rest] = words;
  const loadGroup = groupName && Object.hasOwn(GROUPS, groupName) ? GROUPS[groupName] : undefined;
  if (!loadGroup) {
    print(help());
    return { exit: groupName && !wantsHelp ? 64 : 0 };
  }
  const group = await loadGroup();
  const command = commandName && Object.hasOwn(group, commandName) ? group[commandName] : undefined;
  if (!command) {
    print(
      [
        `Commands of ${groupName}:`,
        ...Object.entries(group).map(
          ([n, c]) => `  ${n.padEnd(16)} ${c.summary}${c.usage ? `\n  ${' '.repeat(16)} ${c.usage}` : ''}`,
        ),
      ].join('\n'),
    );
    return { exit: commandName && !wantsHelp ? 64 : 0 };
  }
  if (wantsHelp) {
    print(
      [
        `npx warren ${groupName} ${commandName}: ${command.summary}`,
        ...(command.usage ? [`Usage: npx warren ${groupName} ${commandName} ${command.usage}`] : []),
      ].join('\n'),
    );
    return { exit: 0 };
  }
  try {
    const { values, positionals } = parseFlags(rest, command.usage);
    return { command, flags: values, positionals };
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    print(
      [
        `Error: ${err.message}`,
        `Usage: npx warren ${groupName} ${commandName}${command.usage ? ` ${command.usage}` : ''}`,
      ].join('\n'),
    );
    return { exit: err.exitCode };
  }
}

/**
 * Runs one command with services that are already open: the running server's own (its admin
 * channel, admin/channel.ts), which stay open afterwards. Usage errors exit 64; any other error is
 * printed as `Error: …` and exits 1 (the caller logs it).
 */
export async function runCommand(
  argv: string[],
  ctx: Pick<CliContext, 'db' | 'config' | 'services' | 'print'>,
): Promise<number> {
  const resolved = await resolveCommand(argv, ctx.print);
  if ('exit' in resolved) return resolved.exit;
  try {
    await resolved.command.run({ ...ctx, flags: resolved.flags, positionals: resolved.positionals });
    return 0;
  } catch (err) {
    ctx.print(`Error: ${(err as Error).message}`);
    if (err instanceof CliUsageError) return err.exitCode;
    throw err;
  }
}

/**
 * `npx warren …`: through the running server's admin channel when one answers (cli/remote.ts),
 * else on the database directly. `note` tells which path was taken (stderr in cli/main.ts).
 */
export async function runCli(
  argv: string[],
  print: (line: string) => void = (l) => console.log(l),
  note: (line: string) => void = () => {},
): Promise<number> {
  if (argv[0] === 'init') return init(argv.slice(1), print);
  const resolved = await resolveCommand(argv, print);
  if ('exit' in resolved) return resolved.exit;
  // The running server first, found from DATA_DIR/ADMIN_SOCKET alone: it has its own configuration.
  const admin = adminChannelOf();
  const remote = await runOnServer(admin, argv, print, note);
  if (remote !== undefined) return remote;
  const config = loadConfig();
  note(
    admin
      ? `warren: no server answers on ${admin.socket}; opening the database directly`
      : 'warren: ADMIN_SOCKET is off; opening the database directly',
  );
  // A restore makes the database: no existing one is looked for or opened (cli/db.ts).
  if (resolved.command.runOffline) {
    try {
      await resolved.command.runOffline({ config, flags: resolved.flags, positionals: resolved.positionals, print });
      return 0;
    } catch (err) {
      if (!(err instanceof CliUsageError)) throw err;
      print(`Error: ${err.message}`);
      return err.exitCode;
    } finally {
      if (fs.existsSync(config.dataDir)) secureDataDir(config.dataDir); // what a restore unpacked is 0666
    }
  }
  let db: Database;
  try {
    db = await existingDatabase(config, admin?.socket);
  } catch (err) {
    if (!(err instanceof NoWarrenDatabase)) throw err;
    print(`Error: ${err.message}`);
    return err.exitCode;
  }
  // DATA_DIR as private as the server keeps it (lib/data-dir.ts; cli/main.ts set the umask); after the check, so a wrong DATA_DIR is not made.
  const loose = describeLooseDataDir(config.dataDir, secureDataDir(config.dataDir));
  if (loose) note(`warren: ${loose}`);
  let services: Promise<Services> | undefined;
  try {
    await migrate(db);
    secureDataDir(config.dataDir); // a database PGlite has just unpacked is 0666
    await resolved.command.run({
      db,
      config,
      services: () => (services ??= buildServices(config, { db })),
      flags: resolved.flags,
      positionals: resolved.positionals,
      print,
    });
    return 0;
  } catch (err) {
    if (err instanceof CliUsageError) {
      print(`Error: ${err.message}`);
      return err.exitCode;
    }
    throw err;
  } finally {
    // Background work (receipt mails) finishes before the database closes.
    if (services) await (await services).close();
    await db.close();
  }
}
