import { describe, expect, it } from 'vitest';
import type { DesiredPeers } from '../state.js';
import { diffPeers, diffSize, wgSetArgs } from './diff.js';
import { DumpParseError, parseDump } from './dump.js';
import { interfaceLines, renderConfig } from './render.js';

const K1 = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
const K2 = 'TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=';
const K3 = 'gN65BkIKy1eCE9pP1wdc8ROUtkHLF2PfAqYdyYBz6EA=';

describe('wg show dump parsing', () => {
  const dump = [
    [
      'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
      'HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=',
      '51820',
      'off',
    ].join('\t'),
    [K1, '(none)', '198.51.100.9:41414', '10.64.0.2/32,fd77:6172:7265::2/128', '1718000000', '1234', '5678', '25'].join(
      '\t',
    ),
    [K2, '(none)', '(none)', '(none)', '0', '0', '0', 'off'].join('\t'),
    '',
  ].join('\n');

  it('reads the interface and every peer, and drops private keys and endpoints', () => {
    const d = parseDump(dump);
    expect(d.iface).toEqual({
      publicKey: 'HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=',
      listenPort: 51820,
      fwmark: 'off',
    });
    expect(d.peers).toEqual([
      {
        publicKey: K1,
        allowedIps: ['10.64.0.2/32', 'fd77:6172:7265::2/128'],
        latestHandshake: 1718000000,
        rxBytes: 1234,
        txBytes: 5678,
        persistentKeepalive: 25,
      },
      { publicKey: K2, allowedIps: [], latestHandshake: 0, rxBytes: 0, txBytes: 0, persistentKeepalive: 0 },
    ]);
    expect(JSON.stringify(d)).not.toContain('198.51.100.9');
    expect(JSON.stringify(d)).not.toContain('yAnz5TF');
  });

  it('reads an interface with no peers, and refuses malformed lines', () => {
    expect(parseDump('(none)\t(none)\t0\toff\n')).toEqual({
      iface: { publicKey: '', listenPort: 0, fwmark: 'off' },
      peers: [],
    });
    expect(() => parseDump('')).toThrow(DumpParseError);
    expect(() => parseDump(`${dump.split('\n')[0]}\n${K1}\t(none)\n`)).toThrow(/expected 8 fields/);
    expect(() => parseDump(`${dump.split('\n')[0]}\n${K1}\t(none)\t(none)\t(none)\tsoon\t0\t0\toff\n`)).toThrow(
      /latest handshake/,
    );
  });

  it('handles large transfer counters', () => {
    const d = parseDump(`${dump.split('\n')[0]}\n${K1}\t(none)\t(none)\t10.64.0.2/32\t1\t9007199254740991\t0\toff\n`);
    expect(d.peers[0]!.rxBytes).toBe(Number.MAX_SAFE_INTEGER);
  });
});

const peers = (entries: [string, string[], number?][]): DesiredPeers =>
  new Map(entries.map(([k, ips, owner]) => [k, { allowedIps: ips, owner: owner ?? 1 }]));

describe('peer diff', () => {
  it('adds, updates and removes exactly what differs', () => {
    const from = peers([
      [K1, ['10.64.0.2/32']],
      [K2, ['10.64.0.3/32']],
    ]);
    const to = peers([
      [K2, ['10.64.0.9/32']],
      [K3, ['10.64.0.4/32', 'fd77::4/128']],
    ]);
    const d = diffPeers(from, to);
    expect(d).toEqual({
      add: [{ publicKey: K3, allowedIps: ['10.64.0.4/32', 'fd77::4/128'] }],
      update: [{ publicKey: K2, allowedIps: ['10.64.0.9/32'] }],
      remove: [K1],
    });
    expect(diffSize(d)).toBe(3);
    expect(wgSetArgs('wg0', d)).toEqual([
      'set',
      'wg0',
      'peer',
      K1,
      'remove',
      'peer',
      K2,
      'allowed-ips',
      '10.64.0.9/32',
      'peer',
      K3,
      'allowed-ips',
      '10.64.0.4/32,fd77::4/128',
    ]);
  });

  it('is empty for equal sets, whatever the order of addresses', () => {
    expect(diffSize(diffPeers(peers([[K1, ['a/32', 'b/128']]]), peers([[K1, ['b/128', 'a/32']]])))).toBe(0);
  });

  it('applying the diff to the old set gives the new one (property)', () => {
    const keys = [K1, K2, K3];
    for (let mask = 0; mask < 64; mask++) {
      const from = peers(keys.filter((_, i) => mask & (1 << i)).map((k) => [k, ['10.0.0.1/32']]));
      const to = peers(keys.filter((_, i) => mask & (1 << (i + 3))).map((k, i) => [k, [`10.0.0.${i + 1}/32`]]));
      const d = diffPeers(from, to);
      const result = new Map([...from].map(([k, v]) => [k, v.allowedIps]));
      for (const k of d.remove) result.delete(k);
      for (const p of [...d.add, ...d.update]) result.set(p.publicKey, p.allowedIps);
      expect(result).toEqual(new Map([...to].map(([k, v]) => [k, v.allowedIps])));
    }
  });
});

describe('syncconf rendering', () => {
  it('keeps the interface settings and renders the peers sorted, one section each', () => {
    const text = renderConfig(
      ['PrivateKey = x', 'ListenPort = 51820'],
      peers([
        [K2, ['10.64.0.3/32', 'fd77::3/128']],
        [K1, ['10.64.0.2/32']],
      ]),
    );
    expect(text).toBe(
      [
        '[Interface]',
        'PrivateKey = x',
        'ListenPort = 51820',
        '',
        '[Peer]',
        `PublicKey = ${K2}`,
        'AllowedIPs = 10.64.0.3/32, fd77::3/128',
        '',
        '[Peer]',
        `PublicKey = ${K1}`,
        'AllowedIPs = 10.64.0.2/32',
        '',
      ].join('\n'),
    );
  });
  it('renders an empty set as the interface alone', () => {
    expect(renderConfig([], new Map())).toBe('[Interface]\n');
  });
  it('takes key, port and fwmark from wg showconf, and no peer', () => {
    const showconf = [
      '[Interface]',
      'ListenPort = 51820',
      'FwMark = 0xca6c',
      'PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
      '',
      '[Peer]',
      `PublicKey = ${K1}`,
      'AllowedIPs = 10.64.0.2/32',
      'Endpoint = 198.51.100.1:1234',
      '',
    ].join('\n');
    expect(interfaceLines(showconf)).toEqual([
      'ListenPort = 51820',
      'FwMark = 0xca6c',
      'PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
    ]);
    expect(interfaceLines('[Interface]\n')).toEqual([]);
  });
});
