import fs from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DesiredState } from '@warren/contract';
import type { VpnServices } from '../src/modules/nodes/index.js';
import { PASSWORD, TestClient, sharedInstance, uniqueEmail } from './helpers.js';

/**
 * Two API instances on one PostgreSQL schema (as cluster.test.ts builds them): a change made on A
 * wakes an agent's long poll parked on B through LISTEN/NOTIFY (migration 0020, nodes/area.ts),
 * not at B's next read of the change log. B reads the log only every 10 s (VPN_CHANGE_POLL_MS, the
 * most it accepts), and the test checks by B's own count that no read of the log by the clock
 * woke it: without the notification the poll answers only after that read, and the test fails.
 */
const PG_URL = process.env.TEST_DATABASE_URL;
const schema = `vpncl_${process.pid}_${randomBytes(4).toString('hex')}`;
const dataDirs: string[] = [];
let a: FastifyInstance;
let b: FastifyInstance;

const env = { APP_SECRET: 'cluster-test-secret-0123456789abcdef0123456789' };
const vpnOf = (app: FastifyInstance) => (app as unknown as { services: { vpn: VpnServices } }).services.vpn;

function wgKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

describe.skipIf(!PG_URL)(
  `VPN changes wake long polls on other instances${PG_URL ? '' : ' (skipped: needs TEST_DATABASE_URL)'}`,
  () => {
    beforeAll(async () => {
      a = await sharedInstance({ schema, dataDirs, env });
      b = await sharedInstance({ schema, dataDirs, env: { ...env, VPN_CHANGE_POLL_MS: '10000' } });
    });

    afterAll(async () => {
      await Promise.allSettled([a?.close(), b?.close()]);
      if (PG_URL) {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
      for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
    });

    it('a device added on A answers the long poll parked on B without B polling the change log', async () => {
      await vpnOf(a).admin.addLocation({
        slug: 'zz-cluster',
        countryCode: 'ZZ',
        country: { en: 'Cluster', ru: 'Cluster', zh: 'Cluster' },
        city: { en: 'Lab', ru: 'Lab', zh: 'Lab' },
        latitude: 0,
        longitude: 0,
        premium: false,
      });
      const { token: nodeToken } = await vpnOf(a).admin.addNode({
        location: 'zz-cluster',
        name: 'zz-cluster-1',
        endpointHost: '198.51.100.9',
      });
      const desired = async (app: FastifyInstance, q = '') => {
        const res = await app.inject({
          method: 'GET',
          url: `/api/nodes/desired${q}`,
          headers: { authorization: `Bearer ${nodeToken}` },
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json().data as DesiredState;
      };

      const customer = new TestClient(a);
      const reg = await customer.post(
        '/api/users/register',
        { email: uniqueEmail('vpncl'), password: PASSWORD, password_confirmation: PASSWORD },
        { remoteAddress: '198.51.100.77' },
      );
      expect(reg.statusCode, reg.body).toBe(201);
      customer.token = reg.json().data.token;
      const userId = reg.json().data.user.id as number;
      await a.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [userId]);

      const base = await desired(b);
      const watcher = vpnOf(b).watcher;
      const before = { ...watcher.wakes };
      const pending = desired(b, `?since=${base.version}&at=${base.evaluatedAt}&wait=25`);
      // Parked: B's long poll waits on its watcher (a condition, not a delay).
      await vi.waitFor(() => expect(watcher.waiting).toBe(1), { timeout: 10_000, interval: 5 });

      const key = wgKey();
      const added = await customer.post('/api/setup/wg/devices/add', { name: 'Laptop', publicKey: key });
      expect(added.statusCode, added.body).toBe(201);

      const delta = await pending;
      expect(delta.full).toBe(false);
      expect(delta.version).toBeGreaterThan(base.version);
      expect(delta.changedOwners).toEqual([userId]);
      expect(delta.peers.map((p) => p.publicKey)).toEqual([key]);
      // Woken by the notification: B never read the log by its clock meanwhile, nor was poked by itself.
      expect(watcher.wakes.notify).toBeGreaterThan(before.notify);
      expect(watcher.wakes.poll).toBe(before.poll);
      expect(watcher.wakes.poke).toBe(before.poke);
    });
  },
);
