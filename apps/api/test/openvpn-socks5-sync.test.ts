import type { DesiredState, NodeServiceUser, ServicesOverview } from '@warren/contract';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { checkVerifier } from '../src/modules/openvpn-socks5/credentials.js';
import { SYNC_WAIT_MS } from '../src/modules/nodes/service.js';
import { createTestApp, customerOnPlan, type TestApp } from './helpers.js';

/**
 * New OpenVPN/SOCKS5 credentials reach the nodes before the API shows them (issue 15): the API
 * wakes the nodes' long polls and answers once every enabled node that reported lately has applied
 * the change (its next long poll names that version), or after SYNC_WAIT_MS when a node does not
 * (down, failing): a client that connects at once with the shown password is not refused.
 */
let t: TestApp;
let stop = false;
let agentLoop: Promise<void> | undefined;
let loopError: unknown;
/** Everything the simulated agent received, in order. */
const received: NodeServiceUser[] = [];

const desired = async (token: string, q: Record<string, number>) => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/nodes/desired',
    query: Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])),
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as DesiredState;
};
const report = (token: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/nodes/report',
    headers: { authorization: `Bearer ${token}` },
    payload: { load: 5, activePeers: 0, peers: [] },
  });

beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
  // Only our nodes count as reporting: the seeded demo nodes never report.
  await t.app.services.vpn.admin.addLocation({
    slug: 'zz-sync',
    countryCode: 'NO',
    country: { en: 'Norway', ru: 'Norway', zh: 'Norway' },
    city: { en: 'Oslo', ru: 'Oslo', zh: 'Oslo' },
    latitude: 59.9,
    longitude: 10.7,
    premium: false,
    dashVisible: true,
  });
  const { token } = await t.app.services.vpn.admin.addNode({
    location: 'zz-sync',
    name: 'zz-sync-1',
    endpointHost: '198.51.100.61',
    listenPort: 51820,
  });
  expect((await report(token)).statusCode).toBe(200);
  // The agent's loop as apps/agent does it: a full state, then long polls naming the version it applied.
  const first = await desired(token, {});
  let since = first.version;
  let at = first.evaluatedAt;
  agentLoop = (async () => {
    while (!stop) {
      let d: DesiredState;
      try {
        d = await desired(token, { since, at, wait: 20 });
      } catch (err) {
        // The app closing under a waiting long poll (afterAll) ends the loop; anything else is a failure.
        if (stop) return;
        throw err;
      }
      received.push(...d.serviceUsers);
      since = d.version;
      at = d.evaluatedAt;
    }
  })();
  // Handled from the start, so a failure is reported by the tests (loopError), never as an unhandled rejection.
  agentLoop.catch((err: unknown) => {
    loopError = err;
  });
});
afterEach(() => {
  expect(loopError).toBeUndefined();
});
afterAll(async () => {
  stop = true;
  await t?.close(); // releases the waiting long poll
  await agentLoop?.catch(() => {});
  expect(loopError).toBeUndefined();
});

const paidCustomer = async () => {
  const { c, id } = await customerOnPlan(t.app, 'paid');
  return { c, id };
};
const lastFor = (owner: number) => received.filter((u) => u.owner === owner).at(-1);

it(
  'shows new credentials only once the reporting node has them, and a reset only once the node has the new password',
  { timeout: 60_000 },
  async () => {
    const { c, id } = await paidCustomer();
    const started = Date.now();
    const res = await c.get('/api/setup/services/get');
    expect(res.statusCode).toBe(200);
    const { credentials } = (res.json() as { data: ServicesOverview }).data;
    // At the moment the API answers, the node already holds a verifier for exactly this password.
    const atAnswer = lastFor(id);
    expect(atAnswer?.username).toBe(credentials.username);
    expect(await checkVerifier(atAnswer!.verifier, credentials.password)).toBe(true);
    expect(Date.now() - started).toBeLessThan(SYNC_WAIT_MS);

    const reset = await c.post('/api/setup/services/credentials/reset');
    expect(reset.statusCode, reset.body).toBe(200);
    const fresh = (reset.json() as { data: { username: string; password: string } }).data;
    expect(fresh.password).not.toBe(credentials.password);
    const afterReset = lastFor(id)!;
    expect(await checkVerifier(afterReset.verifier, fresh.password)).toBe(true);
    expect(await checkVerifier(afterReset.verifier, credentials.password)).toBe(false);
  },
);

it(
  'does not hold the customer longer than the bound when a reporting node does not apply',
  { timeout: 60_000 },
  async () => {
    const { token } = await t.app.services.vpn.admin.addNode({
      location: 'zz-sync',
      name: 'zz-sync-stuck',
      endpointHost: '198.51.100.62',
      listenPort: 51820,
    });
    expect((await report(token)).statusCode).toBe(200); // it reports, but never polls: it applies nothing
    const { c, id } = await paidCustomer();
    const started = Date.now();
    const res = await c.get('/api/setup/services/get');
    const elapsed = Date.now() - started;
    expect(res.statusCode).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(SYNC_WAIT_MS);
    expect(elapsed).toBeLessThan(SYNC_WAIT_MS + 5000);
    // The node that does poll has it all the same.
    const { credentials } = (res.json() as { data: ServicesOverview }).data;
    expect(await checkVerifier(lastFor(id)!.verifier, credentials.password)).toBe(true);
    await t.app.services.vpn.admin.setNode('zz-sync-stuck', { enabled: false });
  },
);
