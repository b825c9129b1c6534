import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AdminChannel, startAdminChannel } from '../src/admin/channel.js';
import { buildApp } from '../src/app.js';
import { runOnServer, withAbsolutePaths } from '../src/cli/remote.js';
import { type Config, loadConfig } from '../src/config.js';
import { PASSWORD, TestClient, registerUser, subscriptionOf, uniqueEmail } from './helpers.js';

/**
 * `npx warren …` while the server runs (README: Operating Warren). A real server on the embedded
 * database's default (PGlite in DATA_DIR, which only one process may open; or PostgreSQL with
 * TEST_DATABASE_URL) listens on HTTP and on its admin channel; the CLI runs as a separate process
 * and its commands run inside the server, visible through the HTTP API at once, with no request
 * refused meanwhile. Without the operator credential nothing runs. When no server runs, the CLI
 * opens the database itself and says so.
 */
const apiDir = path.resolve(import.meta.dirname, '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-opchan-'));
const pgUrl = process.env.TEST_DATABASE_URL;
const schema = `opchan_${process.pid}`;
const env: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  DATA_DIR: dataDir,
  JOBS: 'false',
  ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
};
let config: Config;
let app: FastifyInstance;
let admin: AdminChannel | undefined;
let origin: string;

beforeAll(async () => {
  config = loadConfig(env);
  app = await buildApp(config);
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
  admin = await startAdminChannel(app.services, config.admin!, app.log);
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await app?.close();
  if (pgUrl) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** `npx warren …` as a separate process, as an operator runs it. */
function cli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return cliWith(env, ...args);
}

function cliWith(
  processEnv: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: apiDir,
      env: { PATH: process.env.PATH ?? '', ...processEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.once('error', reject);
    p.once('exit', (code) => resolve({ code, out, err }));
  });
}

/** One raw request on the admin socket; the replies as parsed lines. */
function rawRequest(line: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const s = net.connect(config.admin!.socket);
    let buf = '';
    s.on('data', (c: Buffer) => (buf += c.toString()));
    s.once('error', reject);
    s.once('close', () =>
      resolve(
        buf
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      ),
    );
    s.write(`${line}\n`);
  });
}

/** Real HTTP requests, one after another, while `during` runs: every answer must be a 200. */
async function servedThroughout<T>(during: Promise<T>): Promise<{ result: T; statuses: number[] }> {
  const statuses: number[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) statuses.push((await fetch(`${origin}/api/health`)).status);
  })();
  try {
    return { result: await during, statuses };
  } finally {
    stop = true;
    await loop;
  }
}

it('makes the socket and the credential file for the operator only', () => {
  expect(admin).toBeDefined();
  expect(fs.statSync(config.admin!.socket).isSocket()).toBe(true);
  expect(fs.statSync(config.admin!.socket).mode & 0o777).toBe(0o600);
  expect(fs.statSync(config.admin!.tokenFile).mode & 0o777).toBe(0o600);
  expect(fs.readFileSync(config.admin!.tokenFile, 'utf8').trim().length).toBeGreaterThanOrEqual(32);
});

it('opens no second channel on a live socket, and none with a credential file others may read', async () => {
  const logged: string[] = [];
  const log = {
    info: () => {},
    warn: (_o: object, m: string) => logged.push(m),
    error: (_o: object, m: string) => logged.push(m),
  };
  // Another server already answers on this socket: this one serves without a channel, and the live one keeps working.
  expect(await startAdminChannel(app.services, config.admin!, log)).toBeUndefined();
  expect(logged.at(-1)).toMatch(/another server answers/);
  expect(fs.statSync(config.admin!.socket).isSocket()).toBe(true);
  // A token file readable by the group: refused, as ssh refuses a readable key.
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-opchan-mode-'));
  try {
    fs.writeFileSync(path.join(other, 'admin.token'), `${'x'.repeat(43)}\n`, { mode: 0o640 });
    expect(
      await startAdminChannel(
        app.services,
        { socket: path.join(other, 'admin.sock'), tokenFile: path.join(other, 'admin.token') },
        log,
      ),
    ).toBeUndefined();
    expect(logged.at(-1)).toMatch(/credential file is unusable/);
    expect(fs.existsSync(path.join(other, 'admin.sock'))).toBe(false);
  } finally {
    fs.rmSync(other, { recursive: true, force: true });
  }
});

