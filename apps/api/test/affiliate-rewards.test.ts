// The affiliate programme (modules/affiliate) and invite rewards (modules/rewards).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient, createTestApp, payWithSandbox, signedUpClient, type TestApp } from './helpers.js';

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
