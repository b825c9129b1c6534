import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { TOTP } from 'otpauth';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter } from '../src/lib/rate-limit.js';
import { PASSWORD, REDIS_TEST_URL, TestClient, sharedInstance, uniqueEmail } from './helpers.js';

/**
 * Issue 11 across instances: two APIs on one PostgreSQL schema and one Redis, requests split
 * between them in parallel. Every budget is one budget, and every single-use token is used once,
 * whichever instance a request lands on.
 */
const PG_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = REDIS_TEST_URL;
const schema = `authcl_${process.pid}_${randomBytes(4).toString('hex')}`;
const dataDirs: string[] = [];
let a: FastifyInstance;
let b: FastifyInstance;

/** One Redis key space for this run (fresh schemas reuse user ids, and some budgets are per user), shared by both instances. */
const redisPrefix = `warren:test:${randomBytes(6).toString('hex')}`;

async function instance(): Promise<FastifyInstance> {
  return sharedInstance({
    schema,
    dataDirs,
    env: { TRUST_PROXY: 'true', JOBS: 'false', APP_SECRET: 'auth-cluster-test-secret-0123456789abcdef0123' },
    overrides: { limiter: createRedisRateLimiter(REDIS_URL, undefined, redisPrefix) },
  });
}

const newIp = () => `10.${[...randomBytes(3)].join('.')}`;
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
const count = (rs: LightMyRequestResponse[], status: number) => rs.filter((r) => r.statusCode === status).length;
/** Alternates instances, as a round-robin balancer would. */
const on = (i: number) => (i % 2 ? b : a);
const N = 60;

async function signedUp() {
  const email = uniqueEmail('authcl');
  const c = new TestClient(a);
  const res = await c.post(
    '/api/users/register',
    { email, password: PASSWORD, password_confirmation: PASSWORD },
    from(newIp()),
  );
  expect(res.statusCode, res.body).toBe(201);
  c.token = res.json().data.token;
  return { c, email, userId: res.json().data.user.id as number };
}

describe.skipIf(!PG_URL)('issue 11 limits on two instances sharing Redis', () => {
  beforeAll(async () => {
    [a, b] = await Promise.all([instance(), instance()]);
  });

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    if (PG_URL) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
    for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it(`${N} parallel sign-ins from one address over both instances: at most 10 evaluated`, async () => {
    const { email } = await signedUp();
    const ip = newIp();
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        new TestClient(on(i)).post(
          '/api/users/login',
          { email, password: i === 39 ? PASSWORD : 'wrong password' },
          from(ip),
        ),
      ),
    );
    const evaluated = count(rs, 422) + count(rs, 200);
    expect(evaluated).toBeLessThanOrEqual(10);
    expect(count(rs, 429)).toBe(N - evaluated);
  });

  it('one budget per account and /64 over both instances and both doors (issue 20): 5 customer guesses on one, 5 staff guesses on the other, then 429', async () => {
    const { email } = await signedUp();
    const net = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    for (let i = 0; i < 5; i++)
      expect(
        (
          await new TestClient(a).post(
            '/api/users/login',
            { email, password: 'wrong password' },
            from(`${net}::${i + 1}`),
          )
        ).statusCode,
      ).toBe(422);
    for (let i = 0; i < 5; i++)
      expect(
        (
          await new TestClient(b).post(
            '/api/staff/session',
            { email, password: 'wrong password', code: '123456' },
            from(`${net}::a${i}`),
          )
        ).statusCode,
      ).toBe(422);
    expect(
      (await new TestClient(a).post('/api/users/login', { email, password: PASSWORD }, from(`${net}::ff`))).statusCode,
    ).toBe(429);
    expect(
      (
        await new TestClient(b).post(
          '/api/staff/session',
          { email, password: PASSWORD, code: '123456' },
          from(`${net}::fe`),
        )
      ).statusCode,
    ).toBe(429);
  });

  it(`${N} parallel TOTP codes from ${N} addresses over both instances: at most 10 evaluated`, async () => {
    const { c, email } = await signedUp();
    const { secret } = (await c.post('/api/profile/2fa/setup')).json().data;
    expect(
      (
        await c.post('/api/profile/2fa/enable', {
          code: new TOTP({ secret }).generate({ timestamp: Date.now() - 30_000 }),
        })
      ).statusCode,
    ).toBe(200);
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        new TestClient(on(i)).post(
          '/api/users/login',
          { email, password: PASSWORD, otp: String(300000 + i) },
          from(newIp()),
        ),
      ),
    );
    expect(count(rs, 422)).toBeLessThanOrEqual(10);
    expect(count(rs, 200)).toBe(0);
  });

  it('one one-time link used on both instances in parallel signs in once; minting is limited across both', async () => {
    const { c, userId } = await signedUp();
    const minted = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const client = Object.assign(Object.create(TestClient.prototype), c, { app: on(i) }) as TestClient;
        return client.get('/api/users/onetimeLinkByPromo');
      }),
    );
    expect(count(minted, 200)).toBeLessThanOrEqual(5);
    // Only the newest link works; find it by trying each once, in parallel on both instances.
    const tokens = minted
      .filter((r) => r.statusCode === 200)
      .map((r) => new URL(r.json().data.url).searchParams.get('token')!);
    const uses = await Promise.all(
      tokens.flatMap((token) =>
        Array.from({ length: 10 }, (_, i) =>
          new TestClient(on(i)).post('/api/users/onetimeLogin', { userID: userId, token }, from(newIp())),
        ),
      ),
    );
    expect(count(uses, 200)).toBe(1);
  });
});
