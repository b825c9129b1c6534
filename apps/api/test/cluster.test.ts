import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { storedBudgetKey } from '../src/lib/rate-limit.js';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, REDIS_TEST_URL, TestClient, sharedInstance, uniqueEmail } from './helpers.js';

/**
 * Scale-out: two API instances on ONE PostgreSQL schema and ONE Redis, as behind a load
 * balancer. Both are built purely from configuration (DATABASE_URL + REDIS_URL), so this
 * checks the real wiring. Each run uses its own schema and its own client address, so runs
 * never share rate-limit counters; the Redis keys it made are deleted afterwards.
 */
const PG_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = REDIS_TEST_URL;
const SKIP_REASON = 'needs TEST_DATABASE_URL (PostgreSQL) and Redis: two instances cannot share an in-memory PGlite';

const schema = `cluster_${process.pid}_${randomBytes(4).toString('hex')}`;
// A client address of our own (TEST-NET-2), so per-IP windows of earlier runs do not count.
const clientIp = `198.51.100.${1 + (randomBytes(1)[0]! % 250)}`;
const dataDirs: string[] = [];
let a: FastifyInstance;
let b: FastifyInstance;
let redis: Redis;
const emails: string[] = [];

async function instance(): Promise<FastifyInstance> {
  return sharedInstance({ schema, dataDirs, env: { APP_SECRET: 'cluster-test-secret-0123456789abcdef0123456789' } });
}

const viaIp = { remoteAddress: clientIp };
/** Failed sign-ins are budgeted per account and address (modules/users/limits.ts). */
const failKey = (email: string) => `warren:rl:login-account-ip:${storedBudgetKey(`${email}|${clientIp}`)}`;

async function registerUser(client: TestClient, email: string) {
  const res = await client.post(
    '/api/users/register',
    { email, password: PASSWORD, password_confirmation: PASSWORD },
    viaIp,
  );
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as { user: { id: number; email: string }; token: string };
  client.token = data.token;
  return data;
}

describe.skipIf(!PG_URL)(
  `two API instances, one database, one Redis${PG_URL ? '' : ` (skipped: ${SKIP_REASON})`}`,
  () => {
    beforeAll(async () => {
      redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      // Started together, as a rolling deploy would: the migration lock lets only one migrate.
      [a, b] = await Promise.all([instance(), instance()]);
    });

    afterAll(async () => {
      await Promise.allSettled([a?.close(), b?.close()]);
      if (redis) {
        const keys = [
          `warren:rl:login-ip:${storedBudgetKey(clientIp)}`,
          `warren:rl:register-ip:${storedBudgetKey(clientIp)}`,
          ...emails.flatMap((e) => [failKey(e), `warren:rl:login-account:${storedBudgetKey(e)}`]),
        ];
        await redis.del(...keys).catch(() => undefined);
        redis.disconnect();
      }
      if (PG_URL) {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
      for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
    });

    it('migrated the shared schema once', async () => {
      const rows = await a.db.query<{ name: string }>('select name from schema_migrations');
      expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
      expect(rows.length).toBeGreaterThan(0);
    });

    it('accepts on one instance the XSRF cookie and the bearer token issued by the other', async () => {
      const onA = new TestClient(a);
      const email = uniqueEmail('cluster');
      const { user, token } = await registerUser(onA, email);
      // Same browser, next request lands on B: same cookie, same token.
      const onB = Object.assign(Object.create(TestClient.prototype), onA, { app: b }) as TestClient;
      const me = await onB.get('/api/users/info/get');
      expect(me.statusCode).toBe(200);
      expect(me.json().data).toMatchObject({ id: user.id, email });
      const session = await onB.post('/api/users/session/set', { sessionID: 'from-b' }, viaIp);
      expect(session.statusCode).toBe(200);

      // Signing in on B gives a token A accepts; signing out on B revokes it on A as well.
      const login = await new TestClient(b).post('/api/users/login', { email, password: PASSWORD }, viaIp);
      expect(login.statusCode).toBe(200);
      const second = login.json().data.token as string;
      expect(second).not.toBe(token);
      const aClient = new TestClient(a);
      aClient.token = second;
      expect((await aClient.get('/api/users/info/get')).statusCode).toBe(200);
      const bClient = new TestClient(b);
      bClient.token = second;
      expect((await bClient.post('/api/users/logout')).statusCode).toBe(200);
      expect((await aClient.get('/api/users/info/get')).statusCode).toBe(401);
      // The first token is untouched on both.
      expect((await onA.get('/api/users/info/get')).statusCode).toBe(200);
    });

    it('counts failed sign-ins across both instances: 5 on A + 5 on B, then 429 on either', async () => {
      const email = uniqueEmail('limit');
      emails.push(email);
      await registerUser(new TestClient(a), email);
      const clientA = new TestClient(a);
      const clientB = new TestClient(b);
      for (let i = 0; i < 5; i++)
        expect((await clientA.post('/api/users/login', { email, password: 'wrong password' }, viaIp)).statusCode).toBe(
          422,
        );
      for (let i = 0; i < 5; i++)
        expect((await clientB.post('/api/users/login', { email, password: 'wrong password' }, viaIp)).statusCode).toBe(
          422,
        );
      // The shared budget is in Redis, not in either process.
      expect(Number(await redis.get(failKey(email)))).toBe(10);

      for (const [name, client] of [
        ['A', clientA],
        ['B', clientB],
      ] as const) {
        const locked = await client.post('/api/users/login', { email, password: PASSWORD }, viaIp);
        expect(locked.statusCode, `instance ${name}`).toBe(429);
        expect(Number(locked.headers['retry-after']), `instance ${name}`).toBeGreaterThan(0);
        expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      }
    });

    it('a successful sign-in on one instance clears the failure count for the other', async () => {
      const email = uniqueEmail('reset');
      emails.push(email);
      await registerUser(new TestClient(a), email);
      for (let i = 0; i < 9; i++)
        expect(
          (await new TestClient(a).post('/api/users/login', { email, password: 'wrong password' }, viaIp)).statusCode,
        ).toBe(422);
      expect((await new TestClient(b).post('/api/users/login', { email, password: PASSWORD }, viaIp)).statusCode).toBe(
        200,
      );
      expect(await redis.exists(failKey(email))).toBe(0);
      for (let i = 0; i < 9; i++)
        expect(
          (await new TestClient(a).post('/api/users/login', { email, password: 'wrong password' }, viaIp)).statusCode,
        ).toBe(422);
      expect((await new TestClient(b).post('/api/users/login', { email, password: PASSWORD }, viaIp)).statusCode).toBe(
        200,
      );
    });
  },
);
