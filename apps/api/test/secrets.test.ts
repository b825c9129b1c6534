import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_COOKIE, type NodeServices, type ServicesOverview } from '@warren/contract';
import { buildApp } from '../src/app.js';
import { browserCookie } from '../src/plugins/browser-id.js';
import { runCommand } from '../src/cli/index.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { type Database, openDatabase } from '../src/db/client.js';
import { keyIdOf } from '../src/lib/keyring.js';
import { encryptText } from '../src/lib/secrets.js';
import { newTotpSecret, totpCode } from '../src/lib/totp.js';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { SEALED_COLUMNS } from '../src/modules/secrets/index.js';
import {
  deriveStealthSecrets,
  legacyStealthKey,
  newStealthSeed,
  stealthSubHash,
} from '../src/modules/stealth/credentials.js';
import { PASSWORD, TestClient, mailTo, registerUser, uniqueEmail } from './helpers.js';

/**
 * Secret rotation (issue 22, README: Rotating secrets): data sealed under the old APP_SECRET keeps
 * working when the secret changes (customer and staff two-factor sign-in, OpenVPN files and node
 * keys), `npx warren secrets reseal` moves it under the new one (twice, and two at once, change it
 * once), and the old secret can then be dropped. A secret the data needs and the configuration
 * lacks stops the start with a message naming the setting. Several app instances in turn on ONE
 * database (PGlite in memory, or a schema on TEST_DATABASE_URL), as a restart with new settings.
 */
const OLD = 'the-old-app-secret-0123456789abcdefghijklmnop';
const NEW = 'the-new-app-secret-9876543210zyxwvutsrqponmlk';
const WRONG = 'a-wrong-old-secret-000000000000000000000000000';

let db: Database;
const pgUrl = process.env.TEST_DATABASE_URL;
const schema = pgUrl ? `t_${process.pid}_secrets_${Math.random().toString(36).slice(2, 8)}` : undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-secrets-'));

function configOf(env: Record<string, string>) {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    JOBS: 'false',
    DATA_DIR: dataDir,
    ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema! } : {}),
    ...env,
  });
}
const start = (env: Record<string, string>) => buildApp(configOf(env), { db });

