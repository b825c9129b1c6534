// The affiliate programme (modules/affiliate) and invite rewards (modules/rewards).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, TestClient, createTestApp, payWithSandbox, signedUpClient, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false', REWARD_DAYS: '14' });
});
afterAll(async () => {
  await t?.close();
});

describe('affiliate and rewards', () => {
  it('counts clicks, sign-ups, paying referrals and earnings of a referral link', async () => {
    const { c: partner } = await signedUpClient(t.app);
    const stats0 = (await partner.get('/api/affiliate/stats')).json().data;
    expect(stats0).toMatchObject({ clicks: 0, signups: 0, payingReferrals: 0, commissionPercent: 25 });
    const code = stats0.referralId as string;
    expect(stats0.link).toContain(`referralID=${code}`);
    await new TestClient(t.app).post('/api/affiliate/session/create', {
      url: `http://localhost/checkout?referralID=${code}`,
      referralID: code,
    });
    const { c: referred } = await signedUpClient(t.app, { referralID: code });
    await payWithSandbox(t.app, referred, 2);
    const stats = (await partner.get('/api/affiliate/stats')).json().data;
    expect(stats).toMatchObject({
      clicks: 1,
      signups: 1,
      payingReferrals: 1,
      earnings: [{ currency: 'USD', amount: Math.floor((1299 * 25) / 100) }],
    });
  });

  it('keeps running totals equal to the rows through payments, refunds, currencies, re-attribution, erasure and parallel writes (issue 22)', async () => {
    // The partner page reads affiliate_counts/affiliate_paid (migration 0029), kept by triggers.
    // After each batch of writes the kept totals must equal a rebuild from the rows: the test
    // snapshots them, rebuilds (affiliate_totals_rebuild, the old query's counting) and compares.
    const db = t.app.db;
    const { c: partner } = await signedUpClient(t.app);
    const code = (await partner.get('/api/affiliate/stats')).json().data.referralId as string;
    const members: number[] = [];
    for (let i = 0; i < 5; i++) members.push((await signedUpClient(t.app, { referralID: code })).user.id as number);
    members.push((await signedUpClient(t.app)).user.id as number); // brought by no code
    const [tariff] = await db.query<{ id: number }>('select id from tariffs order by id limit 1');
    let n = 0;
    const pay = (userId: number, currency: string, amount: number, status: string) =>
      db.query(
        `insert into payments (public_id, user_id, tariff_id, currency, amount_minor, price_list, provider, status, idempotency_key)
         values ($1, $2, $3, $4, $5, 'default', 'sandbox', $6, $1) returning id`,
        [`pay_totals_${process.pid}_${++n}`, userId, tariff!.id, currency, amount, status],
      );
    const snapshot = async () => ({
      counts: await db.query(
        'select * from affiliate_counts where clicks <> 0 or signups <> 0 or paying <> 0 order by 1',
      ),
      paid: await db.query(
        `select referral_id, currency, paying, total_minor::text from affiliate_paid where paying <> 0 or total_minor <> 0 order by 1, 2`,
      ),
    });
    const expectTotalsMatchRows = async () => {
      const kept = await snapshot();
      await db.query('select affiliate_totals_rebuild()');
      expect(kept).toEqual(await snapshot());
    };
    let seed = 7;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    for (let batch = 0; batch < 6; batch++) {
      // Writes at once (on PostgreSQL they race for real; PGlite runs them one by one).
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          const who = members[rand(members.length)]!;
          switch (rand(6)) {
            case 0:
            case 1:
              await pay(who, ['USD', 'EUR'][rand(2)]!, 100 + rand(900), ['succeeded', 'pending', 'failed'][rand(3)]!);
              break;
            case 2:
              await db.query(
                `update payments set status = 'refunded' where id = (select id from payments where user_id = $1 and status = 'succeeded' order by id limit 1)`,
                [who],
              );
              break;
            case 3:
              await db.query(
                `update payments set status = 'succeeded' where id = (select id from payments where user_id = $1 and status = 'pending' order by id limit 1)`,
                [who],
              );
              break;
            case 4:
              await t.app.services.affiliate.recordSession(code, 'https://example.test/', null);
              break;
            case 5:
              // The code taken out of an attribution and put back (a partner's erasure does the first).
              await db.query(
                `update users set attribution = case when attribution ? 'referralID' then attribution - 'referralID' else attribution || jsonb_build_object('referralID', $2::text) end where id = $1`,
                [who, code],
              );
              break;
          }
        }),
      );
      await expectTotalsMatchRows();
    }
    // The API reads the kept totals: the same figures as the rows say.
    const [rows] = await db.query<{ signups: number; paying: number }>(
      'select signups, paying from affiliate_counts where referral_id = $1',
      [code],
    );
    const stats = (await partner.get('/api/affiliate/stats')).json().data;
    expect(stats).toMatchObject({ signups: rows?.signups ?? 0, payingReferrals: rows?.paying ?? 0 });
    // A referred member's erasure takes their sign-up and payments out of the partner's figures.
    const before = stats.signups as number;
    const erased = (await signedUpClient(t.app, { referralID: code })).c;
    expect((await partner.get('/api/affiliate/stats')).json().data.signups).toBe(before + 1);
    const del = await erased.post('/api/users/annihilation', { password: PASSWORD });
    expect(del.statusCode, del.body).toBeLessThan(300);
    expect((await partner.get('/api/affiliate/stats')).json().data.signups).toBe(before);
    await expectTotalsMatchRows();
  });

  it('gives both friends free days when the invited friend pays for the first time, once', async () => {
    const { c: inviter, user: inviterUser } = await signedUpClient(t.app);
    const summary = (await inviter.get('/api/rewards')).json().data;
    expect(summary).toMatchObject({ daysPerFriend: 14, totalDays: 0, invited: 0 });
    const { c: friend } = await signedUpClient(t.app, { friendID: summary.friendId });
    await payWithSandbox(t.app, friend, 2);
    await payWithSandbox(t.app, friend, 2);
    const after = (await inviter.get('/api/rewards')).json().data;
    expect(after).toMatchObject({ totalDays: 14, invited: 1 });
    expect(after.ledger).toHaveLength(1);
    expect(after.ledger[0]).toMatchObject({ days: 14, reason: 'invited-friend' });
    const inviterSub = (await inviter.get('/api/users/info/get')).json().data.subscriptionData;
    expect(inviterSub.tariffKey).toBe('1-month');
    expect(Math.abs(new Date(inviterSub.expiresAt).getTime() - (Date.now() + 14 * 86_400_000))).toBeLessThan(60_000);
    const friendSub = (await friend.get('/api/users/info/get')).json().data.subscriptionData;
    expect(Math.abs(new Date(friendSub.expiresAt).getTime() - (Date.now() + (60 + 14) * 86_400_000))).toBeLessThan(
      60_000,
    );
    expect((await friend.get('/api/rewards')).json().data.ledger[0].reason).toBe('invited-by-friend');
    void inviterUser;
  });
});
