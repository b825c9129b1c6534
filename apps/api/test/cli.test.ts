import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseFlags, runCli } from '../src/cli/index.js';
import { openDatabase } from '../src/db/client.js';
import { keyringOf } from '../src/lib/keyring.js';

// The CLI reads its configuration from the environment, like `npx warren` does.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-cli-'));
const saved = { ...process.env };
beforeAll(() => {
  Object.assign(process.env, { DATA_DIR: dataDir, NODE_ENV: 'test' });
  if (process.env.TEST_DATABASE_URL) {
    process.env.DATABASE_URL = process.env.TEST_DATABASE_URL;
    process.env.DATABASE_SCHEMA = `cli_${process.pid}`;
  }
});
afterAll(async () => {
  if (process.env.TEST_DATABASE_URL) {
    const db = await openDatabase({ kind: 'postgres', url: process.env.TEST_DATABASE_URL });
    await db.query(`drop schema if exists cli_${process.pid} cascade`);
    await db.close();
  }
  process.env = saved;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  const lines: string[] = [];
  const code = await runCli(args, (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}

it('parses --key value, --key=value and bare flags as the usage line declares them', () => {
  const usage = '<email> --email user@example.com --tariff 1-year [--force]';
  expect(parseFlags(['x', '--email', 'a@b.c', '--tariff=1-year', '--force'], usage)).toEqual({
    values: { email: 'a@b.c', tariff: '1-year', force: true },
    positionals: ['x'],
  });
});

it('refuses what the usage line does not declare (issue 22): misspelt or unknown flags, missing values, values for switches, extra words', () => {
  const usage = '--node de-fra-1 [--enabled true|false] [--force]';
  expect(() => parseFlags(['--node', 'n', '--enable', 'false'], usage)).toThrow(/unknown flag --enable/);
  expect(() => parseFlags(['--node'], usage)).toThrow(/--node needs a value/);
  expect(() => parseFlags(['--node', 'n', '--force=yes'], usage)).toThrow(/--force takes no value/);
  expect(() => parseFlags(['--node', 'n', 'extra'], usage)).toThrow(/unexpected argument/);
  expect(() => parseFlags(['--node', 'a', '--node', 'b'], usage)).toThrow(/more than once/);
  expect(() => parseFlags(['--asof', '2026-12-01T00:00:00Z'], '[--as-of 2026-12-01T00:00:00Z]')).toThrow(
    /unknown flag --asof/,
  );
  expect(() => parseFlags(['x'], undefined)).toThrow(/unexpected argument/);
});

it(
  'never makes a database by accident (issue 22): no server and no database is an error naming where it looked; `init` makes one, once',
  { timeout: 240_000 },
  async () => {
    const socket = path.join(dataDir, 'admin.sock');
    const refused = await cli(
      'vpn',
      'add-location',
      '--slug',
      'zz-acc',
      '--country-code',
      'NO',
      '--country',
      'Norway',
      '--city',
      'Oslo',
      '--lat',
      '59.9',
      '--lon',
      '10.7',
    );
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`no server answers on ${socket}`);
    expect(refused.out).toContain(
      process.env.DATABASE_URL
        ? `schema ${process.env.DATABASE_SCHEMA}`
        : `the embedded database in ${path.join(dataDir, 'pglite')}`,
    );
    expect(refused.out).toMatch(/Point DATA_DIR \(or ADMIN_SOCKET\) at the running server's.*`npx warren init`/);
    expect(refused.out).not.toMatch(/added/);
    if (process.env.DATABASE_URL) {
      const admin = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL });
      expect(await admin.query(`select 1 from pg_namespace where nspname = $1`, [process.env.DATABASE_SCHEMA])).toEqual(
        [],
      );
      await admin.close();
    } else {
      expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(false);
    }
    expect((await cli('init', '--force')).code).toBe(64);
    const made = await cli('init');
    expect(made.code).toBe(0);
    expect(made.out).toMatch(/^Made .* \(\d+ migrations\)/);
    expect(await cli('init')).toMatchObject({ code: 1, out: expect.stringMatching(/exists already: nothing made/) });
    expect((await cli('vpn', 'list')).code).toBe(0);

    // A database that exists but was never migrated (not Warren's): refused too. (PostgreSQL only: a
    // second embedded database would cost this file another cold PGlite start.)
    if (process.env.DATABASE_URL) {
      const admin = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL });
      const empty = `${process.env.DATABASE_SCHEMA}_empty`;
      await admin.query(`create schema ${empty}`);
      try {
        process.env.DATABASE_SCHEMA = empty;
        const refusedEmpty = await cli('staff', 'list');
        expect(refusedEmpty.code).toBe(1);
        expect(refusedEmpty.out).toContain(`schema ${empty} does not exist or has no schema`);
      } finally {
        process.env.DATABASE_SCHEMA = empty.replace(/_empty$/, '');
        await admin.query(`drop schema ${empty} cascade`);
        await admin.close();
      }
    }
  },
);

