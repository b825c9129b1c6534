import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The agent's version, reported to the API (the operator console and `npx warren vpn list` show it
 * per node): the package's version and the commit it was built from, `0.1.0+<12 hex>` (issue 22:
 * every agent said 0.1.0, whatever it ran). The build (scripts/build-node.mjs) writes it into the
 * bundle; run from a checkout (tsx), it is read from package.json and git, `+unknown` without git.
 */
declare const __WARREN_AGENT_VERSION__: string | undefined;

function fromCheckout(): string {
  const dir = path.join(import.meta.dirname, '..');
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  let commit = 'unknown';
  try {
    commit =
      execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 5000,
      }).trim() || commit;
  } catch {
    /* not a git checkout */
  }
  return `${version}+${commit}`;
}

export const AGENT_VERSION: string =
  typeof __WARREN_AGENT_VERSION__ === 'string' ? __WARREN_AGENT_VERSION__ : fromCheckout();
