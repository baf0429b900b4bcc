import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { AnalyzerCache, MAX_ANALYZERS_PER_SCHEMA } from '../../src/core/analyzer-cache.js';

const schema = buildSchema(`${costDirectivesTypeDefs} type Query { a: Int }`);

describe('AnalyzerCache', () => {
  it('shares one analyzer between options objects of the same values, in any key order', () => {
    const cache = new AnalyzerCache();
    const one = cache.analyzerOf(schema, { defaultListSize: 10, maxNodes: 100 });
    expect(cache.analyzerOf(schema, { maxNodes: 100, defaultListSize: 10 })).toBe(one);
    expect(cache.analyzerOf(schema, { defaultListSize: 11, maxNodes: 100 })).not.toBe(one);
    expect(cache.analyzerOf(schema, undefined)).toBe(cache.analyzerOf(schema, undefined));
    expect(cache.analyzerOf(schema, { introspection: 'free' })).not.toBe(cache.analyzerOf(schema, {}));
  });

  it('tells functions apart by identity and long strings by content', () => {
    const cache = new AnalyzerCache();
    const sdl = `${costDirectivesTypeDefs} type Query { a: Int }`;
    expect(cache.analyzerOf(schema, { supergraphSdl: sdl })).toBe(
      cache.analyzerOf(schema, { supergraphSdl: `${sdl}` }),
    );
    expect(cache.analyzerOf(schema, { supergraphSdl: `${sdl} ` })).not.toBe(
      cache.analyzerOf(schema, { supergraphSdl: sdl }),
    );
  });

  it(`keeps at most ${MAX_ANALYZERS_PER_SCHEMA} per schema, dropping the least recently used`, () => {
    const cache = new AnalyzerCache();
    const first = cache.analyzerOf(schema, { defaultListSize: 0 });
    for (let size = 1; size < MAX_ANALYZERS_PER_SCHEMA; size++) cache.analyzerOf(schema, { defaultListSize: size });
    expect(cache.analyzerOf(schema, { defaultListSize: 0 })).toBe(first); // used again: now the newest
    cache.analyzerOf(schema, { defaultListSize: 100 }); // drops defaultListSize 1, the oldest
    expect(cache.analyzerOf(schema, { defaultListSize: 0 })).toBe(first);
    const again = cache.analyzerOf(schema, { defaultListSize: 1 });
    expect(cache.analyzerOf(schema, { defaultListSize: 1 })).toBe(again);
  });
});
