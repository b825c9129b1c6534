import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { type Services, buildServices } from '../composition.js';
import { migrate } from '../db/migrate.js';
import { type CliGroup, CliUsageError, parseFlags } from './command.js';

export { type CliCommand, type CliContext, type CliGroup, CliUsageError, parseFlags } from './command.js';

/**
 * `npx warren <group> <command> [--flag value]`. Each area contributes its own commands in
 * its own file (cli/<area>.ts) and registers them in GROUPS below; cli/main.ts is the entry.
 * `--help` (or `-h`) anywhere prints the usage of what comes before it and exits 0.
 *
 * The CLI opens the database directly. With the embedded database (PGlite) only one process
 * may hold it, so stop the server first or run both on DATABASE_URL.
 */
const GROUPS: Record<string, () => Promise<CliGroup>> = {
  billing: async () => (await import('./billing.js')).commands,
  jobs: async () => (await import('./jobs.js')).commands,
  mail: async () => (await import('./mail.js')).commands,
  vpn: async () => (await import('./vpn.js')).commands,
};

function help(): string {
  return ['Usage: npx warren <group> <command> [options]', '', 'Groups:', ...Object.keys(GROUPS).map((g) => `  ${g}`), '', 'Run `npx warren <group>` to list its commands.'].join('\n');
}

export async function runCli(argv: string[], print: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const wantsHelp = argv.some((a) => a === '--help' || a === '-h');
  const words = argv.filter((a) => a !== '--help' && a !== '-h');
  const [groupName, commandName, ...rest] = words;
  const loadGroup = groupName && Object.hasOwn(GROUPS, groupName) ? GROUPS[groupName] : undefined;
  if (!loadGroup) {
    print(help());
    return groupName && !wantsHelp ? 64 : 0;
  }
  const group = await loadGroup();
  const command = commandName && Object.hasOwn(group, commandName) ? group[commandName] : undefined;
  if (!command) {
    print([`Commands of ${groupName}:`, ...Object.entries(group).map(([n, c]) => `  ${n.padEnd(16)} ${c.summary}${c.usage ? `\n  ${' '.repeat(16)} ${c.usage}` : ''}`)].join('\n'));
    return commandName && !wantsHelp ? 64 : 0;
  }
  if (wantsHelp) {
    print([`npx warren ${groupName} ${commandName}: ${command.summary}`, ...(command.usage ? [`Usage: npx warren ${groupName} ${commandName} ${command.usage}`] : [])].join('\n'));
    return 0;
  }
  const { values, positionals } = parseFlags(rest);
  const config = loadConfig();
  const db = await openDatabase(config.database);
  let services: Promise<Services> | undefined;
  try {
    await migrate(db);
    await command.run({ db, config, services: () => (services ??= buildServices(config, { db })), flags: values, positionals, print });
    return 0;
  } catch (err) {
    if (err instanceof CliUsageError) {
      print(`Error: ${err.message}`);
      return 64;
    }
    throw err;
  } finally {
    // Background work (receipt mails) finishes before the database closes.
    if (services) await (await services).close();
    await db.close();
  }
}


