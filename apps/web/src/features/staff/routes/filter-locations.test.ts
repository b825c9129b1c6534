import { describe, expect, it } from 'vitest';
import type { StaffLocation } from '@warren/contract';
import { filterLocations } from './NodesPage';

const loc = (
  slug: string,
  country: string,
  city: string,
  nodes: { name: string; endpointHost: string }[] = [],
): StaffLocation =>
  ({
    slug,
    countryCode: slug.slice(0, 2).toUpperCase(),
    country,
    city,
    premium: false,
    visible: true,
    enabled: true,
    nodes,
  }) as unknown as StaffLocation;

describe('nodes page filter', () => {
  const list = [
    loc('de-fra', 'Germany', 'Frankfurt', [{ name: 'de-fra-1', endpointHost: 'fra1.nodes.example.com' }]),
    loc('de-ber', 'Germany', 'Berlin'),
    loc('nl-ams', 'Netherlands', 'Amsterdam', [{ name: 'ams-edge', endpointHost: '203.0.113.7' }]),
  ];
  it('keeps every location for an empty query', () => {
    expect(filterLocations(list, '  ')).toHaveLength(3);
  });
  it('matches country, city, slug, node name and host, case-insensitively, every word', () => {
    expect(filterLocations(list, 'germany').map((l) => l.slug)).toEqual(['de-fra', 'de-ber']);
    expect(filterLocations(list, 'germany BERLIN').map((l) => l.slug)).toEqual(['de-ber']);
    expect(filterLocations(list, 'ams-edge').map((l) => l.slug)).toEqual(['nl-ams']);
    expect(filterLocations(list, '203.0.113').map((l) => l.slug)).toEqual(['nl-ams']);
    expect(filterLocations(list, 'fra1.nodes').map((l) => l.slug)).toEqual(['de-fra']);
    expect(filterLocations(list, 'tokyo')).toEqual([]);
  });
});
