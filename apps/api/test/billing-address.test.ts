import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient, createTestApp, mailTo, registerUser, type TestApp } from './helpers.js';
import { pdfText } from './pdf-text.js';

/**
 * The billing address and VAT number (issue 23): kept on the account, validated by format (no
 * VIES check is possible here), printed on the PDF receipt and the receipt mail, and a receipt
 * already issued keeps what it showed after the address changes.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
});
afterAll(async () => {
  await t?.close();
});

async function member() {
  const c = new TestClient(t.app);
  const { user } = await registerUser(c);
  await t.app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [user.id]);
  return { c, user: user as { id: number; email: string } };
}
async function buy(c: TestClient) {
  const res = await c.post('/api/billing/createPayment', { tariffId: 2, currency: 'EUR', provider: 'sandbox' });
  expect(res.statusCode, res.body).toBe(200);
  const id = new URL(res.json().data.redirectUrl).pathname.split('/').pop();
  await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${id}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'outcome=pay',
  });
  await t.app.settle();
  return res.json().data.paymentId as string;
}
const receiptText = async (c: TestClient, payment: string) => {
  const res = await c.get(`/api/billing/payments/${payment}/receipt`);
  expect(res.statusCode).toBe(200);
  return (await pdfText(res.rawPayload)).replace(/\s+/g, ' ');
};
const address = {
  name: 'Acme Widgets GmbH',
  line1: 'Hauptstraße 1',
  line2: '3. OG',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
  vatNumber: 'de 123 456 789',
};

describe('billing address and VAT number', () => {
  it('is refused with field messages for bad input, changing nothing', async () => {
    const { c } = await member();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...address, country: 'XX' }, 'country'],
      [{ ...address, country: 'de' }, 'country'],
      [{ ...address, vatNumber: 'DE12345' }, 'vatNumber'],
      [{ ...address, vatNumber: 'FR12345678901' }, 'vatNumber'],
      [{ ...address, name: '' }, 'name'],
      [{ ...address, line1: 'x'.repeat(201) }, 'line1'],
      [{ ...address, city: 'Ber\u0000lin' }, 'city'],
      [{ ...address, postalCode: '<script>' }, 'postalCode'],
    ];
    for (const [body, field] of cases) {
      const res = await c.post('/api/billing/address', body);
      expect(res.statusCode, res.body).toBe(422);
      expect(Object.keys(res.json().errors ?? {})).toContain(field);
    }
    expect((await c.post('/api/billing/address', 'not json')).statusCode).toBeLessThan(500);
    expect((await c.get('/api/billing/address')).json().data).toEqual({ address: null });
    expect((await new TestClient(t.app).get('/api/billing/address')).statusCode).toBe(401);
  });

  it('is printed on the receipt and its mail; an issued receipt keeps what it showed after a change', async () => {
    const { c, user } = await member();
    const saved = await c.post('/api/billing/address', address);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data.address).toMatchObject({ vatNumber: 'DE123456789', country: 'DE', line2: '3. OG' });
    // Another member sees only their own (none).
    const other = await member();
    expect((await other.c.get('/api/billing/address')).json().data.address).toBeNull();

    const first = await buy(c);
    let text = await receiptText(c, first);
    expect(text).toContain('Acme Widgets GmbH');
    expect(text).toContain('Hauptstraße 1');
    expect(text).toContain('10115 Berlin');
    expect(text).toContain('Germany');
    expect(text).toContain('DE123456789');
    const mail = (await mailTo(c, t.app, user.email)).find((m) => m.subject.includes('receipt'))!;
    expect(mail.text).toContain(
      'Billed to: Acme Widgets GmbH, Hauptstraße 1, 3. OG, 10115 Berlin, DE. VAT: DE123456789.',
    );

    // Edited: the receipt issued before keeps the old address; the next one shows the new.
    const edited = await c.post('/api/billing/address', {
      ...address,
      name: 'Acme Holding BV',
      line1: 'Damrak 1',
      line2: '',
      city: 'Amsterdam',
      postalCode: '1012 LG',
      country: 'NL',
      vatNumber: 'NL123456789B01',
    });
    expect(edited.statusCode, edited.body).toBe(200);
    text = await receiptText(c, first);
    expect(text).toContain('Acme Widgets GmbH');
    expect(text).not.toContain('Acme Holding BV');
    const second = await buy(c);
    text = await receiptText(c, second);
    expect(text).toContain('Acme Holding BV');
    expect(text).toContain('NL123456789B01');
    expect(text).toContain('Netherlands');

    // Removed: the next receipts name the email only.
    const removed = await c.post('/api/billing/address/remove', {});
    expect(removed.json().data).toEqual({ address: null });
    expect((await c.get('/api/billing/address')).json().data).toEqual({ address: null });
  });
});
