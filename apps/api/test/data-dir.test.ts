import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, freePort, httpClient, startServer } from './server-process.js';

/**
 * DATA_DIR (the embedded database, the outbox's mails with live reset links, the operator
 * credential) is its user's alone whatever the umask the server starts with (issue 20, finding 2):
 * checked by mode and by another local user (`nobody`, through setpriv) trying to read it.
 */

const nobody = (() => {
  const id = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' });
  return id.status === 0 ? Number(id.stdout.trim()) : undefined;
})();
// Switching to another user needs root (the CI and this machine run as root) and setpriv (util-linux).
const canSwitch = process.getuid?.() === 0 && nobody !== undefined && spawnSync('setpriv', ['--version']).status === 0;
const why = canSwitch ? '' : ' (SKIPPED: needs root and setpriv to act as the user nobody)';

/** Runs a command as `nobody` (no supplementary groups); its exit status and error text. */
const asNobody = (...cmd: string[]) =>
  spawnSync('setpriv', [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', ...cmd], { encoding: 'utf8' });

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-perm-'));
// The parent is open to all, as /var/lib or a home directory may be: only DATA_DIR's own modes protect it.
fs.chmodSync(base, 0o755);
const dataDir = path.join(base, 'data');
let running: RunningServer | undefined;

afterAll(async () => {
  if (running && running.proc.exitCode === null && running.proc.signalCode === null) {
    running.proc.kill('SIGKILL');
    await running.exited;
  }
  fs.rmSync(base, { recursive: true, force: true });
});

const env = (port: number) => ({
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'test',
  HOST: '127.0.0.1',
  PORT: String(port),
  LOG_LEVEL: 'info',
  DATA_DIR: dataDir,
  JOBS: 'false',
  // The embedded database (PGlite) on purpose, also when the suite runs on PostgreSQL: its files are the point.
});

function walk(dir: string): { file: string; st: fs.Stats }[] {
  return fs.readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    const st = fs.lstatSync(file);
    return [{ file, st }, ...(st.isDirectory() ? walk(file) : [])];
  });
}

/** Entries another user could read, write or enter (sockets aside). */
function openToOthers(): string[] {
  const all = [{ file: dataDir, st: fs.lstatSync(dataDir) }, ...walk(dataDir)];
  return all
    .filter(({ st }) => (st.isDirectory() && (st.mode & 0o777) !== 0o700) || (st.isFile() && (st.mode & 0o077) !== 0))
    .map(({ file, st }) => `${path.relative(base, file)} ${(st.mode & 0o777).toString(8)}`);
}

async function until<T>(get: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stop(server: RunningServer) {
  server.proc.kill('SIGTERM');
  expect((await server.exited).code).toBe(0);
}

/** What `nobody` can get out of DATA_DIR: a listing, a mail with its reset link, the database's files. */
function whatNobodyReads(mailFile: string): string[] {
  const got: string[] = [];
  for (const [what, cmd] of [
    ['the listing of DATA_DIR', ['ls', dataDir]],
    ['a mail with a reset link', ['cat', mailFile]],
    ['the database version file', ['cat', path.join(dataDir, 'pglite', 'PG_VERSION')]],
    ['the WAL', ['ls', path.join(dataDir, 'pglite', 'pg_wal')]],
  ] as const) {
    const r = asNobody(...cmd);
    if (r.status === 0) got.push(what);
  }
  return got;
}

describe('DATA_DIR is private whatever the umask', () => {
  it.skipIf(!canSwitch)(
    `keeps the database and the outbox from other local users, and tightens a loosened DATA_DIR at start with a warning${why}`,
    { timeout: 180_000 },
    async () => {
      // A server started with umask 000 (every file it creates would be open to all).
      running = await startServer(env(await freePort()), undefined, { umask: 0o000 });
      const c = await httpClient(running.origin);
      const email = `perm.${Date.now()}@example.com`;
      const password = 'correct horse battery';
      expect(
        (await c.call('POST', '/api/users/register', { email, password, password_confirmation: password })).status,
      ).toBe(201);
      expect((await c.call('POST', '/api/users/requestResetPassword', { email })).status).toBeLessThan(300);
      const outbox = path.join(dataDir, 'outbox');
      const mailFile = await until(async () => {
        const mails = fs.existsSync(outbox)
          ? fs
              .readdirSync(outbox)
              .filter((f) => f.endsWith('.json'))
              .map((f) => path.join(outbox, f))
          : [];
        return mails.find((f) => fs.readFileSync(f, 'utf8').includes('reset-password'));
      }, 'the reset mail');

      expect(openToOthers()).toEqual([]);
      expect(whatNobodyReads(mailFile)).toEqual([]);
      // The probe itself works: nobody reads what is open to it.
      const probe = path.join(base, 'open.txt');
      fs.writeFileSync(probe, 'x', { mode: 0o644 });
      fs.chmodSync(probe, 0o644);
      expect(asNobody('cat', probe).status).toBe(0);
      expect(running.output()).not.toMatch(/was open to other users/);
      await stop(running);

      // Someone loosens everything (a restore from a backup, a careless chmod); the next start says so and fixes it.
      fs.chmodSync(dataDir, 0o777);
      for (const { file, st } of walk(dataDir)) fs.chmodSync(file, st.isDirectory() ? 0o777 : 0o666);
      expect(asNobody('cat', mailFile).status).toBe(0);
      running = await startServer(env(await freePort()), undefined, { umask: 0o000 });
      const warning = /"level":40,.*"msg":"(DATA_DIR [^"]* was open to other users[^"]*)"/.exec(running.output());
      expect(warning?.[1]).toMatch(/tightened to 0700 \(directories\) and 0600 \(files\)/);
      expect(openToOthers()).toEqual([]);
      expect(whatNobodyReads(mailFile)).toEqual([]);
      await stop(running);
    },
  );
});
