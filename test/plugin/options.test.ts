import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { QueryBudgetOptions } from '../../src/apollo/query-budget-plugin.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';

const identify = (): string => 'caller';

/** Builds the plugin with options the types would refuse. */
function build(options: Record<string, unknown>): unknown {
  return queryBudgetPlugin(options as unknown as QueryBudgetOptions);
}

describe('option validation at construction', () => {
  it.each([
    [{}, TypeError, /`identify`/],
    [{ identify: 'user-id' }, TypeError, /`identify` must be a function/],
    [{ identify, policy: { capacity: 0, refillPerSecond: 1 } }, RangeError, /`policy`\.capacity/],
    [{ identify, policy: { capacity: 10, refillPerSecond: -1 } }, RangeError, /`policy`\.refillPerSecond/],
    [{ identify, policy: { capacity: '10', refillPerSecond: 1 } }, TypeError, /`policy`\.capacity/],
    [{ identify, policy: { capacity: Infinity, refillPerSecond: 1 } }, RangeError, /`policy`\.capacity/],
    // The stores' own bound (refilling from empty within 1e9 s), checked here with the stores' code.
    [
      { identify, policy: { capacity: 1000, refillPerSecond: 1e-7 } },
      RangeError,
      /`policy`\.capacity \/ policy\.refillPerSecond/,
    ],
    [{ identify, store: {} }, TypeError, /`store`/],
    [{ identify, mode: 'shadow' }, RangeError, /`mode`/],
    [{ identify, maxCost: 0 }, RangeError, /`maxCost`/],
    [{ identify, maxCost: Number.NaN }, RangeError, /`maxCost`/],
    [{ identify, cost: 3 }, TypeError, /`cost`/],
    [{ identify, defaultListSize: -1 }, RangeError, /`defaultListSize`/],
    [{ identify, maxNodes: 1.5 }, RangeError, /`maxNodes`/],
    [{ identify, introspection: 'yes' }, RangeError, /`introspection`/],
    [{ identify, strictListSizes: 'yes' }, TypeError, /`strictListSizes`/],
    [{ identify, estimators: () => 1 }, TypeError, /`estimators`/],
    [{ identify, onStoreError: 'fail-open' }, RangeError, /`onStoreError`/],
    [{ identify, tuning: { storeTimeoutMs: 0 } }, RangeError, /`tuning\.storeTimeoutMs`/],
    [{ identify, tuning: { storeTimeoutMs: Infinity } }, RangeError, /`tuning\.storeTimeoutMs`/],
    [
      { identify, tuning: { circuitBreaker: { failureThreshold: 0 } } },
      RangeError,
      /`tuning\.circuitBreaker\.failureThreshold`/,
    ],
    [{ identify, tuning: { circuitBreaker: { cooldownMs: -5 } } }, RangeError, /`tuning\.circuitBreaker\.cooldownMs`/],
    [{ identify, exposeCost: 'always' }, TypeError, /`exposeCost`/],
    [{ identify, policyName: 'bad "name"' }, RangeError, /`policyName`/],
    [{ identify, tuning: { debugHeader: 'X Debug' } }, RangeError, /`tuning\.debugHeader`/],
    [{ identify, fieldBreakdown: 'yes' }, TypeError, /`fieldBreakdown`/],
    [{ identify, tuning: { estimateCacheMaxBytes: -1 } }, RangeError, /`tuning\.estimateCacheMaxBytes`/],
    [{ identify, tuning: { denyCacheMaxEntries: 0.5 } }, RangeError, /`tuning\.denyCacheMaxEntries`/],
    [{ identify, tuning: { estimateCacheMaxBytes: 1.5 } }, RangeError, /`tuning\.estimateCacheMaxBytes`/],
    [{ identify, maxListSize: -1 }, RangeError, /`maxListSize`/],
    [{ identify, maxListSize: '100' }, TypeError, /`maxListSize`/],
    [{ identify, tuning: { dryRunLimit: true } }, TypeError, /`tuning\.dryRunLimit`/],
    [
      { identify, tuning: { dryRunLimit: { capacity: 0, refillPerSecond: 1 } } },
      RangeError,
      /`tuning\.dryRunLimit`\.capacity/,
    ],
    [{ identify, tuning: 5 }, TypeError, /`tuning`/],
    // Options of earlier releases are refused with a pointer to their replacement.
    [{ identify, estimateCacheSize: 1000 }, TypeError, /`estimateCacheSize`.*`tuning\.estimateCacheMaxBytes`/],
    [{ identify, storeTimeoutMs: 100 }, TypeError, /`storeTimeoutMs` was replaced by `tuning\.storeTimeoutMs`/],
    [
      { identify, introspectionOnlyIsFree: true },
      TypeError,
      /`introspectionOnlyIsFree` was replaced by `introspection/,
    ],
    [
      { identify, introspectionIsFree: true },
      TypeError,
      /`introspectionIsFree` was replaced by `introspection: 'free'`/,
    ],
  ])('%o throws %o naming the option', (options, type, message) => {
    expect(() => build(options)).toThrow(type);
    expect(() => build(options)).toThrow(message);
  });

  it('accepts zero where zero is meaningful (?? not ||)', () => {
    expect(() =>
      build({
        identify,
        store: new MemoryBucketStore(),
        policy: { capacity: 5, refillPerSecond: 0 },
        defaultListSize: 0,
        tuning: { estimateCacheMaxBytes: 0, circuitBreaker: { cooldownMs: 0 } },
      }),
    ).not.toThrow();
  });

  it('accepts Infinity as the default list size', () => {
    expect(() => build({ identify, defaultListSize: Infinity })).not.toThrow();
  });
});

describe('mistakes a JavaScript caller makes', () => {
  it.each([
    [{ identify, polcy: { capacity: 10, refillPerSecond: 1 } }, /unknown option `polcy`\. Did you mean `policy`\?/],
    [
      { identify, tuning: { storeTimeout: 100 } },
      /`tuning`: unknown option `storeTimeout`\. Did you mean `storeTimeoutMs`\?/,
    ],
    [{ identify, onstoreerror: 'deny' }, /unknown option `onstoreerror`\. Did you mean `onStoreError`\?/],
    [
      { identify, tuning: { circuitBreaker: { cooldown: 100 } } },
      /`tuning\.circuitBreaker`: unknown option `cooldown`\. Did you mean `cooldownMs`\?/,
    ],
    [
      { identify, metrics: { operationNames: true } },
      /`metrics`: unknown option `operationNames`\. Did you mean `operationName`\?/,
    ],
    [{ identify, zzz: 1 }, /unknown option `zzz`\. The options are `identify`, `skip`/],
  ])('%o throws a TypeError naming the unknown option and the nearest valid one', (options, message) => {
    expect(() => build(options)).toThrow(TypeError);
    expect(() => build(options)).toThrow(message);
  });

  it('tells a caller who passes a raw Redis client as the store to wrap it', async () => {
    const { Redis } = await import('ioredis');
    const ioredis = new Redis({ lazyConnect: true });
    expect(() => build({ identify, store: ioredis })).toThrow(
      /`store` is a raw ioredis client; wrap it in a store: `store: new RedisBucketStore\(client\)`/,
    );
    ioredis.disconnect();
    const { createClient } = await import('redis');
    expect(() => build({ identify, store: createClient() })).toThrow(/`store` is a raw node-redis client; wrap it/);
  });
});
