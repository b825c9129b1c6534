import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadLocationSeeds } from './catalogue.js';
import { countryPosition } from './country-positions.js';
import { type Candidate, distanceKm, effectiveKm, recommendedLocation } from './recommend.js';

const at = (
  slug: string,
  latitude: number,
  longitude: number,
  load: number | null = 10,
  available = true,
): Candidate => ({ slug, latitude, longitude, load, available });
const sydney = at('au-syd', -33.9, 151.2);
const frankfurt = at('de-fra', 50.1, 8.7);
const amsterdam = at('nl-ams', 52.4, 4.9);
const newYork = at('us-nyc', 40.7, -74.0);
const tokyo = at('jp-tyo', 35.7, 139.7);

describe('distanceKm', () => {
  it('measures great circles', () => {
    expect(distanceKm(frankfurt, amsterdam)).toBeGreaterThan(350);
    expect(distanceKm(frankfurt, amsterdam)).toBeLessThan(380);
    expect(distanceKm(newYork, frankfurt)).toBeGreaterThan(6100);
    expect(distanceKm(newYork, frankfurt)).toBeLessThan(6300);
    expect(distanceKm(tokyo, tokyo)).toBe(0);
  });
  it('is symmetric and never more than half the circumference', () => {
    const pos = fc.record({
      latitude: fc.double({ min: -90, max: 90, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
    });
    fc.assert(
      fc.property(pos, pos, (a, b) => {
        const d = distanceKm(a, b);
        return Math.abs(d - distanceKm(b, a)) < 1e-6 && d >= 0 && d <= Math.PI * 6371 + 1e-6;
      }),
    );
  });
});

describe('recommendedLocation', () => {
  const all = [sydney, frankfurt, amsterdam, newYork, tokyo];

  it('picks the nearest location to the customer, not the first in the list', () => {
    expect(recommendedLocation(countryPosition('DE'), all)?.slug).toBe('de-fra');
    expect(recommendedLocation(countryPosition('NL'), all)?.slug).toBe('nl-ams');
    expect(recommendedLocation(countryPosition('CA'), all)?.slug).toBe('us-nyc');
    expect(recommendedLocation(countryPosition('KR'), all)?.slug).toBe('jp-tyo');
    expect(recommendedLocation(countryPosition('NZ'), all)?.slug).toBe('au-syd');
  });

  it('keeps a moderately busy neighbour but leaves a nearly full one for a farther quiet one', () => {
    const busy = (load: number | null) => [
      { ...frankfurt, load },
      { ...amsterdam, load: 10 },
    ];
    expect(recommendedLocation(countryPosition('DE'), busy(50))?.slug).toBe('de-fra');
    expect(recommendedLocation(countryPosition('DE'), busy(90))?.slug).toBe('nl-ams');
    // No node online (load unknown) counts as full.
    expect(recommendedLocation(countryPosition('DE'), busy(null))?.slug).toBe('nl-ams');
  });

  it('never recommends a location the customer cannot use', () => {
    const locked = [{ ...frankfurt, available: false }, sydney];
    expect(recommendedLocation(countryPosition('DE'), locked)?.slug).toBe('au-syd');
    expect(recommendedLocation(countryPosition('DE'), [{ ...frankfurt, available: false }])).toBeNull();
    expect(recommendedLocation(countryPosition('DE'), [])).toBeNull();
  });

  it('makes no recommendation for an unknown country', () => {
    expect(countryPosition('ZZ')).toBeNull();
    expect(recommendedLocation(countryPosition('ZZ'), all)).toBeNull();
  });

  it('is the minimum of the effective distance over the available ones, whatever the order', () => {
    const cand = fc.record({
      slug: fc.stringMatching(/^[a-z]{2}-[a-z]{3}$/),
      latitude: fc.double({ min: -80, max: 80, noNaN: true }),
      longitude: fc.double({ min: -179, max: 179, noNaN: true }),
      load: fc.option(fc.integer({ min: 0, max: 100 })),
      available: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.constantFrom('DE', 'US', 'BR', 'JP', 'ZA'), fc.array(cand, { maxLength: 12 }), (country, list) => {
        const me = countryPosition(country)!;
        const pick = recommendedLocation(me, list);
        const usable = list.filter((c) => c.available);
        if (!usable.length) return pick === null;
        const min = Math.min(...usable.map((c) => effectiveKm(me, c)));
        return (
          pick !== null &&
          pick.available &&
          effectiveKm(me, pick) === min &&
          recommendedLocation(me, [...list].reverse())?.slug === pick.slug
        );
      }),
    );
  });
});

describe('countryPosition', () => {
  it('knows the countries of every seeded location and the largest markets, in range', () => {
    const seeded = loadLocationSeeds(
      fileURLToPath(new URL('../../../../../config/locations.json', import.meta.url)),
    ).locations.map((l) => l.countryCode);
    expect(seeded.length).toBeGreaterThan(10);
    for (const code of [...seeded, 'RU', 'CN', 'BR', 'IN', 'ZA']) {
      const p = countryPosition(code)!;
      expect(p, code).not.toBeNull();
      expect(Math.abs(p.latitude)).toBeLessThanOrEqual(90);
      expect(Math.abs(p.longitude)).toBeLessThanOrEqual(180);
    }
  });
});
