import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

// The systemd unit the README's "Running in production" installs (deploy/warren-api.service): one
// systemd accepts (unknown keys, bad values and a missing program are errors of `systemd-analyze
// verify`), confined as the README says. CI installs systemd-analyze (.ci/run); elsewhere without
// it the verification is skipped and says so.

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const unitFile = path.join(repoRoot, 'deploy/warren-api.service');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-unit-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const hasAnalyze = (() => {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** `systemd-analyze verify` of a unit text, with the unit's Node at the one running this test (where the server's would be). */
function verify(text: string, name = 'warren-api.service'): Promise<string> {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text.replaceAll('/usr/bin/node', process.execPath));
  return new Promise((resolve) =>
    execFile('systemd-analyze', ['verify', file], (err, _out, stderr) =>
      resolve(`${err ? `exit ${err.code} ` : ''}${stderr}`.trim()),
    ),
  );
}

/** The unit's [Service] settings, each key with every value it was given. */
function serviceSettings(text: string): Map<string, string[]> {
  const section = text.split(/^\[Service\]$/m)[1]!.split(/^\[/m)[0]!;
  const settings = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
  }
  return settings;
}

describe('deploy/warren-api.service', () => {
  const text = fs.readFileSync(unitFile, 'utf8');

  it.skipIf(!hasAnalyze && !process.env.CI)('is a unit systemd accepts, and a broken one is not', async () => {
    expect(hasAnalyze, 'systemd-analyze is missing: .ci/run installs the systemd package').toBe(true);
    expect(await verify(text)).toBe('');
    // The check can fail: a misspelt key, a bad value and a program that is not there are each reported.
    const broken = await verify(
      text
        .replace('ProtectSystem=strict', 'ProtectSystem=strictest')
        .replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes')
        .replace('/usr/bin/node', '/usr/bin/nodejs-missing'),
      'broken.service',
    );
    expect(broken).toMatch(/protect system value/i);
    expect(broken).toMatch(/Unknown key 'NoNewPrivilege'/);
    expect(broken).toMatch(/nodejs-missing is not executable/);
  });

  it('runs the built server as its own user, confined, writing only DATA_DIR', () => {
    const s = serviceSettings(text);
    const one = (key: string) => {
      expect(s.get(key), key).toHaveLength(1);
      return s.get(key)![0]!;
    };
    expect(one('ExecStart')).toBe('/usr/bin/node /opt/warren/apps/api/dist/server.js'); // scripts/build-node.mjs writes it
    expect(one('User')).toBe('warren');
    expect(one('Environment')).toMatch(/(^| )NODE_ENV=production( |$)/);
    const dataDir = /(?:^| )DATA_DIR=(\S+)/.exec(one('Environment'))![1]!;
    expect(one('ReadWritePaths')).toBe(dataDir);
    expect(`/var/lib/${one('StateDirectory')}`).toBe(dataDir);
    expect(one('StateDirectoryMode')).toBe('0700');
    expect(one('RestartPreventExitStatus')).toBe('78'); // a refused configuration is not retried forever
    for (const [key, value] of Object.entries({
      CapabilityBoundingSet: '',
      AmbientCapabilities: '',
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      RestrictSUIDSGID: 'yes',
      RestrictNamespaces: 'yes',
      SystemCallFilter: '@system-service',
      RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6',
      UMask: '0077',
    }))
      expect(one(key), key).toBe(value);
    // The server's own graceful stop (SHUTDOWN_GRACE_MS, at its default) fits inside systemd's, with room for the
    // 5 s the process may take to start exiting. It was 20 s against a 25 s grace: systemd killed long shutdowns.
    const graceMs = loadConfig({ NODE_ENV: 'test' }).shutdown.graceMs;
    expect(Number.parseInt(one('TimeoutStopSec'), 10) * 1000).toBeGreaterThanOrEqual(graceMs + 5000);
  });
});
