import { describe, expect, it } from 'vitest';
import { createMetrics, methodLabel, sqlOperation } from './metrics.js';

describe('metric labels', () => {
  it('names a statement by its verb only, CTEs included', () => {
    expect(sqlOperation('select 1')).toBe('select');
    expect(sqlOperation('  INSERT into users (email) values ($1)')).toBe('insert');
    expect(sqlOperation('\n update users set x = 1')).toBe('update');
    expect(sqlOperation('delete from tokens where id = $1')).toBe('delete');
    expect(sqlOperation('with due as (select id from users where x > now()) update users set y = 1 from due')).toBe(
      'update',
    );
    expect(sqlOperation('with a as (select count(*) from t) select * from a')).toBe('select');
    expect(sqlOperation('begin')).toBe('other');
    expect(sqlOperation('select pg_advisory_xact_lock($1)')).toBe('select');
    expect(sqlOperation('selectx')).toBe('other');
  });

  it('keeps odd methods in one label', () => {
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('PROPFIND')).toBe('other');
    expect(methodLabel('get')).toBe('other');
  });

  it('a failing scrape-time read leaves its gauge empty instead of failing the scrape', async () => {
    let fail = false;
    const m = createMetrics({
      activeSubscriptions: async () => (fail ? Promise.reject(new Error('down')) : [{ tariff: '1-year', count: 4 }]),
    });
    expect(await m.registry.metrics()).toContain('warren_active_subscriptions{tariff="1-year"} 4');
    fail = true;
    const text = await m.registry.metrics();
    expect(text).not.toContain('warren_active_subscriptions{');
    expect(text).toContain('warren_http_requests_total');
  });
});