it(
  'grants, refunds, adds a location and a node through the running server; the API shows each at once and serves meanwhile',
  { timeout: 180_000 },
  async () => {
    const customer = new TestClient(app);
    const email = uniqueEmail('opchan');
    await registerUser(customer, email);
    expect((await subscriptionOf(customer)).expiresAt).toBeNull();

    const { result: granted, statuses } = await servedThroughout(
      cli('billing', 'grant', '--email', email, '--tariff', '1-year'),
    );
    expect(granted.err).toContain(`running on the server through ${config.admin!.socket}`);
    expect(granted.code).toBe(0);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const plan = await subscriptionOf(customer);
    expect(plan.expiresAt).not.toBeNull();
    expect(new Date(plan.expiresAt!).getTime()).toBeGreaterThan(Date.now() + 300 * 86_400_000);

    const paymentId = /\((grant_[a-f0-9]+)\)/.exec(granted.out)![1]!;
    const refunded = await cli('billing', 'refund', '--payment', paymentId);
    expect(refunded.code).toBe(0);
    expect((await subscriptionOf(customer)).expiresAt).toBeNull();

    const location = await cli(
      'vpn',
      'add-location',
      '--slug',
      'zz-opc',
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
    expect(location.code).toBe(0);
    const node = await cli('vpn', 'add-node', '--location', 'zz-opc', '--name', 'zz-opc-1', '--endpoint', '192.0.2.77');
    expect(node.code).toBe(0);
    const token = node.out.split('\n')[1]!.trim();
    // The node exists for the node API at once: its token authenticates.
    const desired = await fetch(`${origin}/api/nodes/desired`, { headers: { authorization: `Bearer ${token}` } });
    expect(desired.status).toBe(200);
    expect(
      (await fetch(`${origin}/api/nodes/desired`, { headers: { authorization: 'Bearer not-a-node-token' } })).status,
    ).toBe(401);

    // A usage error comes back as the same exit code and message as on the database directly.
    const bad = await cli('vpn', 'add-node', '--location', 'zz-opc', '--name', 'zz-opc-1', '--endpoint', '192.0.2.77');
    expect(bad.code).toBe(64);
    expect(bad.out).toMatch(/^Error: /m);
  },
);

it(
  'grants, lists and revokes a staff role through the running server; the console sees it at once',
  { timeout: 180_000 },
  async () => {
    const member = new TestClient(app);
    const email = uniqueEmail('opchan-staff');
    await registerUser(member, email);
    const granted = await cli('staff', 'grant', email, '--role', 'admin');
    expect(granted.err).toContain(`running on the server through ${config.admin!.socket}`);
    expect(granted.code).toBe(0);
    expect((await cli('staff', 'list')).out).toContain(email);
    // The console knows the role at once: the right password gets the two-factor message, not the generic refusal.
    const browser = new TestClient(app);
    const signIn = await browser.post('/api/staff/session', { email, password: PASSWORD, code: '123456' });
    expect(signIn.statusCode).toBe(403);
    expect((await cli('staff', 'revoke', email)).code).toBe(0);
    const after = await browser.post('/api/staff/session', { email, password: PASSWORD, code: '123456' });
    expect(after.statusCode).toBe(422);
    // A customer target is kept by id only (the email is not written into the audit: issue 20, deletion).
    const audit = await app.db.query<{ actor: string; action: string }>(
      `select actor, action from staff_audit where target_user_id = (select id from users where lower(email) = lower($1)) and action like 'role-%' order by id`,
      [email],
    );
    expect(audit).toEqual([
      { actor: 'operator (CLI)', action: 'role-grant' },
      { actor: 'operator (CLI)', action: 'role-revoke' },
    ]);
  },
);

it(
  'refuses a request without the operator credential, or with a customer bearer token; nothing runs',
  { timeout: 180_000 },
  async () => {
    const customer = new TestClient(app);
    const email = uniqueEmail('opchan-x');
    await registerUser(customer, email);
    const grant = ['billing', 'grant', '--email', email, '--tariff', '1-year'];
    expect(await rawRequest(JSON.stringify({ v: 1, argv: grant }))).toEqual([
      { exit: 77, error: expect.stringMatching(/refused/) },
    ]);
    expect(await rawRequest(JSON.stringify({ v: 1, token: customer.token, argv: grant }))).toEqual([
      { exit: 77, error: expect.stringMatching(/refused/) },
    ]);
    expect(await rawRequest(JSON.stringify({ v: 1, token: '', argv: grant }))).toEqual([
      { exit: 77, error: expect.stringMatching(/refused/) },
    ]);
    expect(await rawRequest('not json')).toEqual([{ exit: 77, error: expect.stringMatching(/refused/) }]);
    expect(await rawRequest('null')).toEqual([{ exit: 77, error: expect.stringMatching(/refused/) }]);
    // The right credential with a malformed command list: a protocol error, nothing runs.
    const token = fs.readFileSync(config.admin!.tokenFile, 'utf8').trim();
    expect(await rawRequest(JSON.stringify({ v: 1, token, argv: [1, 2] }))).toEqual([
      { exit: 76, error: expect.any(String) },
    ]);
    expect(await rawRequest(JSON.stringify({ v: 2, token, argv: grant }))).toEqual([
      { exit: 76, error: expect.any(String) },
    ]);

    // The CLI itself holding a customer's token instead of the operator credential: refused, and it does not fall back.
    fs.writeFileSync(config.admin!.tokenFile, `${customer.token}\n`);
    try {
      const refused = await cli(...grant);
      expect(refused.code).toBe(77);
      expect(refused.out).toMatch(/refused/);
      expect(refused.err).not.toMatch(/opening the database/);
    } finally {
      fs.writeFileSync(config.admin!.tokenFile, `${token}\n`);
    }
    expect((await subscriptionOf(customer)).expiresAt).toBeNull();
    // And the real credential runs it.
    const ok = await rawRequest(JSON.stringify({ v: 1, token, argv: grant }));
    expect(ok.at(-1)).toEqual({ exit: 0 });
    expect((await subscriptionOf(customer)).expiresAt).not.toBeNull();
  },
);

it(
  "reaches the running server with only its DATA_DIR: the operator's shell needs none of the server's settings or secrets",
  { timeout: 60_000 },
  async () => {
    // NODE_ENV=production without APP_SECRET (and without the database settings) would not pass the
    // server's configuration check: the CLI does not need it to talk to a server that has one.
    const listed = await cliWith({ DATA_DIR: dataDir, NODE_ENV: 'production' }, 'vpn', 'list');
    expect(listed.err).toContain('running on the server through');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('zz-opc-1');
  },
);

it('answers --help on the CLI side with exit 0, server or not', { timeout: 60_000 }, async () => {
  const help = await cli('billing', 'refund', '--help');
  expect(help.code).toBe(0);
  expect(help.out).toContain('Usage: npx warren billing refund');
  expect(help.err).toBe('');
});

it("resolves file flags against the operator's directory, not the server's", () => {
  expect(
    withAbsolutePaths(
      ['mail', 'announce', '--text-file', 'news.txt', '--subject', 'x', '--file=c.json', '--email', 'a.txt'],
      '/home/op',
    ),
  ).toEqual([
    'mail',
    'announce',
    '--text-file',
    '/home/op/news.txt',
    '--subject',
    'x',
    '--file=/home/op/c.json',
    '--email',
    'a.txt',
  ]);
});

it('opens the database directly when no server runs, and says so', { timeout: 180_000 }, async () => {
  await admin!.close();
  await app.close();
  expect(fs.existsSync(config.admin!.socket)).toBe(false);
  const listed = await cli('vpn', 'list');
  expect(listed.err).toContain('no server answers');
  expect(listed.err).toContain('opening the database directly');
  expect(listed.code).toBe(0);
  expect(listed.out).toContain('zz-opc-1');
  // Restart for afterAll's close (and to show the data dir is free again).
  app = await buildApp(config);
  admin = undefined;
});

// chown needs root (CI and this machine run as root).
it.skipIf(process.getuid?.() !== 0)(
  'gives the operator credential to no socket another user could have made: owner, mode and directory are checked before anything is sent (SKIPPED unless root: needs chown)',
  { timeout: 60_000 },
  async () => {
    // A socket at the admin path that records what it is sent, as a local user's fake would.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-fake-admin-'));
    const socketPath = path.join(dir, 'admin.sock');
    const tokenFile = path.join(dir, 'admin.token');
    fs.writeFileSync(tokenFile, 'the-operator-credential-0123456789abcdef\n', { mode: 0o600 });
    let received = '';
    const fake = net.createServer((conn) => {
      conn.on('data', (c: Buffer) => {
        received += c.toString();
        conn.end(`${JSON.stringify({ exit: 0 })}\n`);
      });
    });
    await new Promise<void>((resolve) => fake.listen(socketPath, resolve));
    const run = () =>
      runOnServer(
        { socket: socketPath, tokenFile },
        ['billing', 'prices'],
        () => {},
        () => {},
      );
    try {
      const cases: [string, () => void, RegExp][] = [
        ['owned by another user', () => fs.chownSync(socketPath, 65534, 65534), /belongs to uid 65534/],
        [
          'writable by others',
          () => (fs.chownSync(socketPath, process.getuid!(), process.getgid!()), fs.chmodSync(socketPath, 0o666)),
          /may be written by its group or others/,
        ],
        [
          'in a directory others may write to',
          () => (fs.chmodSync(socketPath, 0o600), fs.chmodSync(dir, 0o777)),
          /warren-fake-admin-.* may be written by its group or others/,
        ],
        [
          'in a directory of another user',
          () => (fs.chmodSync(dir, 0o700), fs.chownSync(dir, 65534, 65534)),
          /belongs to uid 65534/,
        ],
      ];
      for (const [what, arrange, message] of cases) {
        arrange();
        await expect(run(), what).rejects.toThrow(message);
        expect(received, `${what}: nothing may be sent`).toBe('');
      }
      // A link to the socket is not the socket.
      fs.chownSync(dir, process.getuid!(), process.getgid!());
      const link = path.join(dir, 'link.sock');
      fs.symlinkSync(socketPath, link);
      await expect(
        runOnServer(
          { socket: link, tokenFile },
          ['billing', 'prices'],
          () => {},
          () => {},
        ),
      ).rejects.toThrow(/symbolic link/);
      expect(received).toBe('');
      // The operator's own socket, 0600 in a directory of theirs: the request goes (the checks are not simply refusing everything).
      expect(await run()).toBe(0);
      expect(received).toContain('the-operator-credential-0123456789abcdef');
    } finally {
      await new Promise<void>((resolve) => fake.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

it('opens no channel in a directory others may write to', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-open-admin-'));
  fs.chmodSync(dir, 0o777);
  const errors: string[] = [];
  const log = { info: () => {}, warn: () => {}, error: (_o: object, msg: string) => void errors.push(msg) };
  try {
    const channel = await startAdminChannel(
      app.services,
      { socket: path.join(dir, 'admin.sock'), tokenFile: path.join(dataDir, 'admin.token') },
      log,
    );
    expect(channel).toBeUndefined();
    expect(errors.join('\n')).toMatch(/its directory is not the server user's alone/);
    expect(fs.existsSync(path.join(dir, 'admin.sock'))).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
