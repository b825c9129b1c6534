import type { Services } from '../composition.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';

/**
 * What every command group (cli/<area>.ts) builds on: the context a command runs in, usage
 * errors (exit 64) and the flag parser. Kept apart from the runner so the groups never import it.
 */
export interface CliContext {
  db: Database;
  config: Config;
  /** The API's services from the composition root (composition.ts), built on first use; the runner closes them. */
  services: () => Promise<Services>;
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

/** A command used wrongly: exit 64 (EX_USAGE). */
export class CliUsageError extends Error {
  readonly exitCode: number = 64;
}
/** What the command names does not exist (an unknown customer): exit 1, as "not found", not a usage error. */
export class CliNotFoundError extends CliUsageError {
  override readonly exitCode = 1;
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
