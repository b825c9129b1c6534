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
import { createMemoryRateLimiter, type RateLimiter } from '../src/lib/rate-limit.js';

export interface Ready {
  type: 'ready';
  full: string;
  bare: string;
  token: string;
  xsrf: string;
  userId: number;
  email: string;
  password: string;
  database: string;
}

/** The real limiter, except that the per-IP sign-in window never fills: the bench signs in thousands of times from one address. */
function benchLimiter(): RateLimiter {
  const inner = createMemoryRateLimiter();
  return {
    ...inner,
    async hit(key, windowMs) {
      const r = await inner.hit(key, windowMs);
      if (key.startsWith('login:ip:')) await inner.reset(key);
      return r;
    },
  };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-bench-'));
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const schema = `bench_${process.pid}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
  });
  if (!pgUrl) config.database = { kind: 'pglite', dataDir: 'memory://' };
  const app = await buildApp(config, { limiter: benchLimiter() });

  // One user, signed up through the app itself.
  const health = await app.inject({ method: 'GET', url: '/api/brand' });
  const xsrf = health.cookies.find((c) => c.name === 'XSRF-TOKEN')!.value;
  const email = 'bench@example.com';
  const password = 'correct horse battery staple';
  const reg = await app.inject({
    method: 'POST',
    url: '/api/users/register',
    headers: { 'x-xsrf-token': xsrf, 'content-type': 'application/json' },
    cookies: { 'XSRF-TOKEN': xsrf },
    payload: JSON.stringify({ email, password, password_confirmation: password }),
  });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.statusCode} ${reg.body}`);
  const { user, token } = reg.json().data as { user: { id: number }; token: string };
  await app.settle();
  const [{ password_hash: hash }] = (await app.db.query<{ password_hash: string }>('select password_hash from users where id = $1', [user.id])) as [{ password_hash: string }];

  // Baselines: bare Fastify, no plugins or hooks, on the same database.
  const bare = Fastify({ logger: false });
  bare.get('/hello', async () => ({ data: { status: 'ok' } }));
  bare.get<{ Params: { id: string } }>('/user/:id', async (request, reply) => {
    const [row] = await app.db.query(
      `select u.id, u.email, u.verified, u.account_status, u.first_name, u.second_name, u.language, u.brand,
              u.is_post_affiliate_available, u.is_wg_section_available, u.tariff_name, u.tariff_key, u.subscription_expires_at, u.totp_enabled
       from users u where u.id = $1 and u.deleted_at is null`,
      [Number(request.params.id)],
    );
    return row ? { data: row } : reply.status(404).send({ message: 'Not found.' });
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

  const ready: Ready = { type: 'ready', full, bare: bareUrl, token, xsrf, userId: user.id, email, password, database: app.db.kind };
  process.send!(ready);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
