import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

// The nginx site the README's "Running in production" installs (deploy/nginx-warren.conf), run for
// real in front of a running API: Debian's nginx (CI installs nginx-light, .ci/run), a self-signed
// certificate for the example hosts, the example's ports and upstream moved to free loopback ports
// and the certificate paths to the test's. Nothing else of the file is changed. Elsewhere without
// nginx it is skipped and says so.

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const site = fs.readFileSync(path.join(repoRoot, 'deploy/nginx-warren.conf'), 'utf8');
const hasNginx = (() => {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

const run = (cmd: string, args: string[]) =>
  new Promise<{ code: number; out: string }>((resolve) =>
    execFile(cmd, args, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe.skipIf(!hasNginx && !process.env.CI)('deploy/nginx-warren.conf in front of the API', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-nginx-'));
  let t: TestApp;
  let httpPort: number;
  let httpsPort: number;
  let started = false;
  /** The client address the API saw for each request, by a marker header. */
  const seenIp = new Map<string, string>();

  beforeAll(async () => {
    expect(hasNginx, 'nginx is missing: .ci/run installs nginx-light').toBe(true);
    const registry = JSON.parse(fs.readFileSync(path.join(repoRoot, 'config/brands.json'), 'utf8')) as {
      brands: { hosts: string[] }[];
    };
    registry.brands[0]!.hosts = ['vpn.example.com'];
    registry.brands[1]!.hosts = ['proxy.example.com'];
    fs.writeFileSync(path.join(dir, 'brands.json'), JSON.stringify(registry));
    t = await createTestApp({ JOBS: 'false', BRANDS_FILE: path.join(dir, 'brands.json'), TRUST_PROXY: 'true' });
    t.app.addHook('onRequest', async (req) => {
      const marker = req.headers['x-test-marker'];
      if (typeof marker === 'string') seenIp.set(marker, req.ip);
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const apiPort = (t.app.server.address() as net.AddressInfo).port;
    [httpPort, httpsPort] = [await freePort(), await freePort()];

    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=vpn.example.com',
        '-addext',
        'subjectAltName=DNS:vpn.example.com,DNS:proxy.example.com',
        '-keyout',
        path.join(dir, 'privkey.pem'),
        '-out',
        path.join(dir, 'fullchain.pem'),
      ],
      { stdio: 'ignore' },
    );
    const ours = site
      .replaceAll('/etc/letsencrypt/live/vpn.example.com/', `${dir}/`)
      .replaceAll('http://127.0.0.1:8080', `http://127.0.0.1:${apiPort}`)
      .replace(/listen \[::\]:80\b/g, `listen [::1]:${httpPort}`)
      .replace(/listen 80\b/g, `listen 127.0.0.1:${httpPort}`)
      .replace(/listen \[::\]:443\b/g, `listen [::1]:${httpsPort}`)
      .replace(/listen 443\b/g, `listen 127.0.0.1:${httpsPort}`);
    fs.writeFileSync(path.join(dir, 'site.conf'), ours);
    fs.mkdirSync(path.join(dir, 'logs'));
    // The main file Debian's nginx.conf would be, reduced to what a test needs (its own pid, logs, temp dirs).
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      [
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/logs/error.log;`,
        'events {}',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `  ${k}_temp_path ${dir}/${k};`),
        `  include ${dir}/site.conf;`,
        '}',
        '',
      ].join('\n'),
    );
    const check = await run('nginx', ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')]);
    expect(check.out, 'nginx -t refuses the example').toMatch(/test is successful/);
    // Daemonised, nginx returns once its sockets are bound: no waiting by time.
    const start = await run('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')]);
    expect(start).toMatchObject({ code: 0 });
    started = true;
  });

  afterAll(async () => {
    if (started) await run('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-s', 'stop']);
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function over(
    tls: boolean,
    opts: { host: string; sni?: string; path?: string; headers?: Record<string, string>; json?: unknown },
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const body = opts.json === undefined ? undefined : JSON.stringify(opts.json);
      const options = {
        host: '127.0.0.1',
        port: tls ? httpsPort : httpPort,
        method: body === undefined ? 'GET' : 'POST',
        path: opts.path ?? '/api/health',
        headers: {
          host: opts.host,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        ...(tls ? { servername: opts.sni ?? opts.host, ca: fs.readFileSync(path.join(dir, 'fullchain.pem')) } : {}),
      };
      const req = (tls ? https : http).request(options, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it("serves both brands' hosts over TLS (the certificate verifies), each as its own brand", async () => {
    const vpn = await over(true, { host: 'vpn.example.com' });
    expect(vpn.status).toBe(200);
    // The brand is read from Host: the proxy brand is a restricted one (config/brands.json), where the
    // plain Keenetic profile is refused before anything else; the VPN brand asks who is calling.
    const keenetic = { path: '/api/setup/openvpn/config?location=zz&variant=keenetic' };
    expect((await over(true, { host: 'vpn.example.com', ...keenetic })).status).toBe(401);
    const onProxy = await over(true, { host: 'proxy.example.com', ...keenetic });
    expect(onProxy.status).toBe(403);
  });

  it('sends plain HTTP to HTTPS on the same host and path', async () => {
    const res = await over(false, { host: 'vpn.example.com', path: '/pricing?x=1' });
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('https://vpn.example.com/pricing?x=1');
  });

  it('never passes on another host: an unknown name gets no TLS handshake, a forged Host no answer', async () => {
    await expect(over(true, { host: 'evil.example', sni: 'evil.example' })).rejects.toThrow();
    // The right certificate name, then a Host nginx does not serve (the account-takeover shape of issue 20).
    await expect(over(true, { host: 'vpn.example.com@evil.example', sni: 'vpn.example.com' })).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    await expect(over(true, { host: 'evil.example', sni: 'vpn.example.com' })).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    await expect(over(false, { host: 'evil.example' })).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect([...seenIp.keys()]).toEqual([]);
  });

  it("gives the API the client's own address: an X-Forwarded-For the client sends is dropped", async () => {
    const res = await over(true, {
      host: 'vpn.example.com',
      headers: { 'x-forwarded-for': '203.0.113.9', 'x-test-marker': 'spoof' },
    });
    expect(res.status).toBe(200);
    expect(seenIp.get('spoof')).toBe('127.0.0.1');
  });
});
