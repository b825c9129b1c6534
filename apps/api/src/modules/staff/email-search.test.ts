import { describe, expect, it } from 'vitest';
import { containsPattern, rarestTrigrams, trigramCounts, trigramsOf } from './email-search.js';

describe('trigramsOf', () => {
  it('takes three letters or digits in a row, lowered, once each', () => {
    expect(trigramsOf('OmeR1037')).toEqual(['ome', 'mer', 'er1', 'r10', '103', '037']);
    expect(trigramsOf('a.b@cd.efg')).toEqual(['efg']);
    expect(trigramsOf('aaaa')).toEqual(['aaa']);
  });
  it('has none for a query without three word characters in a row (or with non-ASCII ones)', () => {
    expect(trigramsOf('ab')).toEqual([]);
    expect(trigramsOf('%_@.')).toEqual([]);
    expect(trigramsOf('ñañ')).toEqual([]);
  });
});

describe('rarestTrigrams', () => {
  const sample = trigramCounts([
    'customer1@scale.invalid',
    'customer2@scale.invalid',
    'customer1037@scale.invalid',
    'anna@gmail.com',
  ]);

  it('leaves out the trigrams most addresses share', () => {
    const picked = rarestTrigrams('customer1037@scale.invalid', sample);
    expect(picked).toHaveLength(2);
    for (const t of picked) expect(['r10', '103', '037']).toContain(t);
  });
  it('prefers the later trigram among equally rare ones', () => {
    expect(rarestTrigrams('zzzyyy', sample)).toEqual(['yyy', 'zyy']);
  });
  it('gives what there is when q has fewer trigrams, and nothing for none', () => {
    expect(rarestTrigrams('gmail', sample, 5).sort()).toEqual(['ail', 'gma', 'mai']);
    expect(rarestTrigrams('ab', sample)).toEqual([]);
  });
  it('works without a sample (a new, empty database)', () => {
    expect(rarestTrigrams('anna@x', new Map())).toEqual(['nna', 'ann']);
  });
});

describe('trigramCounts', () => {
  it('counts an address once per trigram it holds, across its words', () => {
    const counts = trigramCounts(['aaaa@bbb.com', 'xaaa@com.de']);
    expect(counts.get('aaa')).toBe(2);
    expect(counts.get('com')).toBe(2);
    expect(counts.get('bbb')).toBe(1);
    expect(counts.has('a@b')).toBe(false);
  });
});

describe('containsPattern', () => {
  it('escapes LIKE wildcards', () => {
    expect(containsPattern('a_b%c\\')).toBe('%a\\_b\\%c\\\\%');
  });
});
