import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Route } from '@playwright/test';

/**
 * A captcha provider for the browser tests: Cloudflare Turnstile cannot be reached from here, so
 * both of its halves are stood in for.
 *
 * - The siteverify endpoint is a local HTTP server that answers like the real one
 *   (https://developers.cloudflare.com/turnstile/get-started/server-side-validation/): a form
 *   POST of secret, response and remoteip; `{ success: true, challenge_ts, hostname }` for a
 *   token it issued, seen for the first time, under the right secret; otherwise
 *   `{ success: false, error-codes }` with the provider's codes (invalid-input-secret,
 *   invalid-input-response, timeout-or-duplicate: tokens are single use).
 * - The widget is a TEST DOUBLE of the provider's script (api.js), served at the provider's own
 *   address through the browser's request routing, so the app loads exactly the URL it loads in
 *   production and the page's CSP is the production one. Like Turnstile's managed mode it
 *   renders an iframe from the provider's origin that solves itself; the iframe's page is made
 *   here, with a token this fake issued, and hands it to the page with postMessage. reset()
 *   loads the iframe again: a new token.
 */
export class FakeTurnstile {
  readonly secret = `e2e-turnstile-secret-${randomBytes(8).toString('hex')}`;
  readonly siteKey = '0x4AAAAAAAe2eSiteKeyDouble';
  /** Tokens handed to the page, and those the server has already redeemed. */
  readonly issued = new Set<string>();
  readonly redeemed = new Set<string>();
  /** Every siteverify call, in order: the token, and whether it was accepted. */
  readonly verifications: { response: string; success: boolean; codes: string[] }[] = [];
  /** While true, siteverify answers 503 (the provider down). */
  down = false;
  private server: http.Server | null = null;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        if (this.down) return res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
        const form = new URLSearchParams(body);
        const response = form.get('response') ?? '';
        const codes: string[] = [];
        if (req.method !== 'POST' || req.url !== '/siteverify') codes.push('bad-request');
        if (form.get('secret') !== this.secret) codes.push('invalid-input-secret');
        if (!response) codes.push('missing-input-response');
        else if (!this.issued.has(response)) codes.push('invalid-input-response');
        else if (this.redeemed.has(response)) codes.push('timeout-or-duplicate');
        const success = codes.length === 0;
        if (success) this.redeemed.add(response);
        this.verifications.push({ response, success, codes });
        const answer = success
          ? { success, challenge_ts: new Date().toISOString(), hostname: '127.0.0.1', 'error-codes': [] }
          : { success, 'error-codes': codes };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/siteverify`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Serves the widget double at the provider's addresses in this browser context. */
  async serveWidget(context: BrowserContext): Promise<void> {
    await context.route('https://challenges.cloudflare.com/**', (route) => this.answer(route));
  }

  private answer(route: Route) {
    const url = new URL(route.request().url());
    if (url.pathname === '/turnstile/v0/api.js')
      return route.fulfill({ status: 200, contentType: 'text/javascript', body: WIDGET_SCRIPT });
    if (url.pathname === '/double/frame') {
      const widget = url.searchParams.get('widget') ?? '';
      const ok = url.searchParams.get('sitekey') === this.siteKey;
      const token = ok ? `turnstile-double.${randomBytes(24).toString('base64url')}` : null;
      if (token) this.issued.add(token);
      return route.fulfill({ status: 200, contentType: 'text/html', body: frameHtml(widget, token) });
    }
    return route.fulfill({ status: 404, body: 'not part of the double' });
  }
}

/** The double of https://challenges.cloudflare.com/turnstile/v0/api.js: render, reset, remove. */
const WIDGET_SCRIPT = `(() => {
  const ORIGIN = 'https://challenges.cloudflare.com';
  const widgets = new Map();
  let next = 0;
  const load = (id) => {
    const w = widgets.get(id);
    w.loads += 1;
    w.iframe.src = ORIGIN + '/double/frame?widget=' + id + '&sitekey=' + encodeURIComponent(w.opts.sitekey) + '&n=' + w.loads;
  };
  window.addEventListener('message', (e) => {
    if (e.origin !== ORIGIN || !e.data || e.data.double !== 'turnstile') return;
    const w = widgets.get(e.data.widget);
    if (!w) return;
    if (e.data.token) w.opts.callback && w.opts.callback(e.data.token);
    else w.opts['error-callback'] && w.opts['error-callback']('110100');
  });
  window.turnstile = {
    render(el, opts) {
      const id = 'cf-double-' + (++next);
      const iframe = document.createElement('iframe');
      iframe.title = 'Widget containing a Cloudflare security challenge';
      iframe.style.cssText = 'border:0;width:100%;max-width:400px;height:65px;display:block;color-scheme:normal';
      (typeof el === 'string' ? document.querySelector(el) : el).appendChild(iframe);
      widgets.set(id, { iframe, opts, loads: 0 });
      load(id);
      return id;
    },
    reset(id) { if (widgets.has(id)) load(id); },
    remove(id) { const w = widgets.get(id); if (w) { w.iframe.remove(); widgets.delete(id); } },
    getResponse() { return undefined; },
  };
})();`;

function frameHtml(widget: string, token: string | null): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>
  :root { color-scheme: light dark; }
  body { margin: 0; font: 14px system-ui, sans-serif; }
  .box { box-sizing: border-box; height: 65px; display: flex; align-items: center; gap: 10px; padding: 0 14px; border: 1px solid #d0d0d0; border-radius: 4px; background: Canvas; color: CanvasText; }
  .ok { color: #1a7f37; font-weight: 700; } .err { color: #c62828; font-weight: 700; } small { margin-left: auto; opacity: .6; }
  </style></head><body><div class="box">${token ? '<span class="ok">&#10003;</span> Success!' : '<span class="err">!</span> Error'}<small>captcha test double</small></div>
  <script>parent.postMessage(${JSON.stringify({ double: 'turnstile', widget, token })}, '*');</script></body></html>`;
}

/** A second Warren server (the production build) with this captcha configured, on its own port and data dir. */
export class CaptchaServer {
  private child: ChildProcess | null = null;
  private dataDir = '';
  baseURL = '';
  stderr = '';

  async start(env: Record<string, string>): Promise<void> {
    const port = await freePort();
    this.baseURL = `http://127.0.0.1:${port}`;
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-e2e-captcha-'));
    const e2eDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
    this.child = spawn(process.execPath, ['../apps/api/dist/server.js'], {
      cwd: e2eDir,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: this.dataDir,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        APP_SECRET: 'warren-e2e-captcha-app-secret-for-browser-tests',
        LIMIT_LOGIN_PER_IP: '10000',
        LIMIT_REGISTER_PER_IP: '10000',
        LIMIT_RESET_PER_IP: '10000',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
    const exited = new Promise<never>((_, reject) =>
      this.child!.once('exit', (code) => reject(new Error(`the captcha server exited (${code}): ${this.stderr}`))),
    );
    // Ready when its health check answers (the same wait as playwright.config's webServer).
    const ready = (async () => {
      for (const end = Date.now() + 60_000; Date.now() < end;) {
        const ok = await fetch(`${this.baseURL}/api/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`the captcha server did not answer within 60 s: ${this.stderr}`);
    })();
    exited.catch(() => undefined); // stop() ends it on purpose
    await Promise.race([ready, exited]);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    if (this.dataDir) fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = http.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
