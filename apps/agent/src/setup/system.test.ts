import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORTED_KEY_FILE } from '../wg/reported-key.js';
import { type SetupOptions, parseSetupArgs } from './options.js';
import { plan } from './plan.js';
import { observe } from './system.js';

/** What setup looks at before it would make a key (issue 22): other interfaces' key files and the key the API accepted. Read only: no tool runs (they are /bin/false). */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-setup-observe-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const wgKey = () =>
  generateKeyPairSync('x25519').privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64');
const NO_TOOLS = { tools: { ip: '/bin/false', wg: '/bin/false' }, kernelWireguard: false, systemd: false };

describe('setup observes the keys a node already has', () => {
  it("finds another interface's key file and the reported key, and the plan refuses to make a new key", async () => {
    const etcDir = path.join(root, 'etc');
    const stateDir = path.join(root, 'state');
    fs.mkdirSync(etcDir);
    fs.mkdirSync(stateDir);
    fs.writeFileSync(path.join(etcDir, 'wg0.key'), `${wgKey()}\n`, { mode: 0o600 });
    fs.writeFileSync(
      path.join(etcDir, 'stealth.key'),
      '-----BEGIN PRIVATE KEY-----\nnot a wireguard key\n-----END PRIVATE KEY-----\n',
    );
    const reported = 'TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=';
    fs.writeFileSync(path.join(stateDir, REPORTED_KEY_FILE), `${reported}\n`);
    const o = parseSetupArgs([
      '--api',
      'https://api.example.com',
      '--services',
      'none',
      '--interface',
      'wg1',
      '--etc-dir',
      etcDir,
      '--state-dir',
      stateDir,
    ]) as SetupOptions;
    const obs = await observe(o, NO_TOOLS);
    expect(obs.key).toBeUndefined();
    expect(obs.otherKeys).toEqual([
      { iface: 'wg0', path: path.join(etcDir, 'wg0.key'), publicKey: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/) },
    ]);
    expect(obs.reportedKey).toEqual({ publicKey: reported, path: path.join(stateDir, REPORTED_KEY_FILE) });
    expect(() => plan(o, obs, ['/usr/bin/node', 'agent.mjs'])).toThrow(
      /this node's WireGuard key is .*wg0\.key \(interface wg0/,
    );
  });
});
