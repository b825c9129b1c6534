import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClient, createTestApp, registerUser, type TestApp } from './helpers.js';
import { dropJobsSchema } from './jobs-helpers.js';

/**
 * The job engine running in the app (JOBS=true): pg-boss workers and schedules on this database
 * (in-process on PGlite, its own schema on PostgreSQL). Their first pass at start returns a lapsed
 * plan to free, as the old loop did; the jobs are visible to the operator.
 */
let t: TestApp;
let lapsedId: number;
beforeAll(async () => {
  // A member whose paid plan ended yesterday, before the app (and its jobs) start.
  const seed = await createTestApp({ JOBS: 'false' });
  const c = new TestClient(seed.app);
  const { user } = await registerUser(c);
  lapsedId = user.id;
  await seed.app.db.query(
    `update users set tariff_key = '1-month', tariff_name = '1 Month', subscription_expires_at = now() - interval '1 day' where id = $1`,
    [user.id],
  );
  t = seed;
  // pg-boss already started without workers (an operator listed the jobs): the workers restart it with its clock.
  expect(await t.app.services.jobs.list()).toEqual([]);
  await t.app.services.jobs.startWorkers({ deliverSandbox: async () => 200, log: t.app.log });
});
afterAll(async () => {
  await t?.close();
  await dropJobsSchema(t);
});

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

it(
  'the workers run the pass at start: a lapsed plan returns to free and its "plan ended" mail goes once',
  { timeout: 60_000 },
  async () => {
    const row = await until(async () => {
      const [u] = await t.app.db.query<{ tariff_key: string }>('select tariff_key from users where id = $1', [
        lapsedId,
      ]);
      return u?.tariff_key === 'free-plan' ? u : undefined;
    });
    expect(row.tariff_key).toBe('free-plan');
    const notices = await t.app.db.query<{ kind: string; sent_at: Date | null }>(
      'select kind, sent_at from billing_notices where user_id = $1',
      [lapsedId],
    );
    expect(notices).toEqual([expect.objectContaining({ kind: 'planEnded', sent_at: expect.any(Date) })]);
    const jobs = await t.app.services.jobs.list({ all: true });
    expect(jobs.some((j) => j.queue === 'billing-pass' && j.state === 'completed')).toBe(true);
    const boss = await t.app.services.jobs.boss();
    expect((await boss.getSchedules()).map((s) => s.name).sort()).toEqual([
      'billing-pass',
      'postbacks',
      'sandbox-webhooks',
      'wg-key-reminders',
    ]);
  },
);

it(
  'the wg-key-reminders queue mails a WireGuard key that expires within a day, once',
  { timeout: 60_000 },
  async () => {
    const c = new TestClient(t.app);
    const { user } = await registerUser(c);
    await t.app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [user.id]);
    const { generateKeyPairSync } = await import('node:crypto');
    const publicKey = generateKeyPairSync('x25519')
      .publicKey.export({ format: 'der', type: 'spki' })
      .subarray(-32)
      .toString('base64');
    const added = await c.post('/api/setup/wg/devices/add', { name: 'Laptop', publicKey });
    expect(added.statusCode, added.body).toBe(201);
    const id = added.json().data.device.id as number;
    expect((await c.post('/api/setup/wg/devices/lifetime', { id, days: 2 })).statusCode).toBe(200);
    await t.app.db.query(`update wg_devices set key_expires_at = now() + interval '20 hours' where id = $1`, [id]);
    const email = (await t.app.db.query<{ email: string }>('select email from users where id = $1', [user.id]))[0]!
      .email;
    const boss = await t.app.services.jobs.boss();
    await boss.send('wg-key-reminders', {});
    const mails = await until(async () => {
      const m = t.app.services.mailer.list!(email).filter((x) => /WireGuard/.test(x.subject));
      return m.length ? m : undefined;
    });
    expect(mails.map((m) => m.subject)).toEqual(['The WireGuard key of “Laptop” expires soon']);
    await boss.send('wg-key-reminders', {});
    await until(async () => {
      const done = (await t.app.services.jobs.list({ all: true })).filter(
        (j) => j.queue === 'wg-key-reminders' && j.state === 'completed',
      );
      return done.length >= 2 ? done : undefined;
    });
    expect(t.app.services.mailer.list!(email).filter((x) => /WireGuard/.test(x.subject))).toHaveLength(1);
  },
);
