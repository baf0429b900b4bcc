import fc from 'fast-check';
import { parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { estimateCacheKey } from '../../src/core/estimate-cache.js';

function operation(source: string): OperationDefinitionNode {
  return parse(source).definitions[0] as OperationDefinitionNode;
}

const TWO = operation('query ($a: Int, $__proto__: Int) { x }').variableDefinitions ?? [];

describe('estimateCacheKey', () => {
  it('tells apart any two values of a declared variable, whatever its name', () => {
    const json = fc.jsonValue();
    fc.assert(
      fc.property(fc.constantFrom('a', '__proto__'), json, json, (name, one, two) => {
        fc.pre(JSON.stringify(one) !== JSON.stringify(two));
        const of = (value: unknown) =>
          estimateCacheKey(0, 'h', null, TWO, JSON.parse(`{${JSON.stringify(name)}: ${JSON.stringify(value)}}`));
        expect(of(one)).not.toBe(of(two));
      }),
      { numRuns: 300 },
    );
  });

  it('keys an absent variable apart from an explicit null, and ignores what the operation does not declare', () => {
    const absent = estimateCacheKey(0, 'h', 'Op', TWO, {});
    expect(estimateCacheKey(0, 'h', 'Op', TWO, { a: null })).not.toBe(absent);
    expect(estimateCacheKey(0, 'h', 'Op', TWO, JSON.parse('{"junk": 1, "constructor": 2}'))).toBe(absent);
    expect(estimateCacheKey(0, 'h', 'Op', TWO, null)).toBe(absent);
  });

  it('keys by document, operation name and the variables that price in declaration order', () => {
    const key = estimateCacheKey(0, 'h', 'Op', TWO, JSON.parse('{"__proto__": 2, "a": 1}'));
    expect(key).toBe('0\u0000h\u0000Op\u0000=1\u0000=2');
    expect(estimateCacheKey(0, 'h', 'Op', TWO, JSON.parse('{"a": 1, "__proto__": 2}'))).toBe(key);
    expect(estimateCacheKey(0, 'g', 'Op', TWO, JSON.parse('{"a": 1, "__proto__": 2}'))).not.toBe(key);
    expect(estimateCacheKey(0, 'h', 'Other', TWO, JSON.parse('{"a": 1, "__proto__": 2}'))).not.toBe(key);
    expect(estimateCacheKey(0, 'h', null, [], { a: 1 })).toBe('0\u0000h\u0000');
  });

  it('leaves out what is not JSON data, or too long to be a key', () => {
    expect(estimateCacheKey(0, 'h', null, TWO, { a: 1n })).toBeUndefined();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(estimateCacheKey(0, 'h', null, TWO, { a: cycle })).toBeUndefined();
    expect(estimateCacheKey(0, 'h', null, TWO, { a: 'x'.repeat(3000) })).toBeUndefined();
    expect(estimateCacheKey(0, 'h', null, TWO, { a: 'x'.repeat(1000) })).toBeDefined();
  });

  it('gives up a long value as soon as the key passes its limit, reading no further', () => {
    let read = 0;
    const huge = new Proxy(
      Array.from({ length: 1_000_000 }, () => 'item'),
      {
        get(target, property, receiver) {
          if (typeof property === 'string' && /^\d+$/.test(property)) read += 1;
          return Reflect.get(target, property, receiver);
        },
      },
    );
    expect(estimateCacheKey(0, 'h', null, TWO, { a: huge })).toBeUndefined();
    expect(read).toBeLessThan(400);
  });
});
