import { parseArgs } from 'node:util';
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
  /**
   * A command that must run with no server on the database and without the runner opening it (a
   * restore, which makes the database). The CLI calls this instead of run when no server answers;
   * run is what a running server is asked, and refuses.
   */
  runOffline?(ctx: Omit<CliContext, 'db' | 'services'>): Promise<void>;
}
export type CliGroup = Record<string, CliCommand>;

/** A command used wrongly: exit 64 (EX_USAGE). */
export class CliUsageError extends Error {
  readonly exitCode: number = 64;
}
/** The command cannot be done as things stand (a restore onto a database in use): exit 1, nothing changed. */
export class CliRefusedError extends CliUsageError {
  override readonly exitCode = 1;
}
/** What the command names does not exist (an unknown customer): exit 1, as "not found", not a usage error. */
export class CliNotFoundError extends CliUsageError {
  override readonly exitCode = 1;
}

/** What a command's usage line allows: its flags (taking a value or not) and how many positional words. */
export interface CliSyntax {
  flags: Record<string, { type: 'string' | 'boolean' }>;
  positionals: number;
}

/**
 * Reads a command's usage line as its syntax, so that what the help shows and what the parser
 * accepts cannot drift apart: `--name value` takes a value, `[--name]` is a switch, any other word
 * (`<email>`, `off|on`) is a positional. `--as-of 2026-…` and `[--force]` in `usage` are the whole
 * declaration; a command without a usage line takes nothing.
 */
export function syntaxOf(usage: string | undefined): CliSyntax {
  const words = (usage ?? '').split(/\s+/).filter(Boolean);
  const flags: CliSyntax['flags'] = {};
  let positionals = 0;
  for (let i = 0; i < words.length; i++) {
    const flag = /^\[?--([a-z][a-z0-9-]*)(\]?)$/.exec(words[i]!);
    if (!flag) {
      positionals++;
      continue;
    }
    const next = words[i + 1];
    const takesValue = !flag[2] && next !== undefined && !/^\[?--/.test(next);
    flags[flag[1]!] = { type: takesValue ? 'string' : 'boolean' };
    if (takesValue) i++;
  }
  return { flags, positionals };
}

/**
 * Parses a command's words against its usage line with Node's own parser in strict mode (issue 22:
 * `--enable false` for `--enabled`, `--asof`, or a flag without its value used to be ignored and the
 * command ran anyway). Anything the usage line does not allow is a usage error (exit 64).
 */
export function parseFlags(
  args: string[],
  usage?: string,
): { values: Record<string, string | boolean>; positionals: string[] } {
  const syntax = syntaxOf(usage);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: syntax.flags,
      strict: true,
      allowPositionals: syntax.positionals > 0,
      allowNegative: false,
      tokens: true,
    });
  } catch (err) {
    throw new CliUsageError(cliMessageOf(err as Error));
  }
  if (parsed.positionals.length > syntax.positionals) {
    throw new CliUsageError(`unexpected argument ${JSON.stringify(parsed.positionals[syntax.positionals])}`);
  }
  // Node's parser keeps the last of a repeated flag; two different answers to one question is a mistake.
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new CliUsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  return { values: parsed.values as Record<string, string | boolean>, positionals: parsed.positionals };
}

/** Node's parser speaks of "options" and mentions `--`; operators read flags. */
function cliMessageOf(err: Error): string {
  const code = (err as { code?: string }).code;
  const flag = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown flag ${flag ?? ''}`.trim();
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return err.message.includes('argument missing')
      ? `${flag ?? 'a flag'} needs a value`
      : `${flag ?? 'a switch'} takes no value`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument ${/'([^']*)'/.exec(err.message)?.[1] ?? ''}`.trim();
  return err.message;
}
