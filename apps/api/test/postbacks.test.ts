import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDuePostbacks } from '../src/modules/billing/jobs.js';
import { type FakeServer, startFake } from './fakes/http.js';
import { TestClient, createTestApp, payWithSandbox as pay, registerUser, type TestApp } from './helpers.js';

/** Conversion postbacks on a user's first payment, sent to a local fake tracker that fails once. */
let t: TestApp;
let tracker: FakeServer;
let answers: number[];

beforeAll(async () => {
  answers = [];
  tracker = await startFake(() => ({ status: answers.shift() ?? 200, text: 'tracked' }));
  t = await createTestApp({
    JOBS: 'false',
    POSTBACK_URLS: `${tracker.url}/pb?click={clickID}&v={voluumID}&amount={amount}`,
  });
});
afterAll(async () => {
  await t?.close();
  await tracker?.close();
});

async function payWithSandbox(c: TestClient) {
  const done = await pay(t.app, c);
  expect(done.body).toContain('redirect_status=succeeded');
  await t.app.settle(); // postbacks are queued in the background after the payment applies
}

describe('conversion postbacks', () => {
  it('first payment queues one postback with the URL-encoded ids; retried with backoff, each attempt recorded; later payments queue none', async () => {
    const clickID = 'clk 1&x=2/ü';
    const voluumID = 'vl+id=42#frag';
    const c = new TestClient(t.app);
    const { user } = await registerUser(c, undefined, { clickID, voluumID });
    await payWithSandbox(c);

    const rows = () =>
      t.app.db.query<{ id: number; url: string; status: string; attempts: number }>(
        'select id, url, status, attempts from conversion_postbacks where user_id = $1',
        [user.id],
      );
    const queued = await rows();
    expect(queued).toHaveLength(1);
    expect(queued[0]!.url).toBe(
      `${tracker.url}/pb?click=${encodeURIComponent(clickID)}&v=${encodeURIComponent(voluumID)}&amount=12.99`,
    );
    expect(queued[0]).toMatchObject({ status: 'pending', attempts: 0 });

    // The tracker is down once: the attempt is recorded and the postback waits for its backoff.
    answers.push(500, 200);
    expect(await sendDuePostbacks(t.app.db)).toBe(1);
    expect(tracker.requests).toHaveLength(1);
    expect(await rows()).toMatchObject([{ status: 'pending', attempts: 1 }]);
    const [{ wait }] = (await t.app.db.query<{ wait: number }>(
      'select extract(epoch from next_attempt_at - now())::float as wait from conversion_postbacks where id = $1',
      [queued[0]!.id],
    )) as [{ wait: number }];
    expect(wait).toBeGreaterThan(20);
    expect(await sendDuePostbacks(t.app.db)).toBe(0); // not due yet
    expect(tracker.requests).toHaveLength(1);

    await t.app.db.query('update conversion_postbacks set next_attempt_at = now() where id = $1', [queued[0]!.id]);
    expect(await sendDuePostbacks(t.app.db)).toBe(1);
    expect(await rows()).toMatchObject([{ status: 'sent', attempts: 2 }]);
    const attempts = await t.app.db.query<{ status_code: number | null; error: string | null }>(
      'select status_code, error from postback_attempts where postback_id = $1 order by id',
      [queued[0]!.id],
    );
    expect(attempts).toEqual([
      { status_code: 500, error: 'HTTP 500' },
      { status_code: 200, error: null },
    ]);

    // What the tracker received: the user's own ids, decoded back exactly.
    for (const r of tracker.requests) {
      expect(r.path).toBe('/pb');
      expect(Object.fromEntries(r.query)).toEqual({ click: clickID, v: voluumID, amount: '12.99' });
    }

    // A second payment is not a conversion.
    await payWithSandbox(c);
    expect(await rows()).toHaveLength(1);
    expect(await sendDuePostbacks(t.app.db)).toBe(0);
    expect(tracker.requests).toHaveLength(2);
  });

  it('a user without tracking ids still gets the template with empty values, and only once', async () => {
    const c = new TestClient(t.app);
    const { user } = await registerUser(c);
    await payWithSandbox(c);
    await payWithSandbox(c);
    const rows = await t.app.db.query<{ url: string }>('select url from conversion_postbacks where user_id = $1', [
      user.id,
    ]);
    expect(rows.map((r) => r.url)).toEqual([`${tracker.url}/pb?click=&v=&amount=12.99`]);
  });

  it('{clickID}, {cid} and {cid4} reach the postback: the ids a sign-up carried (clickID from a checkout link, cid/cid4 the analytics client ids)', async () => {
    const other = await createTestApp({
      JOBS: 'false',
      POSTBACK_URLS: `${tracker.url}/cv?click={clickID}&cid={cid}&cid4={cid4}&sum={amount}&cur={currency}`,
    });
    try {
      const c = new TestClient(other.app);
      const { user } = await registerUser(c, undefined, {
        clickID: 'clk-42',
        cid: '1234567890.1700000000',
        cid4: '1700000001',
      });
      const res = await c.post('/api/billing/createPayment', { tariffId: 3, currency: 'USD', provider: 'sandbox' });
      const sandboxId = new URL(res.json().data.redirectUrl).pathname.split('/').pop()!;
      await other.app.inject({
        method: 'POST',
        url: `/sandbox/checkout/${sandboxId}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'outcome=pay',
      });
      await other.app.settle();
      const rows = await other.app.db.query<{ url: string }>(
        'select url from conversion_postbacks where user_id = $1',
        [user.id],
      );
      expect(rows.map((r) => r.url)).toEqual([
        `${tracker.url}/cv?click=clk-42&cid=1234567890.1700000000&cid4=1700000001&sum=59.99&cur=USD`,
      ]);
    } finally {
      await other.close();
    }
  });
});