beforeAll(async () => {
  db = await openDatabase(
    pgUrl
      ? { kind: 'postgres', url: pgUrl, schema }
      : { kind: 'pglite', dataDir: 'memory://', templateFile: process.env.WARREN_PGLITE_TEMPLATE },
  );
});
afterAll(async () => {
  await db?.close();
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Codes are single use (a step and every earlier one): set-up spends the previous step, the rotated
 * server the current one, the server without the old secret the next one (each within the ±1 window).
 */
let step = -1;
const code = (secret: string) => totpCode(secret, Date.now() + 30_000 * step);

async function signIn(app: FastifyInstance, email: string, secret: string) {
  return new TestClient(app).post('/api/users/login', { email, password: PASSWORD, otp: code(secret) });
}

async function run(app: FastifyInstance, ...argv: string[]) {
  const lines: string[] = [];
  const exit = await runCommand(argv, {
    db,
    config: app.services.config,
    services: async () => app.services,
    print: (l) => lines.push(l),
  });
  return { code: exit, out: lines.join('\n') };
}

describe('rotating APP_SECRET', () => {
  it('keeps data sealed under the old secret working, reseals it under the new one, and then runs without the old one', async () => {
    // --- Under the old secret: customer and staff two-factor, service credentials, the CA, a node's key.
    const app1 = await start({ APP_SECRET: OLD });
    const customer = new TestClient(app1);
    const customerEmail = uniqueEmail('rot-customer');
    await registerUser(customer, customerEmail);
    const customerSecret = (await customer.post('/api/profile/2fa/setup')).json().data.secret as string;
    expect((await customer.post('/api/profile/2fa/enable', { code: code(customerSecret) })).statusCode).toBe(200);
    const staff = new TestClient(app1);
    const staffEmail = uniqueEmail('rot-staff');
    await registerUser(staff, staffEmail);
    const staffSecret = (await staff.post('/api/profile/2fa/setup')).json().data.secret as string;
    expect((await staff.post('/api/profile/2fa/enable', { code: code(staffSecret) })).statusCode).toBe(200);
    await app1.services.staff.grantRole(staffEmail, 'admin');
    // An account sealed by the release before key ids (no prefix): opened by trying each key, then given its id at start.
    const legacy = new TestClient(app1);
    const legacyEmail = uniqueEmail('rot-legacy');
    const { user: legacyUser } = await registerUser(legacy, legacyEmail);
    const legacySecret = newTotpSecret();
    const oldTotpKey = createHash('sha256').update(`totp:${OLD}`).digest('base64');
    await db.query(`update users set totp_secret = $2, totp_enabled = true where id = $1`, [
      legacyUser.id,
      encryptText(oldTotpKey, legacySecret),
    ]);

    await addLocation(db, {
      slug: 'rot-loc',
      countryCode: 'ZZ',
      country: { en: 'Rotland', ru: 'Ротланд', zh: '轮换国' },
      city: { en: 'Keys', ru: 'Кейс', zh: '钥匙城' },
      latitude: 0,
      longitude: 0,
      premium: false,
    });
    const nodeToken = (await addNode(db, { location: 'rot-loc', name: 'rot-1', endpointHost: '198.51.100.77' })).token;
    const nodeServices = async (app: FastifyInstance) =>
      (
        await app.inject({
          method: 'GET',
          url: '/api/nodes/services',
          headers: { authorization: `Bearer ${nodeToken}` },
        })
      ).json().data as NodeServices;
    await db.query(`update users set verified = true, account_status = 'Active' where email = $1`, [customerEmail]);
    const overview = async (c: TestClient) => (await c.get('/api/setup/services/get')).json().data as ServicesOverview;
    const ovpn = async (c: TestClient) => {
      const res = await c.get('/api/setup/openvpn/config?location=rot-loc&protocol=udp');
      expect(res.statusCode, res.body).toBe(200);
      return res.body;
    };
    const knownBrowser = (app: FastifyInstance) => {
      const c = new TestClient(app);
      // Only the browser's id: the XSRF cookies signed under the old secret get a 419, which the web app answers by taking new ones.
      const name = browserCookie(false);
      c.cookies[name] = customer.cookies[name]!;
      return c;
    };
    const newSignInMails = async (app: FastifyInstance) =>
      (await mailTo(new TestClient(app), app, customerEmail)).filter((m) => /^New sign-in/.test(m.subject)).length;
    // Stealth credentials as the release before the stored stealth key left them (derived under
    // APP_SECRET itself): the first start keeps them, and no rotation changes them (customers in a
    // censored network would have to import a new subscription URL).
    const customerId = (await customer.get('/api/users/info/get')).json().data.id as number;
    await db.query(
      `update users set tariff_key = '1-month', tariff_name = '1 Month', subscription_expires_at = now() + interval '30 days' where id = $1`,
      [customerId],
    );
    const seed = newStealthSeed();
    const legacyStealth = deriveStealthSecrets(legacyStealthKey(OLD), customerId, seed);
    await db.query('insert into stealth_credentials (user_id, seed, sub_hash) values ($1, $2, $3)', [
      customerId,
      seed,
      stealthSubHash(legacyStealth.subscription),
    ]);
    const stealthUrl = async (c: TestClient) => {
      const res = await c.get('/api/setup/stealth/get');
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.subscriptionUrl as string;
    };
    const before = {
      credentials: (await overview(customer)).credentials,
      ovpn: await ovpn(customer),
      node: await nodeServices(app1),
      stealth: await stealthUrl(customer),
    };
    expect(before.stealth.endsWith(`/${legacyStealth.subscription}`)).toBe(true);
    expect(before.node.openvpn.key).toContain('PRIVATE KEY');
    await app1.close();

    // --- The new secret alone, or with a wrong old one: refused at start, naming the setting.
    for (const env of [{ APP_SECRET: NEW }, { APP_SECRET: NEW, APP_SECRET_PREVIOUS: WRONG }] as Record<
      string,
      string
    >[]) {
      const refused = await start(env).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(ConfigError);
      const message = (refused as ConfigError).message;
      expect(message).toContain('APP_SECRET_PREVIOUS');
      expect(message).toContain(`sealed under key ${keyIdOf(OLD)}`);
      expect(message).toMatch(/two-factor secrets \(users\.totp_secret\)/);
      expect(message).toMatch(/OpenVPN private keys \(openvpn_pki\.ca_key_enc\)/);
      expect(message).toContain('were sealed by an older release'); // the legacy value: no key opens it
      expect(message).not.toContain(OLD);
      expect(message).not.toContain(WRONG);
    }

    // --- Rotated: the new secret seals, the old one opens.
    const app2 = await start({ APP_SECRET: NEW, APP_SECRET_PREVIOUS: OLD });
    step++;
    // From the browser the customer signed up in (its id cookie): remembered under the old secret, still known (no "new sign-in" mail).
    expect(
      (
        await knownBrowser(app2).post('/api/users/login', {
          email: customerEmail,
          password: PASSWORD,
          otp: code(customerSecret),
        })
      ).statusCode,
    ).toBe(200);
    expect(await newSignInMails(app2)).toBe(0);
    expect((await signIn(app2, legacyEmail, legacySecret)).statusCode).toBe(200);
    const console2 = new TestClient(app2);
    const staffSignIn = await console2.post('/api/staff/session', {
      email: staffEmail,
      password: PASSWORD,
      code: code(staffSecret),
    });
    expect(staffSignIn.statusCode, staffSignIn.body).toBe(200);
    const customer2 = new TestClient(app2);
    customer2.token = customer.token;
    expect((await overview(customer2)).credentials).toEqual(before.credentials);
    expect(await ovpn(customer2)).toBe(before.ovpn);
    expect((await nodeServices(app2)).openvpn).toEqual(before.node.openvpn);
    expect(await stealthUrl(customer2)).toBe(before.stealth);
    // The legacy value got the old key's id at start (its ciphertext unchanged).
    const [tagged] = await db.query<{ totp_secret: string }>(`select totp_secret from users where id = $1`, [
      legacyUser.id,
    ]);
    expect(tagged!.totp_secret.startsWith(`${keyIdOf(OLD)}:`)).toBe(true);

    const status = await run(app2, 'secrets', 'status');
    expect(status.code).toBe(0);
    expect(status.out).toContain(`${keyIdOf(NEW)}  APP_SECRET (seals new values)`);
    expect(status.out).toContain(`${keyIdOf(OLD)}  APP_SECRET_PREVIOUS`);

    // Two reseals at once: every value written once between them; then a third finds nothing to do.
    const sealedBefore = await countNotUnder(keyIdOf(NEW));
    expect(sealedBefore).toBeGreaterThanOrEqual(8); // 3 two-factor secrets, a password, the CA key, tls-crypt, a node key, the stealth key
    const [a, b] = await Promise.all([run(app2, 'secrets', 'reseal'), run(app2, 'secrets', 'reseal')]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const resealed = (out: string) => [...out.matchAll(/: (\d+) resealed/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(resealed(a.out) + resealed(b.out)).toBe(sealedBefore);
    expect(a.out).toContain('APP_SECRET_PREVIOUS can be removed');
    const again = await run(app2, 'secrets', 'reseal');
    expect(resealed(again.out)).toBe(0);
    expect(await countNotUnder(keyIdOf(NEW))).toBe(0);
    // A reseal is not a new two-factor secret: the staff member's console session goes on.
    expect((await console2.get('/api/staff/me')).statusCode).toBe(200);
    await app2.close();

    // --- The old secret dropped: everything still works.
    const app3 = await start({ APP_SECRET: NEW });
    step++;
    expect(
      (
        await knownBrowser(app3).post('/api/users/login', {
          email: customerEmail,
          password: PASSWORD,
          otp: code(customerSecret),
        })
      ).statusCode,
    ).toBe(200);
    expect(await newSignInMails(app3)).toBe(0); // the browser was moved under the new secret at its last sign-in
    expect((await signIn(app3, legacyEmail, legacySecret)).statusCode).toBe(200);
    const console3 = new TestClient(app3);
    Object.assign(console3.cookies, { [STAFF_COOKIE]: console2.cookies[STAFF_COOKIE] });
    expect((await console3.get('/api/staff/me')).statusCode).toBe(200);
    const staff3 = await new TestClient(app3).post('/api/staff/session', {
      email: staffEmail,
      password: PASSWORD,
      code: code(staffSecret),
    });
    expect(staff3.statusCode, staff3.body).toBe(200);
    const customer3 = new TestClient(app3);
    customer3.token = customer.token;
    expect((await overview(customer3)).credentials).toEqual(before.credentials);
    expect(await ovpn(customer3)).toBe(before.ovpn);
    expect((await nodeServices(app3)).openvpn).toEqual(before.node.openvpn);
    expect(await stealthUrl(customer3)).toBe(before.stealth);
    await app3.close();
  }, 60_000);
});

/** Sealed values anywhere not under this key id. */
async function countNotUnder(id: string): Promise<number> {
  let n = 0;
  for (const col of SEALED_COLUMNS) {
    const [row] = await db.query<{ n: number }>(
      `select count(*)::int as n from ${col.table} where ${col.column} is not null and ${col.column} not like $1`,
      [`${id}:%`],
    );
    n += row!.n;
  }
  return n;
}

describe('APP_SECRET_PREVIOUS', () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig({ NODE_ENV: 'production', ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true', ...env });
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };

  it('takes several old secrets; refuses one given twice, the current one, a short one, or old ones without APP_SECRET', () => {
    expect(problemsOf({ APP_SECRET: NEW, APP_SECRET_PREVIOUS: `${OLD} ${WRONG}` })).toEqual([]);
    expect(loadConfig({ APP_SECRET: NEW, APP_SECRET_PREVIOUS: ` ${OLD}\n${WRONG} ` }).previousSecrets).toEqual([
      OLD,
      WRONG,
    ]);
    expect(problemsOf({ APP_SECRET: NEW, APP_SECRET_PREVIOUS: `${OLD} ${OLD}` })).toEqual([
      'APP_SECRET_PREVIOUS: lists the same secret twice',
    ]);
    expect(problemsOf({ APP_SECRET: NEW, APP_SECRET_PREVIOUS: NEW })).toEqual([
      'APP_SECRET_PREVIOUS: holds the current APP_SECRET: list only the secrets it replaced',
    ]);
    expect(problemsOf({ APP_SECRET: NEW, OPENVPN_CA_SECRET: OLD, APP_SECRET_PREVIOUS: OLD })).toEqual([
      'APP_SECRET_PREVIOUS: holds the current OPENVPN_CA_SECRET: list only the secrets it replaced',
    ]);
    expect(problemsOf({ APP_SECRET: NEW, APP_SECRET_PREVIOUS: 'short' })).toEqual([
      'APP_SECRET_PREVIOUS: each secret must be at least 32 characters',
    ]);
    expect(problemsOf({ APP_SECRET_PREVIOUS: OLD })).toContain(
      'APP_SECRET_PREVIOUS: needs APP_SECRET (the secret that replaced them)',
    );
  });
});
