import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DesiredState, NodeStealthUser } from '@warren/contract';
import { CORE_LOOPBACK, CORE_TAGS, DENIED_DESTINATIONS, renderCoreConfig, renderCoreConfigFile } from './render.js';
import { InvalidStealthUsersError, diffStealthUsers, nextStealthUsers } from './users.js';

const answer = (a: Partial<DesiredState>): DesiredState => ({
  node: { id: 1, name: 'n' },
  version: 1,
  evaluatedAt: 1000,
  nextCheckAt: null,
  full: true,
  changedOwners: [],
  peers: [],
  serviceUsers: [],
  stealthUsers: [],
  dnsBlocking: [],
  ...a,
});
const user = (owner: number, n = 0): NodeStealthUser => ({
  owner,
  id: `00000000-0000-4000-8000-${String(owner * 10 + n).padStart(12, '0')}`,
  password: `pw${String(owner).padStart(4, '0')}${n}-aaaaaaaaaaaaaaaaaaaa`,
});

const CERT = '-----BEGIN CERTIFICATE-----\nAAAA\nBBBB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nCCCC\n-----END PRIVATE KEY-----\n';

type Inbound = {
  tag: string;
  listen: string;
  port: number;
  protocol: string;
  settings: Record<string, unknown>;
  streamSettings?: Record<string, Record<string, unknown>>;
};
const inbound = (c: Record<string, unknown>, tag: string) => (c.inbounds as Inbound[]).find((i) => i.tag === tag)!;

describe('renderCoreConfig', () => {
  const c = renderCoreConfig({ listen: '0.0.0.0', port: 443, wsPath: '/Ab_9-x', certPem: CERT, keyPem: KEY });

  it('serves Trojan over TLS on the public port, with the WebSocket path falling back to VLESS and everything else to the site', () => {
    const t = inbound(c, CORE_TAGS.trojan);
    expect(t).toMatchObject({ listen: '0.0.0.0', port: 443, protocol: 'trojan', settings: { clients: [] } });
    expect(t.settings.fallbacks).toEqual([
      { path: '/Ab_9-x', dest: CORE_LOOPBACK.vless },
      { dest: CORE_LOOPBACK.site },
    ]);
    expect(t.streamSettings!.tlsSettings).toMatchObject({
      alpn: ['http/1.1'],
      certificates: [
        {
          certificate: ['-----BEGIN CERTIFICATE-----', 'AAAA', 'BBBB', '-----END CERTIFICATE-----'],
          key: ['-----BEGIN PRIVATE KEY-----', 'CCCC', '-----END PRIVATE KEY-----'],
        },
      ],
    });
    const v = inbound(c, CORE_TAGS.vless);
    expect(v).toMatchObject({
      listen: '127.0.0.1',
      port: CORE_LOOPBACK.vless,
      protocol: 'vless',
      settings: { clients: [], decryption: 'none' },
    });
    expect(v.streamSettings).toEqual({ network: 'ws', security: 'none', wsSettings: { path: '/Ab_9-x' } });
  });

  it('has no customer in it (they are added at runtime) and its API only on loopback', () => {
    expect(JSON.stringify(c)).not.toMatch(/"(id|password|email)"/);
    expect(inbound(c, CORE_TAGS.api)).toMatchObject({ listen: '127.0.0.1', protocol: 'dokodemo-door' });
    expect(c.api).toEqual({ tag: 'api', services: ['HandlerService', 'StatsService'] });
    expect(c.policy).toMatchObject({ levels: { '0': { statsUserUplink: true, statsUserDownlink: true } } });
  });

  it('keeps customers away from the node itself and logs no access', () => {
    const rules = (c.routing as { rules: { ip?: string[]; outboundTag: string; inboundTag?: string[] }[] }).rules;
    expect(rules[0]).toMatchObject({ inboundTag: ['api'], outboundTag: 'api' });
    expect(rules.find((r) => r.ip)).toEqual({ type: 'field', ip: [...DENIED_DESTINATIONS], outboundTag: 'blocked' });
    for (const a of ['127.0.0.0/8', '::1/128', '169.254.0.0/16']) expect(DENIED_DESTINATIONS).toContain(a);
    expect(c.log).toEqual({ loglevel: 'warning', access: 'none' });
  });

  // Debian's v2ray checks the file as it would load it (CI installs it; skipped where it is missing).
  const v2ray = ['/usr/bin/v2ray', '/usr/local/bin/v2ray'].find((f) => fs.existsSync(f));
  it.skipIf(!v2ray)('is a configuration v2ray accepts (v2ray -test), with a real certificate and key', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stealth-core-'));
    try {
      const testdata = (f: string) => fs.readFileSync(new URL(`./testdata/${f}`, import.meta.url), 'utf8');
      const file = path.join(dir, 'core.json');
      fs.writeFileSync(
        file,
        renderCoreConfigFile({
          listen: '127.0.0.1',
          port: 8443,
          wsPath: '/Ab_9-x',
          certPem: testdata('cert.pem'),
          keyPem: testdata('key.pem'),
        }),
      );
      expect(execFileSync(v2ray!, ['-test', '-config', file], { encoding: 'utf8' })).toContain('Configuration OK');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a path or port that would break the file', () => {
    expect(() =>
      renderCoreConfig({ listen: '0.0.0.0', port: 443, wsPath: '/a"b', certPem: CERT, keyPem: KEY }),
    ).toThrow(/WebSocket path/);
    expect(() => renderCoreConfig({ listen: '0.0.0.0', port: 0, wsPath: '/ab', certPem: CERT, keyPem: KEY })).toThrow(
      /port/,
    );
  });
});

describe('stealth users', () => {
  it('a full answer replaces everything; a delta replaces only the changed owners', () => {
    const full = nextStealthUsers(null, answer({ stealthUsers: [user(1), user(2)] }));
    expect([...full.keys()]).toEqual([1, 2]);
    const delta = nextStealthUsers(full, answer({ full: false, changedOwners: [1, 3], stealthUsers: [user(3)] }));
    expect([...delta.keys()].sort()).toEqual([2, 3]);
    expect(nextStealthUsers(delta, answer({ stealthUsers: [] })).size).toBe(0);
  });

  it('rejects a malformed answer whole', () => {
    expect(() =>
      nextStealthUsers(null, answer({ stealthUsers: [user(1), { owner: 2, id: 'not-a-uuid', password: 'x' }] })),
    ).toThrow(InvalidStealthUsersError);
  });

  it('diff: removes the gone and the rotated, adds the new and the rotated, leaves the unchanged alone', () => {
    const before = new Map([
      [1, user(1)],
      [2, user(2)],
      [3, user(3)],
    ]);
    const after = new Map([
      [1, user(1)],
      [2, user(2, 1)],
      [4, user(4)],
    ]);
    const d = diffStealthUsers(before, after);
    expect(d.remove.sort()).toEqual([2, 3]);
    expect(d.add.map((u) => u.owner).sort()).toEqual([2, 4]);
    expect(diffStealthUsers(after, after)).toEqual({ remove: [], add: [] });
  });
});
