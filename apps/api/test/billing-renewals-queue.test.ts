import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobEngine } from '../src/modules/billing/jobs.js';
import { createTestApp, type TestApp } from './helpers.js';
import { dropJobsSchema } from './jobs-helpers.js';

/**
 * The renewal pass queues a backlog by expiry, in bounded batches, once (issue 22): members are
 * written with SQL, the newest account expiring first, so user-id order (the old order) and
 * expiry order differ. A pass with batches of 5 queues all 12 in expiry order; the next pass reads
 * nothing it queued before; the jobs are worked soonest expiry first and each member is charged once.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
});
afterAll(async () => {
  await t?.close();
  await dropJobsSchema(t);
});

it('queues due renewals soonest expiry first, a batch at a time, never twice', { timeout: 60_000 }, async () => {
  const db = t.app.db;
  const [tariff] = await db.query<{ id: number; key: string; name: string }>(
    `select id, key, name from tariffs where period_days between 28 and 31 and not is_trial order by id limit 1`,
  );
  const [price] = await db.query<{ currency: string }>(
    `select currency from prices where tariff_id = $1 and price_list = 'default' order by currency limit 1`,
    [tariff!.id],
  );
  const asOf = new Date('2031-03-01T12:00:00Z');
  // 12 members, the last signed up expiring first; a 13th not due yet (beyond the lead).
  const ids = await db.query<{ id: number }>(
    `insert into users (email, password_hash, brand, verified, account_status, tariff_key, tariff_name, subscription_expires_at)
     select 'queue-' || g || '@renewals.invalid', '', 'warren-vpn', true, 'Active', $1, $2, $3::timestamptz + make_interval(hours => 13 - g)
     from generate_series(1, 13) g order by g returning id`,
    [tariff!.key, tariff!.name, asOf],
  );
  await db.query(`update users set subscription_expires_at = $2::timestamptz + interval '30 days' where id = $1`, [
    ids[12]!.id,
    asOf,
  ]);
  await db.query(
    `insert into sandbox_cards (id, label) select 'card_queue_' || u.id, 'Visa •••• 4242' from unnest($1::int[]) as u(id)`,
    [ids.map((r) => r.id)],
  );
  await db.query(
    `insert into subscription_renewals (user_id, auto_renew, provider, method_ref, method_label, tariff_id, price_list, currency)
     select u.id, true, 'sandbox', 'card_queue_' || u.id, 'Visa •••• 4242', $2, 'default', $3 from unnest($1::int[]) as u(id)`,
    [ids.map((r) => r.id), tariff!.id, price!.currency],
  );
  const byExpiry = ids
    .slice(0, 12)
    .map((r) => r.id)
    .reverse();

  // The pass's query: expiry order, and nothing it marked queued comes back.
  const renewals = t.app.services.billing.renewals;
  const listed = await renewals.toQueue(asOf, 100);
  expect(listed.map((d) => d.user_id)).toEqual(byExpiry);
  await renewals.markQueued(listed.slice(0, 7));
  expect((await renewals.toQueue(asOf, 100)).map((d) => d.user_id)).toEqual(byExpiry.slice(7));
  await db.query('update subscription_renewals set queued_key = null');

  const jobs = jobEngine({
    db,
    database: t.config.database,
    renewals: t.app.services.billing.renewals,
    reconciliation: t.app.services.billing.reconciliation,
    queueBatch: 5,
  });
  try {
    const first = await jobs.runPass(asOf);
    expect(first.renewals.map((r) => r.userId)).toEqual(byExpiry);
    expect(first.renewals.every((r) => r.outcome === 'renewed')).toBe(true);
    const paid = await db.query<{ n: number }>(
      `select count(*)::int as n from payments where kind = 'renewal' and user_id = any($1::int[])`,
      [ids.map((r) => r.id)],
    );
    expect(paid[0]!.n).toBe(12);

    // Nothing is queued twice: every member renewed (the next period is not due yet).
    const again = await jobs.runPass(asOf);
    expect(again.renewals).toEqual([]);
    const queuedKeys = await db.query<{ n: number }>(
      `select count(*)::int as n from subscription_renewals where queued_key is not null`,
    );
    expect(queuedKeys[0]!.n).toBe(12);
  } finally {
    await jobs.stop();
  }
});
