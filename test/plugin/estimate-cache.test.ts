import { describe, expect, it } from 'vitest';
import { EstimateCache } from '../../src/core/estimate-cache.js';

describe('EstimateCache', () => {
  it('keeps what fits in its bytes and drops the least recently used beyond', async () => {
    const cache = new EstimateCache(64 * 1024);
    const keys = Array.from({ length: 1000 }, (_, index) => `${index}`.padEnd(400, '.'));
    for (const key of keys) cache.set(key, { estimate: { typeCost: 1, fieldCost: 2 } });
    const kept = (await Promise.all(keys.map((key) => cache.get(key)))).filter((value) => value !== undefined);
    // 400-character keys count at least 800 bytes each: no more than 80 of them fit in 64 KiB.
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(80);
    expect(await cache.get(keys[999] as string)).toEqual({ estimate: { typeCost: 1, fieldCost: 2 } });
    expect(await cache.get(keys[0] as string)).toBeUndefined();
  });

  it('counts an error by its message, and never stores one larger than the whole cache', async () => {
    const cache = new EstimateCache(32 * 1024);
    const error = {
      message: 'x'.repeat(10_000),
      code: 'BAD_USER_INPUT',
      locations: [{ line: 1, column: 9 }],
      positions: [8],
    };
    cache.set('a', { error });
    expect(await cache.get('a')).toEqual({ error });
    // Two 20 KB messages do not fit in 32 KiB together: the older one goes.
    cache.set('b', { error });
    expect(await cache.get('a')).toBeUndefined();
    expect(await cache.get('b')).toEqual({ error });
    cache.set('c', { error: { ...error, message: 'x'.repeat(20_000) } });
    expect(await cache.get('c')).toBeUndefined();
  });

  it('is off at 0 bytes', async () => {
    const cache = new EstimateCache(0);
    cache.set('a', { estimate: { typeCost: 1, fieldCost: 1 } });
    expect(cache.get('a')).toBeUndefined();
  });
});
