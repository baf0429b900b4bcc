import { describe, expect, it } from 'vitest';
import { MAX_ENTRIES_PER_OWNER, ValuesCache } from '../../src/core/values-cache.js';

const owner = {};
/** A cache whose entries are fresh objects, so that sharing one shows as identity. */
const cache = () => new ValuesCache<object>();
const make = () => ({});

describe('ValuesCache', () => {
  it('shares one entry between options objects of the same values, in any key order', () => {
    const values = cache();
    const one = values.get(owner, { defaultListSize: 10, maxNodes: 100 }, make);
    expect(values.get(owner, { maxNodes: 100, defaultListSize: 10 }, make)).toBe(one);
    expect(values.get(owner, { defaultListSize: 11, maxNodes: 100 }, make)).not.toBe(one);
    expect(values.get(owner, undefined, make)).toBe(values.get(owner, undefined, make));
    expect(values.get(owner, { introspection: 'free' }, make)).not.toBe(values.get(owner, {}, make));
    expect(values.get(owner, { nested: { a: 1, b: 2 } }, make)).toBe(
      values.get(owner, { nested: { b: 2, a: 1 } }, make),
    );
    expect(values.get({}, {}, make)).not.toBe(values.get(owner, {}, make));
  });

  it('tells functions apart by identity and long strings by content', () => {
    const values = cache();
    const sdl = 'type Query { a: Int } '.repeat(10);
    expect(values.get(owner, { supergraphSdl: sdl }, make)).toBe(values.get(owner, { supergraphSdl: `${sdl}` }, make));
    expect(values.get(owner, { supergraphSdl: `${sdl} ` }, make)).not.toBe(
      values.get(owner, { supergraphSdl: sdl }, make),
    );
    const estimator = () => 1;
    expect(values.get(owner, { estimators: [estimator] }, make)).toBe(
      values.get(owner, { estimators: [estimator] }, make),
    );
    expect(values.get(owner, { estimators: [() => 1] }, make)).not.toBe(
      values.get(owner, { estimators: [estimator] }, make),
    );
  });

  it(`keeps at most ${MAX_ENTRIES_PER_OWNER} per owner, dropping the least recently used`, () => {
    const values = cache();
    const first = values.get(owner, { defaultListSize: 0 }, make);
    for (let size = 1; size < MAX_ENTRIES_PER_OWNER; size++) values.get(owner, { defaultListSize: size }, make);
    expect(values.get(owner, { defaultListSize: 0 }, make)).toBe(first); // used again: now the newest
    values.get(owner, { defaultListSize: 100 }, make); // drops defaultListSize 1, the oldest
    expect(values.get(owner, { defaultListSize: 0 }, make)).toBe(first);
    const again = values.get(owner, { defaultListSize: 1 }, make);
    expect(values.get(owner, { defaultListSize: 1 }, make)).toBe(again);
  });
});
