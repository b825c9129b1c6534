import { defineConfig, devices } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// E2E_PORT lets two runs share a machine (CI beside a developer's run).
const PORT = Number(process.env.E2E_PORT ?? 8181);
export const BASE_URL = `http://127.0.0.1:${PORT}`;
/** The server's key, so a test can write a cookie as the server would (billing.spec.ts: a discount window opened a day ago). */
export const E2E_APP_SECRET = 'warren-e2e-app-secret-for-browser-tests-only';
// Playwright loads this config in the runner and in each worker: make the data dir once.
const dataDir = (process.env.WARREN_E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'warren-e2e-')));

const chromium = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    // *.localhost is loopback; say so explicitly for the proxy brand host.
    '--host-resolver-rules=MAP proxy.localhost 127.0.0.1',
  ],
};

export default defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // One worker per core, at most two: the tests of a spec file run in order in one worker, two
  // files at a time against the one server. Every test makes its own accounts (or a worker's
  // own, users.ts), so two workers share no account. E2E_WORKERS overrides.
  workers: Number(process.env.E2E_WORKERS ?? Math.min(2, os.availableParallelism())),
  // One retry on CI only: a browser test that fails once under a loaded 2-core machine does not
  // stop everything from landing, and scripts/ci-summary.mjs names it FLAKY so it gets fixed.
  retries: process.env.CI ? 1 : 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/results.json' }]],
  outputDir: 'test-results/artifacts',
  use: {
    baseURL: BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromium,
  },
  projects: [
    { name: 'desktop', use: { browserName: 'chromium', viewport: { width: 1280, height: 800 } } },
    {
      // The phone runs the tests tagged @phone: every page's audit (a11y), the layouts a phone
      // changes (drawer, floating button, QR codes, iOS pages) and one walk through each product
      // flow. The rest (validation, payment outcomes, captcha, staff roles...) is the same logic
      // at another width, and ran twice for nothing: it doubled the browser suite's time.
      // E2E_ALL_ON_PHONE=1 runs everything on the phone too.
      name: 'mobile',
      grep: process.env.E2E_ALL_ON_PHONE ? undefined : /@phone/,
      use: {
        browserName: 'chromium',
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
        userAgent: devices['iPhone 13']!.userAgent,
      },
    },
  ],
  webServer: {
    // The production build (`npm run build` made it): the path an operator runs is the path tested.
    command: 'node ../apps/api/dist/server.js',
    cwd: here,
    url: `${BASE_URL}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    // Every browser test signs up from 127.0.0.1: lift the per-IP budgets a real deployment keeps.
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      APP_SECRET: E2E_APP_SECRET,
      DATA_DIR: dataDir,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      LIMIT_LOGIN_PER_IP: '10000',
      LIMIT_REGISTER_PER_IP: '10000',
      LIMIT_RESET_PER_IP: '10000',
    },
  },
});
