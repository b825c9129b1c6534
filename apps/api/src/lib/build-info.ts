import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../paths.js';

/** Set by scripts/build-node.mjs (esbuild `define`) to the commit the bundle was built from; absent when run from the sources. */
declare const __WARREN_COMMIT__: string | undefined;

export interface BuildInfo {
  /** apps/api/package.json's version. */
  version: string;
  /** The git commit of the build (scripts/build-node.mjs), when it was known then. */
  commit?: string;
}

/** What this server is: read once (the start-up line, README: Running in production). */
export function buildInfo(): BuildInfo {
  let version = 'unknown';
  try {
    version =
      (JSON.parse(fs.readFileSync(path.join(repoRoot, 'apps/api/package.json'), 'utf8')) as { version?: string })
        .version ?? version;
  } catch {
    // an installation without the package file: the commit (if any) still says what runs
  }
  const commit = typeof __WARREN_COMMIT__ === 'string' && __WARREN_COMMIT__ ? __WARREN_COMMIT__ : undefined;
  return commit ? { version, commit } : { version };
}