it('a misspelt flag exits 64 with the usage and changes nothing', async () => {
  expect((await cli('billing', 'sync')).code).toBe(0);
  const typo = await cli('vpn', 'set-node', '--node', 'nowhere-1', '--enable', 'false');
  expect(typo.code).toBe(64);
  expect(typo.out).toMatch(/unknown flag --enable\nUsage: npx warren vpn set-node --node/);
  const asof = await cli('billing', 'renew-due', '--asof', '2030-01-01T00:00:00Z');
  expect(asof.code).toBe(64);
  expect(asof.out).not.toMatch(/Renewal pass/);
  expect((await cli('billing', 'renew-due', '--as-of')).code).toBe(64);
  expect((await cli('billing', 'show', 'a@example.com', 'b@example.com')).code).toBe(64);
});

it('syncs the catalogue, grants a plan and refunds it', { timeout: 180_000 }, async () => {
  expect((await cli('billing', 'sync')).out).toMatch(/6 tariffs/);
  // An unknown customer is "not found" (1), not a usage error (64): the command was used rightly.
  const nobody = await cli('billing', 'grant', '--email', 'nobody@example.com', '--tariff', '1-year');
  expect(nobody).toEqual({ code: 1, out: 'Error: no user with email nobody@example.com' });
  expect((await cli('billing', 'show', 'nobody@example.com')).code).toBe(1);
  expect((await cli('billing', 'grant', '--tariff', '1-year')).code).toBe(64);
  const spec = process.env.DATABASE_URL
    ? ({ kind: 'postgres', url: process.env.DATABASE_URL, schema: process.env.DATABASE_SCHEMA } as const)
    : ({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') } as const);
  const db = await openDatabase(spec);
  await db.query(
    `insert into users (email, password_hash, brand, verified, account_status) values ('cli@example.com', 'x', 'warren-vpn', true, 'Active')`,
  );
  await db.close();
  const granted = await cli('billing', 'grant', '--email', 'cli@example.com', '--tariff', '1-year');
  expect(granted.code).toBe(0);
  const paymentId = /\((grant_[a-f0-9]+)\)/.exec(granted.out)![1]!;
  expect((await cli('billing', 'payments', '--email', 'cli@example.com')).out).toContain('succeeded');
  const refunded = await cli('billing', 'refund', '--payment', paymentId);
  expect(refunded.code).toBe(0);
  expect((await cli('billing', 'payments', '--email', 'cli@example.com')).out).toContain('refunded');
});

it(
  'grants, lists and revokes staff roles on the database directly; each grant and revoke is audited as the operator',
  { timeout: 180_000 },
  async () => {
    const spec = process.env.DATABASE_URL
      ? ({ kind: 'postgres', url: process.env.DATABASE_URL, schema: process.env.DATABASE_SCHEMA } as const)
      : ({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') } as const);
    let db = await openDatabase(spec);
    await db.query(
      `insert into users (email, password_hash, brand, verified, account_status, marketing_emails) values ('staff-cli@example.com', 'x', 'warren-vpn', true, 'Active', false)`,
    );
    await db.close();
    expect((await cli('staff', 'grant', 'staff-cli@example.com')).code).toBe(64); // --role is required
    expect((await cli('staff', 'grant', 'staff-cli@example.com', '--role', 'root')).code).toBe(64);
    expect((await cli('staff', 'grant', 'nobody@example.com', '--role', 'admin')).code).toBe(64);
    const granted = await cli('staff', 'grant', 'Staff-CLI@example.com', '--role', 'support');
    expect(granted.code).toBe(0);
    expect(granted.out).toMatch(/staff-cli@example.com is support/);
    expect(granted.out).toMatch(/Two-factor sign-in is off/);
    expect((await cli('staff', 'grant', 'staff-cli@example.com', '--role', 'admin')).out).toMatch(
      /is admin \(was support/,
    );
    expect((await cli('staff', 'list')).out).toMatch(/staff-cli@example.com\s+admin/);
    expect((await cli('staff', 'revoke', 'staff-cli@example.com')).out).toMatch(/no staff role any more/);
    expect((await cli('staff', 'revoke', 'staff-cli@example.com')).out).toMatch(/had no staff role/);
    expect((await cli('staff', 'list')).out).toMatch(/No staff accounts/);
    db = await openDatabase(spec);
    const audit = await db.query<{ actor: string; action: string; detail: Record<string, unknown> }>(
      `select actor, action, detail from staff_audit order by id`,
    );
    await db.close();
    expect(audit.map((a) => [a.actor, a.action, a.detail.role])).toEqual([
      ['operator (CLI)', 'role-grant', 'support'],
      ['operator (CLI)', 'role-grant', 'admin'],
      ['operator (CLI)', 'role-revoke', 'admin'],
    ]);
  },
);

it(
  'turns the affiliate-portal flag on and off (issue 23: only SQL could), audited as the operator; bad words and unknown accounts are usage errors',
  { timeout: 180_000 },
  async () => {
    const spec = process.env.DATABASE_URL
      ? ({ kind: 'postgres', url: process.env.DATABASE_URL, schema: process.env.DATABASE_SCHEMA } as const)
      : ({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') } as const);
    let db = await openDatabase(spec);
    await db.query(
      `insert into users (email, password_hash, brand, verified, account_status, marketing_emails) values ('partner-cli@example.com', 'x', 'warren-vpn', true, 'Active', false)`,
    );
    await db.close();
    const flag = async () => {
      const d = await openDatabase(spec);
      const [row] = await d.query<{ on: boolean }>(
        `select is_post_affiliate_available as on from users where email = 'partner-cli@example.com'`,
      );
      await d.close();
      return row!.on;
    };
    expect((await cli('affiliate', 'portal', 'partner-cli@example.com')).code).toBe(64);
    expect((await cli('affiliate', 'portal', 'partner-cli@example.com', 'yes')).code).toBe(64);
    expect((await cli('affiliate', 'portal', 'partner-cli@example.com', 'on', 'extra')).code).toBe(64);
    expect((await cli('affiliate', 'portal', 'not-an-email', 'on')).code).toBe(64);
    const unknown = await cli('affiliate', 'portal', 'nobody@example.com', 'on');
    expect(unknown.code).toBe(64);
    expect(unknown.out).toMatch(/No account with the email nobody@example.com/);
    expect(await flag()).toBe(false);
    const on = await cli('affiliate', 'portal', 'Partner-CLI@example.com', 'on');
    expect(on.code).toBe(0);
    expect(on.out).toMatch(/partner-cli@example.com: affiliate portal on\./);
    expect(await flag()).toBe(true);
    expect((await cli('affiliate', 'portal', 'partner-cli@example.com', 'on')).out).toMatch(/it already was/);
    expect((await cli('affiliate', 'portal', 'partner-cli@example.com', 'off')).code).toBe(0);
    expect(await flag()).toBe(false);
    db = await openDatabase(spec);
    // The log names the account by number (pseudonymous, as every customer action is), never its email.
    const audit = await db.query<{ actor: string; target: string; mine: boolean; detail: Record<string, unknown> }>(
      `select a.actor, a.target, a.target_user_id = u.id as mine, a.detail from staff_audit a, users u where a.action = 'affiliate-portal' and u.email = 'partner-cli@example.com' order by a.id`,
    );
    await db.close();
    expect(audit.map((a) => [a.actor, a.mine, a.target, a.detail.enabled, a.detail.previous])).toEqual([
      ['operator (CLI)', true, '', true, false],
      ['operator (CLI)', true, '', true, true],
      ['operator (CLI)', true, '', false, true],
    ]);
  },
);

it(
  'announces marketing mail with a working one-click unsubscribe, only to opted-in verified users',
  { timeout: 180_000 },
  async () => {
    const spec = process.env.DATABASE_URL
      ? ({ kind: 'postgres', url: process.env.DATABASE_URL, schema: process.env.DATABASE_SCHEMA } as const)
      : ({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') } as const);
    let db = await openDatabase(spec);
    await db.query(`insert into users (email, password_hash, brand, verified, account_status, marketing_emails) values
    ('news@example.com', 'x', 'warren-vpn', true, 'Active', true),
    ('optout@example.com', 'x', 'warren-vpn', true, 'Active', false),
    ('unverified@example.com', 'x', 'warren-vpn', false, 'Inactive', true)`);
    await db.close();
    const textFile = path.join(dataDir, 'news.txt');
    fs.writeFileSync(textFile, 'New locations in Tokyo and Oslo.');
    const res = await cli('mail', 'announce', '--subject', 'Warren news', '--text-file', textFile);
    // cli@example.com (from the test above) and news@example.com; never the opted-out or the unverified one.
    expect(res.out).toContain('to 2 subscriber');
    const outbox = path.join(dataDir, 'outbox');
    const mails = fs.readdirSync(outbox).map(
      (f) =>
        JSON.parse(fs.readFileSync(path.join(outbox, f), 'utf8')) as {
          to: string;
          subject: string;
          text: string;
          headers?: Record<string, string>;
        },
    );
    const news = mails.filter((m) => m.subject === 'Warren news' && m.to === 'news@example.com');
    expect(
      mails
        .filter((m) => m.subject === 'Warren news')
        .map((m) => m.to)
        .sort(),
    ).toEqual(['cli@example.com', 'news@example.com']);
    expect(news[0]!.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const link = /<(http[^>]+)>/.exec(news[0]!.headers!['List-Unsubscribe']!)![1]!;
    expect(news[0]!.text).toContain(link);
    // The link works without signing in (the same signed-link check the server runs on POST /unsubscribe).
    db = await openDatabase(spec);
    const { profileService } = await import('../src/modules/profile/service.js');
    const { loadConfig } = await import('../src/config.js');
    const profiles = profileService({
      db,
      keys: keyringOf(loadConfig()),
      mailer: { send: async () => {}, close() {} },
      limiter: {} as never,
      defer: () => {},
      productName: () => '',
    });
    const url = new URL(link);
    expect(await profiles.unsubscribeBySignature(Number(url.searchParams.get('u')), url.searchParams.get('sig')!)).toBe(
      true,
    );
    const [row] = await db.query<{ marketing_emails: boolean }>(
      `select marketing_emails from users where email = 'news@example.com'`,
    );
    expect(row?.marketing_emails).toBe(false);
    await db.close();
  },
);

it('prints usage for --help at every level and exits 0; unknown words exit 64', async () => {
  const top = await cli('--help');
  expect(top.code).toBe(0);
  expect(top.out).toMatch(/Usage: npx warren/);
  const group = await cli('billing', '--help');
  expect(group.code).toBe(0);
  expect(group.out).toMatch(/grant/);
  const command = await cli('billing', 'grant', '--help');
  expect(command).toMatchObject({ code: 0 });
  expect(command.out).toMatch(/Usage: npx warren billing grant --email/);
  expect((await cli('vpn', 'add-node', '-h')).code).toBe(0);
  expect((await cli('nope')).code).toBe(64);
  expect((await cli('billing', 'nope')).code).toBe(64);
  // Names are looked up as own keys only.
  expect((await cli('billing', 'constructor')).code).toBe(64);
  expect((await cli('__proto__')).code).toBe(64);
});
