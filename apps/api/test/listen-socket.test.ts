import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ApiClient } from '@warren/agent';
import { afterAll, expect, it } from 'vitest';
import { repoRoot, serverEntry } from './server-process.js';

/**
 * LISTEN_SOCKET: the real server on a unix socket, which the node agent's `--api-socket` reaches
 * (a reverse proxy or an agent on the API's own machine), a stale socket file replaced, a live one
 * refused.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-sock-'));
const socket = path.join(dir, 'api.sock');
const pgUrl = process.env.TEST_DATABASE_URL;
const schema = `sock_${process.pid}`;
const procs: ChildProcess[] = [];

afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
  if (pgUrl) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  }
});

function start(dataDir: string) {
  const proc = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      JOBS: 'false',
      LISTEN_SOCKET: socket,
      ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const listening = new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      if (out.includes(`"msg":"Server listening at ${socket}"`)) resolve();
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited (${code}):\n${out}`)));
  });
  return { proc, listening, exited, output: () => out };
}

const get = (urlPath: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get({ socketPath: socket, path: urlPath, headers: { host: 'localhost' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });

it(
  'serves on LISTEN_SOCKET, where the agent reaches it; a stale socket file is replaced, a live one refused',
  { timeout: 180_000 },
  async () => {
    // A stale socket file: a listener killed without cleanup leaves it behind.
    const holder = spawn(
      process.execPath,
      ['-e', `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => console.log('up'))`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    procs.push(holder);
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(fs.statSync(socket).isSocket()).toBe(true);

    const server = start(path.join(dir, 'data'));
    await server.listening;
    expect(fs.statSync(socket).mode & 0o777).toBe(0o660);
    expect((await get('/api/health')).status).toBe(200);
    // The agent's client over the socket: a wrong node token is refused by the API itself (401), so the path works end to end.
    const client = new ApiClient({ baseUrl: 'http://localhost', socketPath: socket, token: 'not-a-node-token' });
    await expect(client.desired({})).rejects.toMatchObject({ status: 401 });

    // A second server on the same socket is refused while the first one answers.
    const second = start(path.join(dir, 'data-2'));
    await expect(second.listening).rejects.toThrow(/is in use by another server/);
    expect((await get('/api/health')).status).toBe(200);

    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  },
);
