import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateCacheKey, stableStringify } from '../../src/plugin/estimate-cache.js';

describe('estimateCacheKey', () => {
  it('serializes variables with sorted keys, whatever their order or shape', () => {
    const scalar = fc.oneof(
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    const value = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 3 }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 5 }), (variables) => {
        expect(estimateCacheKey('h', 'Op', variables)).toBe(`h\u0000Op\u0000${stableStringify(variables)}`);
        const reversed = Object.fromEntries(Object.entries(variables).reverse());
        expect(estimateCacheKey('h', 'Op', reversed)).toBe(estimateCacheKey('h', 'Op', variables));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps scalars apart that JSON writes differently and leaves out what it cannot serialize', () => {
    expect(estimateCacheKey('h', null, { a: 1, b: 'x', c: null, d: true })).toBe(
      'h\u0000\u0000{"a":1,"b":"x","c":null,"d":true}',
    );
    expect(estimateCacheKey('h', null, { b: 1, a: 2 })).toBe('h\u0000\u0000{"a":2,"b":1}');
    expect(estimateCacheKey('h', null, { a: 1n })).toBeUndefined();
    expect(estimateCacheKey('h', null, {})).toBe('h\u0000\u0000{}');
    expect(estimateCacheKey('h', null, null)).toBe('h\u0000\u0000');
  });
});
