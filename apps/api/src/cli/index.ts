import { ConfigError, loadConfig } from '../config.js';
import { type Database, openDatabase } from '../db/client.js';
import { migrate } from '../db/migrate.js';

/**
 * `npx warren <group> <command> [--flag value]`. Each area contributes its own commands in
 * its own file (cli/<area>.ts) and registers them in GROUPS below.
 *
 * The CLI opens the database directly. With the embedded database (PGlite) only one process
 * may hold it, so stop the server first or run both on DATABASE_URL.
 */
export interface CliContext {
  db: Database;
  flags: Record<string, string | boolean | undefined>;
  positionals: string[];
  print: (line: string) => void;
}
export interface CliCommand {
  summary: string;
  usage?: string;
  run(ctx: CliContext): Promise<void>;
}
export type CliGroup = Record<string, CliCommand>;

const GROUPS: Record<string, () => Promise<CliGroup>> = {
  billing: async () => (await import('./billing.js')).commands,
  mail: async () => (await import('./mail.js')).commands,
};

export class CliUsageError extends Error {}

function help(): string {
  return ['Usage: npx warren <group> <command> [options]', '', 'Groups:', ...Object.keys(GROUPS).map((g) => `  ${g}`), '', 'Run `npx warren <group>` to list its commands.'].join('\n');
}

export async function runCli(argv: string[], print: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const [groupName, commandName, ...rest] = argv;
  const loadGroup = groupName ? GROUPS[groupName] : undefined;
  if (!loadGroup) {
    print(help());
    return groupName ? 64 : 0;
  }
  const group = await loadGroup();
  const command = commandName ? group[commandName] : undefined;
  if (!command) {
    print([`Commands of ${groupName}:`, ...Object.entries(group).map(([n, c]) => `  ${n.padEnd(16)} ${c.summary}${c.usage ? `\n  ${' '.repeat(16)} ${c.usage}` : ''}`)].join('\n'));
    return commandName ? 64 : 0;
  }
  const { values, positionals } = parseFlags(rest);
  const config = loadConfig();
  const db = await openDatabase(config.database);
  try {
    await migrate(db);
    await command.run({ db, flags: values, positionals, print });
    return 0;
  } catch (err) {
    if (err instanceof CliUsageError) {
      print(`Error: ${err.message}`);
      return 64;
    }
    throw err;
  } finally {
    await db.close();
  }
}

/** `--key value`, `--key=value`, or a bare `--flag` (true). Everything else is positional. */
export function parseFlags(args: string[]): { values: Record<string, string | boolean>; positionals: string[] } {
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 2) values[arg.slice(2, eq)] = arg.slice(eq + 1);
    else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith('--')) values[arg.slice(2)] = args[++i]!;
    else values[arg.slice(2)] = true;
  }
  return { values, positionals };
}

export function registerGroup(name: string, load: () => Promise<CliGroup>): void {
  GROUPS[name] = load;
}
registerGroup('vpn', async () => (await import('./vpn.js')).commands);

const isMain = process.argv[1] && /warren(\.mjs)?$|cli[\\/]index\.ts$/.test(process.argv[1]);
if (isMain) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof ConfigError ? err.message : `Error: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
