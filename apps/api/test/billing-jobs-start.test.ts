import { afterAll, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { TestClient, createTestApp, payWithSandbox, registerUser, type TestApp } from './helpers.js';
import { dropJobsSchema } from './jobs-helpers.js';

/**
 * Issue 20, finding 10: the server exited at start when a sandbox webhook was due. The workers
 * started while the app was still registering its routes, and the redelivery goes through the app
 * itself (app.inject), which cannot run before the app is ready. The workers now start once the
 * app is ready. The job is queued before the app starts, so its worker picks it up at once.
 */
let seed: TestApp | undefined;
let second: Awaited<ReturnType<typeof buildApp>> | undefined;
afterAll(async () => {
  await second?.close();
  await seed?.close();
  await dropJobsSchema(seed);
});

it('starts, answers and redelivers when a sandbox webhook is due at start', { timeout: 90_000 }, async () => {
  // Only PostgreSQL keeps the queue between two apps (PGlite here is in memory, one app's own).
  if (!process.env.TEST_DATABASE_URL) return;
  seed = await createTestApp({ JOBS: 'false' });
  const c = new TestClient(seed.app);
  await registerUser(c);
  await payWithSandbox(seed.app, c);
  const [payment] = await seed.app.db.query<{ id: string; merchant_ref: string }>(
    'select id, merchant_ref from sandbox_payments',
  );
  // The provider's delivery was not acknowledged: one event still to send.
  const event = {
    id: 'evt_due_at_start',
    type: 'payment.paid',
    created: Math.floor(Date.now() / 1000),
    data: { id: payment!.id, merchant_ref: payment!.merchant_ref },
  };
  await seed.app.db.query(`update sandbox_payments set pending_events = $2::jsonb where id = $1`, [
    payment!.id,
    JSON.stringify([event]),
  ]);
  const boss = await seed.app.services.jobs.boss();
  const jobId = await boss.send('sandbox-webhooks', {});
  expect(jobId).toBeTruthy();

  // The same database, now with the workers: this used to end the process at start.
  second = await buildApp({ ...seed.config, jobs: true });
  await second.ready();
  const health = await second.inject({ method: 'GET', url: '/api/health' });
  expect(health.statusCode).toBe(200);

  const deadline = Date.now() + 60_000;
  let state = '';
  while (Date.now() < deadline) {
    const jobs = await second.services.jobs.list({ all: true });
    state = jobs.find((j) => j.id === jobId)?.state ?? '';
    if (state === 'completed' || state === 'failed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(state).toBe('completed');
  const [after] = await second.db.query<{ pending: number }>(
    'select jsonb_array_length(pending_events) as pending from sandbox_payments where id = $1',
    [payment!.id],
  );
  expect(after!.pending).toBe(0);
});
