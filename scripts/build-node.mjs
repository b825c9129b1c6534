#!/usr/bin/env node
// Production build of the Node parts (`npm run build:node`, and `npm start` when stale):
//   apps/api/dist/server.js, cli.js   the API and the operator CLI as plain JavaScript. Our own
//                                     code (and @warren/contract) is bundled; packages from
//                                     node_modules stay imports, so native and wasm packages
//                                     (argon2, PGlite) load as they are published.
//   apps/api/dist/migrations/         the SQL files, read beside the bundle at start
//   apps/agent/dist/bin/warren-agent.mjs  the node agent as ONE self-contained file (zod and
//                                     the contract inside): a VPN server needs only Node
//   apps/agent/dist/blocklists/       the ad blocker's default lists per category
//   apps/agent/dist/openvpn/helper.mjs    OpenVPN's hook script, found at the same relative path
//                                     as in the sources
// `--if-stale` builds only when an output is missing or older than its sources. esbuild is a
// development dependency, imported only when a build runs: an install without dev dependencies
// runs an up-to-date dist/ as it is.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const api = path.join(root, 'apps/api');
const agent = path.join(root, 'apps/agent');
const contract = path.join(root, 'packages/contract/src');

export const outputs = {
  api: [path.join(api, 'dist/server.js'), path.join(api, 'dist/cli.js')],
  agent: [path.join(agent, 'dist/bin/warren-agent.mjs')],
};

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target, { recursive: true }))
    newest = Math.max(newest, fs.statSync(path.join(target, String(entry))).mtimeMs);
  return newest;
}
const oldest = (files) => Math.min(...files.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
export const isStale = (part) => {
  const sources =
    part === 'api'
      ? [path.join(api, 'src'), contract]
      : [path.join(agent, 'src'), path.join(agent, 'blocklists'), contract];
  return Math.max(...sources.map(newestMtime)) > oldest(outputs[part]);
};

// Everything imported by a bare name stays an import, except our own workspace packages.
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@warren/') ? undefined : { path: args.path, external: true },
    );
  },
};

const build = async (options) => (await import('esbuild')).build(options);
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  sourcemap: 'linked',
  logLevel: 'warning',
  legalComments: 'none',
};

/** The commit being built, for the server's start-up line (apps/api/src/lib/build-info.ts); WARREN_COMMIT wins (a build from an export without .git). */
function commitOfBuild() {
  if (process.env.WARREN_COMMIT) return process.env.WARREN_COMMIT;
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${commit}-modified` : commit;
  } catch {
    return '';
  }
}

async function buildApi() {
  fs.rmSync(path.join(api, 'dist'), { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: { server: path.join(api, 'src/server.ts'), cli: path.join(api, 'src/cli/main.ts') },
    outdir: path.join(api, 'dist'),
    // No shared chunks: the code finds files (migrations, config/) relative to its own file, so
    // every bundle sits directly in dist/, at the same depth as the sources in src/.
    plugins: [externalPackages],
    define: { __WARREN_COMMIT__: JSON.stringify(commitOfBuild()) },
  });
  fs.cpSync(path.join(api, 'src/db/migrations'), path.join(api, 'dist/migrations'), { recursive: true });
}

/**
 * What the built agent reports to the API (apps/agent/src/version.ts): the package's version and
 * the commit built, `0.1.0+<12 hex>`; WARREN_COMMIT names it where the build has no git checkout.
 */
export function agentVersion() {
  const { version } = JSON.parse(fs.readFileSync(path.join(agent, 'package.json'), 'utf8'));
  let commit = process.env.WARREN_COMMIT?.trim().slice(0, 12);
  if (!commit) {
    try {
      commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      commit = 'unknown';
    }
  }
  return `${version}+${commit}`;
}

/** The agent into `dist` (default apps/agent/dist; a test builds into a folder of its own). */
export async function buildAgent(dist = path.join(agent, 'dist')) {
  fs.rmSync(dist, { recursive: true, force: true });
  const outfile = path.join(dist, 'bin/warren-agent.mjs');
  await build({
    ...common,
    entryPoints: [path.join(agent, 'src/main.ts')],
    outfile,
    define: { __WARREN_AGENT_VERSION__: JSON.stringify(agentVersion()) },
    // Bundled CommonJS dependencies may call require(); give the ESM bundle one.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __warrenRequire } from 'node:module';\nconst require = __warrenRequire(import.meta.url);",
    },
  });
  fs.chmodSync(outfile, 0o755);
  fs.mkdirSync(path.join(dist, 'openvpn'), { recursive: true });
  fs.copyFileSync(path.join(agent, 'src/openvpn/helper.mjs'), path.join(dist, 'openvpn/helper.mjs'));
  // The ad blocker's small default lists, found beside the built agent (dns/blocklists.ts).
  fs.cpSync(path.join(agent, 'blocklists'), path.join(dist, 'blocklists'), { recursive: true });
}

const builders = { api: buildApi, agent: () => buildAgent() };

/** Builds a part when its output is missing or older than its sources; quiet when nothing to do. */
export async function ensureBuilt(part, log = (line) => console.error(line)) {
  if (!isStale(part)) return;
  const exists = outputs[part].every((f) => fs.existsSync(f));
  try {
    await import('esbuild');
  } catch {
    if (exists) return; // no build tool here (production install): run what was built
    throw new Error(`${part}: dist/ is missing and esbuild is not installed (npm ci, then npm run build:node)`);
  }
  const started = Date.now();
  await builders[part]();
  log(`built ${part} (${exists ? 'sources changed' : 'first build'}) in ${Date.now() - started} ms`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ifStale = process.argv.includes('--if-stale');
  for (const part of ['api', 'agent']) {
    if (ifStale) await ensureBuilt(part, (line) => console.log(line));
    else {
      const started = Date.now();
      await builders[part]();
      console.log(`built ${part} in ${Date.now() - started} ms`);
    }
  }
}
