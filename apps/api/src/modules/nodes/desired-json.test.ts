import { describe, expect, it } from 'vitest';
import type { DesiredState } from '@warren/contract';
import { desiredStateJson } from './service.js';

const state = (peers: number): DesiredState => ({
  node: { id: 1, name: 'n' },
  version: 7,
  evaluatedAt: 1000,
  nextCheckAt: null,
  full: true,
  changedOwners: [],
  peers: Array.from({ length: peers }, (_, i) => ({
    publicKey: `k${i}`,
    allowedIps: [`10.64.0.${i % 250}/32`],
    owner: i,
  })),
  serviceUsers: [],
  stealthUsers: [],
  dnsBlocking: [],
});

async function text(s: DesiredState, batch: number): Promise<{ text: string; pieces: number }> {
  let out = '';
  let pieces = 0;
  for await (const piece of desiredStateJson(s, batch)) {
    out += piece;
    pieces++;
  }
  return { text: out, pieces };
}

describe('the full state written in pieces', () => {
  it('is the same JSON as the whole answer, a batch of peers per piece', async () => {
    for (const n of [0, 1, 5, 6, 13]) {
      const s = state(n);
      const r = await text(s, 5);
      expect(JSON.parse(r.text)).toEqual({ data: s });
      expect(r.pieces).toBe(2 + Math.ceil(n / 5));
    }
  });

  it('drops what the contract does not name', async () => {
    const s = state(2) as DesiredState & { secret?: string };
    s.secret = 'x';
    (s.peers[0] as unknown as Record<string, unknown>).note = 'y';
    const parsed = JSON.parse((await text(s, 10)).text);
    expect(parsed.data.secret).toBeUndefined();
    expect(parsed.data.peers[0]).toEqual({ publicKey: 'k0', allowedIps: ['10.64.0.0/32'], owner: 0 });
  });
});
