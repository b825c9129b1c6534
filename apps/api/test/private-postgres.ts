import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.js';

/**
 * A PostgreSQL cluster of the test's own, in a temp dir on a port of its own, that the test may
 * stop and restart at will (db-restart.test.ts, shutdown.test.ts). The machine's PostgreSQL on
 * 5432 is shared with everyone else's tests and is never touched.
 */
const run = promisify(execFile);
export const PG_BIN = '/usr/lib/postgresql/15/bin';
export const hasPrivatePostgres = () => fs.existsSync(path.join(PG_BIN, 'initdb'));

export interface PrivatePostgres {
  url: string;
  port: number;
  start(): Promise<void>;
  /** `fast` ends sessions politely (57P01); `immediate` kills them as a crash would. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  destroy(): Promise<void>;
}

/** initdb refuses root: the cluster belongs to the postgres user when the test runs as root. */
const asOwner = (cmd: string, args: string[]) =>
  process.getuid?.() === 0 ? run('/usr/sbin/runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args);

export async function privatePostgres(): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-pg-'));
  fs.chmodSync(dir, 0o755);
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) await run('chown', ['postgres', dir]);
  await asOwner(path.join(PG_BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
  const ctl = (...args: string[]) =>
    asOwner(path.join(PG_BIN, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), ...args]);
  const pg = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await ctl('-o', opts, '-w', 'start');
    },
    async stop(mode: 'fast' | 'immediate') {
      await ctl('-m', mode, '-w', 'stop');
    },
    async restart(mode: 'fast' | 'immediate') {
      await ctl('-o', opts, '-m', mode, '-w', 'restart');
    },
    async destroy() {
      await ctl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}
