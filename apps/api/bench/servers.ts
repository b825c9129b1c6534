/**
 * The bench's server process: the full app and bare Fastify baselines on loopback ports,
 * all on one database, plus an in-process argon2 verify loop on request. The load generator
 * (run.ts) lives in another process so it does not share this event loop.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verify } from '@node-rs/argon2';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { usersRepository } from '../src/modules/users/repository.js';

export interface Ready {
  type: 'ready';
  full: string;
  bare: string;
  token: string;
  xsrf: string;
  /** The XSRF token cookie and the httpOnly key it is bound to, as a Cookie header. */
  cookie: string;
  userId: number;
  email: string;
  password: string;
  database: string;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-bench-'));
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const schema = `bench_${process.pid}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    // The real limiter, but a per-address sign-in budget that never fills: the bench signs in thousands of times from one address.
    LIMIT_LOGIN_PER_IP: String(2 ** 31),
    ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
  });
  if (!pgUrl) config.database = { kind: 'pglite', dataDir: 'memory://' };
  const app = await buildApp(config);

  // One user, signed up through the app itself.
  const health = await app.inject({ method: 'GET', url: '/api/brand' });
  const xsrf = health.cookies.find((c) => c.name === 'XSRF-TOKEN')!.value;
  const cookies = Object.fromEntries(health.cookies.map((c) => [c.name, c.value]));
  const cookie = health.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const email = 'bench@example.com';
  const password = 'correct horse battery staple';
  const reg = await app.inject({
    method: 'POST',
    url: '/api/users/register',
    headers: { 'x-xsrf-token': xsrf, 'content-type': 'application/json' },
    cookies,
    payload: JSON.stringify({ email, password, password_confirmation: password }),
  });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.statusCode} ${reg.body}`);
  const { user, token } = reg.json().data as { user: { id: number }; token: string };
  await app.settle();
  const users = usersRepository(app.db);
  const hash = (await users.findById(user.id))!.password_hash;

  // Baselines: bare Fastify, no plugins or hooks, on the same database.
  const bare = Fastify({ logger: false });
  bare.get('/hello', async () => ({ data: { status: 'ok' } }));
  bare.get<{ Params: { id: string } }>('/user/:id', async (request, reply) => {
    // The same repository read the app's routes make, without the app's plugins and hooks.
    const row = await users.findById(Number(request.params.id));
    if (!row) return reply.status(404).send({ message: 'Not found.' });
    const { password_hash: _hash, totp_secret: _secret, deleted_at: _deleted, ...data } = row;
    return { data };
  });

  const full = await app.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  process.on('message', async (msg: { type: string; seconds?: number; concurrency?: number }) => {
    if (msg.type === 'argon2') {
      // As many verifies in flight as the load generator has connections; count completions.
      const until = performance.now() + msg.seconds! * 1000;
      let done = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: msg.concurrency! }, async () => {
          while (performance.now() < until) {
            if (!(await verify(hash, password))) throw new Error('verify failed');
            done++;
          }
        }),
      );
      process.send!({ type: 'argon2', perSecond: done / ((performance.now() - started) / 1000) });
    } else if (msg.type === 'close') {
      await bare.close();
      if (pgUrl) await app.db.query(`drop schema if exists ${schema} cascade`);
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });

  const ready: Ready = {
    type: 'ready',
    full,
    bare: bareUrl,
    token,
    xsrf,
    cookie,
    userId: user.id,
    email,
    password,
    database: app.db.kind,
  };
  process.send!(ready);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
