import { describe, expect, it } from 'vitest';
import { nodeIsFull, nodePeerLimit } from '@warren/contract';
import { type LocationRoom, roomVerdict } from './room.js';

const loc = (slug: string, over: Partial<LocationRoom> = {}): LocationRoom => ({
  slug,
  premium: false,
  city_en: slug.toUpperCase(),
  country_en: 'Testland',
  serving: true,
  room: true,
  ...over,
});

describe('a node at its WireGuard limit (issue 22)', () => {
  it('is full at the high-water mark of its cap, or as soon as it refuses a peer', () => {
    expect(nodePeerLimit(65_536)).toBe(62_259); // 95 % by default
    expect(nodePeerLimit(65_536, 100)).toBe(65_536);
    expect(nodePeerLimit(1, 50)).toBe(1); // never 0: a node of 1 holds 1
    expect(nodeIsFull({ maxPeers: 65_536, peers: 62_258, refused: 0 })).toBe(false);
    expect(nodeIsFull({ maxPeers: 65_536, peers: 62_259, refused: 0 })).toBe(true);
    expect(nodeIsFull({ maxPeers: 65_536, peers: 62_000, refused: 259 })).toBe(true); // refusing: full whatever the mark
    expect(nodeIsFull({ maxPeers: 100, peers: 99, refused: 0 }, 100)).toBe(false);
    expect(nodeIsFull({ maxPeers: 100, peers: 100, refused: 0 }, 100)).toBe(true);
    expect(nodeIsFull(null)).toBe(false); // never said: an older agent, a demo node
  });
});

describe('room for a new device (issue 22)', () => {
  const list = [
    loc('de-fra'),
    loc('nl-ams', { room: false }),
    loc('us-nyc', { premium: true, room: false }),
    loc('jp-tyo', { serving: false, room: false }),
  ];

  it('takes a device that starts on a location with room; refuses one that starts on a full one, naming it', () => {
    expect(roomVerdict(list, 'free', 'de-fra')).toEqual({ ok: true });
    expect(roomVerdict(list, 'free', 'nl-ams')).toEqual({ ok: false, why: 'full', place: 'NL-AMS, Testland' });
    expect(roomVerdict(list, 'paid', 'us-nyc')).toEqual({ ok: false, why: 'full', place: 'US-NYC, Testland' });
  });

  it('a location the plan does not reach, or that does not exist, is unknown (never said to be full)', () => {
    expect(roomVerdict(list, 'free', 'us-nyc')).toEqual({ ok: false, why: 'unknown-location' });
    expect(roomVerdict(list, 'paid', 'xx-nope')).toEqual({ ok: false, why: 'unknown-location' });
  });

  it('a location serving no one (off, retiring, no node yet) is not full: the add goes ahead', () => {
    expect(roomVerdict(list, 'free', 'jp-tyo')).toEqual({ ok: true });
  });

  it('without a location: refused only when something is full and nothing the plan reaches has room', () => {
    expect(roomVerdict(list, 'free', undefined)).toEqual({ ok: true });
    const allFull = [
      loc('nl-ams', { room: false }),
      loc('us-nyc', { premium: true }),
      loc('jp-tyo', { serving: false, room: false }),
    ];
    expect(roomVerdict(allFull, 'free', undefined)).toEqual({ ok: false, why: 'full', place: null }); // the premium one with room is not the free plan's
    expect(roomVerdict(allFull, 'paid', undefined)).toEqual({ ok: true });
    expect(roomVerdict([loc('jp-tyo', { serving: false, room: false })], 'free', undefined)).toEqual({ ok: true }); // nothing serving: not a capacity matter
  });
});
