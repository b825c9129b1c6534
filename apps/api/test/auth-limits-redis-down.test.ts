import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, TestClient, sharedInstance, uniqueEmail } from './helpers.js';
import { freePort } from './server-process.js';

/**
 * Issue 22, Redis down: three instances on one PostgreSQL schema and a Redis of this test's own
 * (redis-server on a free port, stopped by the test; the machine's Redis is never touched). While
 * Redis answers, budgets are shared through it; once it is gone, through PostgreSQL (rate_limits),
 * so three instances still allow one budget of guesses, not three. Before: each instance fell back
 * to its own memory (up to 3x the sign-in guesses, 3x the sign-ups and reset mails).
 */
const PG_URL = process.env.TEST_DATABASE_URL;
const schema = `rdown_${process.pid}_${randomBytes(4).toString('hex')}`;
const dataDirs: string[] = [];
let instances: FastifyInstance[] = [];
let redis: ChildProcess | undefined;

const newIp = () => `10.${[...randomBytes(3)].join('.')}`;
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
const count = (rs: LightMyRequestResponse[], status: number) => rs.filter((r) => r.statusCode === status).length;
const on = (i: number) => instances[i % instances.length]!;

async function startRedis(port: number): Promise<ChildProcess> {
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    p.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    p.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
  return p;
}

describe.skipIf(!PG_URL || !fs.existsSync('/usr/bin/redis-server'))(
  'rate limits with Redis down, three instances',
  () => {
    beforeAll(async () => {
      const port = await freePort();
      redis = await startRedis(port);
      // One instance first (it migrates the schema), then two more.
      const make = () =>
        sharedInstance({
          schema,
          dataDirs,
          env: {
            TRUST_PROXY: 'true',
            JOBS: 'false',
            REDIS_URL: `redis://127.0.0.1:${port}`,
            LIMIT_REGISTER_PER_IP: '3',
            LIMIT_RESET_PER_IP: '3',
            APP_SECRET: 'redis-down-test-secret-0123456789abcdef0123',
          },
        });
      instances = [await make()];
      instances.push(...(await Promise.all([make(), make()])));
    }, 120_000);

    afterAll(async () => {
      if (redis && redis.exitCode === null) redis.kill('SIGKILL');
      await Promise.allSettled(instances.map((i) => i.close()));
      if (PG_URL) {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
      for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
    });

    it(
      'budgets are one budget over three instances, with Redis and then without it (through PostgreSQL)',
      { timeout: 90_000 },
      async () => {
        const email = uniqueEmail('rdown');
        const reg = await new TestClient(on(0)).post(
          '/api/users/register',
          { email, password: PASSWORD, password_confirmation: PASSWORD },
          from(newIp()),
        );
        expect(reg.statusCode, reg.body).toBe(201);
        const guesses = async (n: number) => {
          const ip = newIp();
          const rs = await Promise.all(
            Array.from({ length: n }, (_, i) =>
              new TestClient(on(i)).post('/api/users/login', { email, password: 'wrong password' }, from(ip)),
            ),
          );
          expect(rs.filter((r) => ![422, 429].includes(r.statusCode)).map((r) => r.body)).toEqual([]);
          return count(rs, 422);
        };

        // Redis answers: one budget of sign-in guesses for the account (10) over the three instances.
        expect(await guesses(30)).toBeLessThanOrEqual(10);

        // Redis goes away (this test's own server).
        redis!.kill('SIGKILL');
        await new Promise((resolve) => redis!.once('exit', resolve));

        // Sign-in: a new account, 60 guesses in parallel from one address over the three: at most one budget.
        const other = uniqueEmail('rdown2');
        expect(
          (
            await new TestClient(on(1)).post(
              '/api/users/register',
              { email: other, password: PASSWORD, password_confirmation: PASSWORD },
              from(newIp()),
            )
          ).statusCode,
        ).toBe(201);
        const ip = newIp();
        const rs = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            new TestClient(on(i)).post('/api/users/login', { email: other, password: 'wrong password' }, from(ip)),
          ),
        );
        expect(rs.filter((r) => ![422, 429].includes(r.statusCode)).map((r) => r.body)).toEqual([]);
        expect(count(rs, 422)).toBeGreaterThan(0);
        expect(count(rs, 422)).toBeLessThanOrEqual(10);
        expect(rs.find((r) => r.statusCode === 429)!.headers['retry-after']).toBeDefined();

        // Sign-ups from one address (3 per address) and reset mails (3 per address): one budget over the three.
        const regIp = newIp();
        const regs = await Promise.all(
          Array.from({ length: 9 }, (_, i) =>
            new TestClient(on(i)).post(
              '/api/users/register',
              { email: uniqueEmail('rdreg'), password: PASSWORD, password_confirmation: PASSWORD },
              from(regIp),
            ),
          ),
        );
        expect(count(regs, 201)).toBe(3);
        expect(count(regs, 429)).toBe(6);
        const resetIp = newIp();
        const resets = await Promise.all(
          Array.from({ length: 9 }, (_, i) =>
            new TestClient(on(i)).post(
              '/api/users/requestResetPassword',
              { email: uniqueEmail('rdreset') },
              from(resetIp),
            ),
          ),
        );
        expect(count(resets, 200)).toBe(3);
        expect(count(resets, 429)).toBe(6);
      },
    );
  },
);
