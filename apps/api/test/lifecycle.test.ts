import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { type RunningServer, freePort, httpClient, startServer } from './server-process.js';

/**
 * The real server: data survives a restart on the embedded database, and SIGTERM lets an
 * in-flight request finish before the database closes (exit code 0).
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-life-'));
const pgUrl = process.env.TEST_DATABASE_URL;
const schema = `life_${process.pid}`;
let running: RunningServer | undefined;

afterAll(async () => {
  if (running && running.proc.exitCode === null && running.proc.signalCode === null) {
    running.proc.kill('SIGKILL');
    await running.exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (pgUrl) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  }
});

async function until(condition: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the server');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const env = (port: number) => ({
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'test',
  HOST: '127.0.0.1',
  PORT: String(port),
  LOG_LEVEL: 'info',
  DATA_DIR: dataDir,
  JOBS: 'false',
  ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
});

it('keeps accounts across a restart and drains in-flight requests on SIGTERM', { timeout: 120_000 }, async () => {
  const port = await freePort();
  running = await startServer(env(port));
  const a = await httpClient(running.origin);
  const email = `life.${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const reg = await a.call('POST', '/api/users/register', { email, password, password_confirmation: password });
  expect(reg.status).toBe(201);

  // A sign-in (one argon2 verify) is in flight when SIGTERM arrives: it must still be answered.
  // SIGTERM goes once the server has logged the request's arrival: sent earlier, the request may
  // still be in the client's socket when the server stops accepting (ECONNRESET, not a drain).
  const inFlight = a.call('POST', '/api/users/login', { email, password });
  const server = running;
  await until(() => server.output().includes('"url":"/api/users/login"'));
  running.proc.kill('SIGTERM');
  const answered = await inFlight;
  expect(answered.status).toBe(200);
  const exit = await running.exited;
  expect(exit, running.output().slice(-2000)).toEqual({ code: 0, signal: null });
  expect(running.output()).toContain('shutting down');
  expect(fs.existsSync(path.join(dataDir, 'warren.lock'))).toBe(false);

  running = await startServer(env(port));
  const b = await httpClient(running.origin);
  const login = await b.call('POST', '/api/users/login', { email, password });
  expect(login.status).toBe(200);
  expect((login.json.data as { user: { email: string } }).user.email).toBe(email);
  running.proc.kill('SIGTERM');
  await running.exited;
});

it('refuses to open a data directory another live process holds', { timeout: 60_000 }, async () => {
  if (pgUrl) return; // the lock protects the embedded database only
  const port = await freePort();
  running = await startServer(env(port));
  await expect(startServer(env(await freePort()))).rejects.toThrow(/in use by process/);
  running.proc.kill('SIGTERM');
  await running.exited;
});
