import fs from 'node:fs';
import path from 'node:path';

/**
 * The WireGuard public key the API last accepted from this node, kept in the agent's state dir.
 * `warren-agent setup` reads it: a node whose key file went missing, but which customers know by
 * this key, is not given a new key silently (issue 22: every customer's config died).
 */
export const REPORTED_KEY_FILE = 'wg-public-key';

export function readReportedKey(stateDir: string): string | undefined {
  try {
    const key = fs.readFileSync(path.join(stateDir, REPORTED_KEY_FILE), 'utf8').trim();
    return /^[A-Za-z0-9+/]{43}=$/.test(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Written atomically (rename), only when it changed. */
export function writeReportedKey(stateDir: string, key: string): void {
  if (readReportedKey(stateDir) === key) return;
  const file = path.join(stateDir, REPORTED_KEY_FILE);
  fs.writeFileSync(`${file}.tmp`, `${key}\n`, { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}
