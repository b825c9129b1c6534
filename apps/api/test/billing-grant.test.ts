import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands as billingCommands } from '../src/cli/billing.js';
import type { CliContext } from '../src/cli/command.js';
import {
  TestClient,
  createTestApp,
  mailTo,
  payWithSandbox,
  registerUser,
  uniqueEmail,
  type TestApp,
} from './helpers.js';

/**
 * What a support grant triggers (decided in modules/billing/operator.ts): the plan and a mail saying so
 * (no receipt, no "thank you for your payment": nothing was paid),
 * no friend reward and no conversion postback, and the member's first real payment still counts as
 * their first purchase. `npx warren billing grant` runs with the composition's services, the same
 * ones the API uses for a payment (here: the test app's, handed to the CLI command).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    JOBS: 'false',
    REWARD_DAYS: '14',
    POSTBACK_URLS: 'http://127.0.0.1:9/pb?click={clickID}&sum={amount}',
  });
});
afterAll(async () => {
  await t?.close();
});

async function cli(command: string, flags: Record<string, string | boolean>) {
  const lines: string[] = [];
  const ctx: CliContext = {
    db: t.app.db,
    config: t.config,
    services: async () => t.app.services,
    flags,
    positionals: [],
    print: (l) => lines.push(l),
  };
  await billingCommands[command]!.run(ctx);
  return lines.join('\n');
}

const pay = (c: TestClient, tariffId = 2) => payWithSandbox(t.app, c, tariffId);

const count = async (sql: string, params: unknown[]) =>
  ((await t.app.db.query<{ n: number }>(sql, params))[0] as { n: number }).n;

describe('a support grant', () => {
  it('gives the plan and the grant mail (no receipt); no friend reward, no postback; the first real payment then rewards both friends and posts back', async () => {
    const inviter = new TestClient(t.app);
    await registerUser(inviter, uniqueEmail());
    const { friendId } = (await inviter.get('/api/rewards')).json().data;
    const friend = new TestClient(t.app);
    const friendEmail = uniqueEmail();
    const { user } = await registerUser(friend, friendEmail, { friendID: friendId, clickID: 'click-1' });

    const out = await cli('grant', { email: friendEmail, tariff: '1-month' });
    expect(out).toMatch(/Granted 1-month/);
    const sub = (await friend.get('/api/users/info/get')).json().data;
    expect(sub.subscriptionData.tariffKey).toBe('1-month');
    expect(sub.accountStatus).toBe('Active');
    const mails = await mailTo(friend, t.app, friendEmail);
    const grantMail = mails.find((m) => /was added to your/.test(m.subject));
    expect(grantMail?.text).toMatch(/nothing was charged and there is no receipt/);
    expect(grantMail?.text).toMatch(/runs until \d{4}-\d{2}-\d{2}/);
    expect(mails.some((m) => /receipt/i.test(m.subject) || /thank you for your payment/i.test(m.text))).toBe(false);
    expect(
      await count('select count(*)::int as n from reward_entries where friend_user_id = $1 or user_id = $1', [user.id]),
    ).toBe(0);
    expect(await count('select count(*)::int as n from conversion_postbacks where user_id = $1', [user.id])).toBe(0);

    // The first purchase after the grant is still the first purchase.
    await pay(friend);
    await t.app.settle();
    expect((await inviter.get('/api/rewards')).json().data).toMatchObject({ totalDays: 14, invited: 1 });
    expect((await friend.get('/api/rewards')).json().data.ledger[0]).toMatchObject({
      days: 14,
      reason: 'invited-by-friend',
    });
    expect(await count('select count(*)::int as n from conversion_postbacks where user_id = $1', [user.id])).toBe(1);
  });

  it("the CLI and the API share the composition: the grant goes through the app's own billing services", async () => {
    expect(t.app.services.billing).toBe(t.app.billing);
    const email = uniqueEmail();
    await registerUser(new TestClient(t.app), email);
    await cli('grant', { email, tariff: '1-year' });
    const lines = (await cli('payments', { email })).split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^grant_[a-f0-9]+ {2}tariff \d+ {2}0\.00 USD {2}succeeded grant/);
  });
});
