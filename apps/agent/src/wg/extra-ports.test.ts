import { describe, expect, it } from 'vitest';
import { extraPortsChecker, redirectedPorts } from './extra-ports.js';

/** What nft 1.0.6 printed (`nft -j list chain inet warren wg-ports`) for the chain setup/render.ts writes. */
const META = { metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } };
const CHAIN = {
  chain: {
    family: 'inet',
    table: 'warren',
    name: 'wg-ports',
    handle: 2,
    type: 'nat',
    hook: 'prerouting',
    prio: -100,
    policy: 'accept',
  },
};
const rule = (dport: unknown, redirect: number, iif: unknown = { set: ['wg0', 'wovpn-tcp', 'wovpn-udp'] }) => ({
  rule: {
    family: 'inet',
    table: 'warren',
    chain: 'wg-ports',
    handle: 6,
    expr: [
      { match: { op: '!=', left: { meta: { key: 'iifname' } }, right: iif } },
      { match: { op: '==', left: { fib: { result: 'type', flags: ['daddr'] } }, right: 'local' } },
      { match: { op: '==', left: { payload: { protocol: 'udp', field: 'dport' } }, right: dport } },
      { redirect: { port: redirect } },
    ],
  },
});
const doc = (...items: unknown[]) => JSON.stringify({ nftables: [META, ...items] });

describe('the extra WireGuard ports the agent reports (issue 23)', () => {
  it('reads the ports of the redirect to the listen port, a set or a single one (as nft prints them)', () => {
    expect(redirectedPorts(doc(CHAIN, rule({ set: [53, 443] }, 51820)), 51820, 'wg0')).toEqual([53, 443]);
    expect(redirectedPorts(doc(CHAIN, rule(443, 51820, 'wg0')), 51820, 'wg0')).toEqual([443]);
  });

  it('reports none when the rule points at another port than the interface listens on (a --port change not loaded)', () => {
    expect(redirectedPorts(doc(CHAIN, rule({ set: [53, 443] }, 51820)), 51821, 'wg0')).toEqual([]);
  });

  it('reports none for a rule that would also take the tunnel’s own traffic (its resolver on port 53)', () => {
    expect(redirectedPorts(doc(CHAIN, rule({ set: [53, 443] }, 51820, 'eth0')), 51820, 'wg0')).toEqual([]);
    expect(redirectedPorts(doc(CHAIN, rule({ set: [53] }, 51820, { set: ['wg1'] })), 51820, 'wg0')).toEqual([]);
  });

  it('reports none without the chain, with a chain of another hook, or for output it cannot read', () => {
    expect(redirectedPorts(doc(), 51820, 'wg0')).toEqual([]);
    expect(redirectedPorts(doc(rule({ set: [53] }, 51820)), 51820, 'wg0')).toEqual([]);
    const filter = { chain: { ...CHAIN.chain, type: 'filter', hook: 'input' } };
    expect(redirectedPorts(doc(filter, rule({ set: [53] }, 51820)), 51820, 'wg0')).toEqual([]);
    expect(redirectedPorts('Error: No such file or directory', 51820, 'wg0')).toEqual([]);
    expect(redirectedPorts('{"nftables": 3}', 51820, 'wg0')).toEqual([]);
  });

  it('leaves out port ranges and the listen port itself', () => {
    const range = { set: [{ range: [1000, 2000] }, 443] };
    expect(redirectedPorts(doc(CHAIN, rule(range, 51820)), 51820, 'wg0')).toEqual([]);
    expect(redirectedPorts(doc(CHAIN, rule({ set: [443, 51820] }, 51820)), 51820, 'wg0')).toEqual([443]);
  });

  it('reports of the configured ports those in place; none configured asks nft nothing', async () => {
    let asked = 0;
    const list = async () => {
      asked++;
      return doc(CHAIN, rule({ set: [53, 443, 4500] }, 51820));
    };
    expect(await extraPortsChecker([443, 8443], 'wg0', list)(51820)).toEqual([443]);
    expect(asked).toBe(1);
    expect(await extraPortsChecker([], 'wg0', list)(51820)).toEqual([]);
    expect(asked).toBe(1);
  });
});
