/**
 * The admin channel's wire format (README: Operating Warren): one JSON line from the CLI, then
 * JSON lines back — the command's output lines and finally its exit code. Kept apart so the CLI
 * (cli/remote.ts) and the server (admin/channel.ts) share it without importing each other.
 */
export const ADMIN_PROTOCOL = 1;

export interface AdminRequest {
  v: typeof ADMIN_PROTOCOL;
  /** The operator credential: the content of the server's admin.token file. */
  token: string;
  /** The words after `npx warren`, file flags made absolute. */
  argv: string[];
}

export type AdminReply = { out: string } | { exit: number; error?: string };

/** Exit codes (sysexits.h): a refused credential, a malformed request. */
export const EXIT_NOPERM = 77;
export const EXIT_PROTOCOL = 76;
