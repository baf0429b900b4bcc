import type { GraphQLServerContext } from '@apollo/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type {
  BucketCallOptions,
  BucketLimit,
  BucketPolicy,
  BucketResult,
  BucketStore,
} from '../../src/bucket/types.js';
import { GuardedStore, MAX_BREAKERS } from '../../src/core/guarded-store.js';
import { costOf, itemsQuery, startBudgetServer, type BudgetServer } from './budget-server.js';

/**
 * One circuit breaker per store partition: a store whose `partitionOf` splits keys, one partition
 * failing. Its breaker opens; the other partitions' calls still reach the store.
 */
const POLICY: BucketPolicy = { capacity: 100, refillPerSecond: 0 };

/** One bucket of `key` under POLICY, as the plugin hands the guarded store an operation's buckets. */
const one = (key: string): BucketLimit[] => [{ key, policy: POLICY }];
const BREAKER = { failureThreshold: 3, cooldownMs: 500 };

/** Keys are `partition/caller`. Calls for a partition in `down` reject; the others are answered in memory. */
class ShardedStore implements BucketStore {
  readonly down = new Set<string>();
  /** Store calls per partition. */
  readonly calls = new Map<string, number>();
  /** Overrides where a partition lives (a promoted replica gets a new name). */
  readonly renamed = new Map<string, string>();
  readonly #memory = new MemoryBucketStore();

  partitionOf(key: string): string {
    const shard = key.slice(0, key.indexOf('/'));
    return this.renamed.get(shard) ?? shard;
  }
  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.#run(key, () => this.#memory.consume(key, cost, policy, options));
  }
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.#run(key, () => this.#memory.refund(key, amount, policy, options));
  }
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.#run(key, () => this.#memory.peek(key, policy, options));
  }
  callsTo(partition: string): number {
    return this.calls.get(partition) ?? 0;
  }
  async #run(key: string, answer: () => Promise<BucketResult>): Promise<BucketResult> {
    const partition = this.partitionOf(key);
    this.calls.set(partition, this.callsTo(partition) + 1);
    if (this.down.has(partition)) throw new Error(`partition ${partition} is down`);
    return answer();
  }
}

/** The same store seen without `partitionOf`: one partition. */
class UnpartitionedStore implements BucketStore {
  constructor(private readonly inner: ShardedStore) {}
  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.inner.consume(key, cost, policy, options);
  }
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.inner.refund(key, amount, policy, options);
  }
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    return this.inner.peek(key, policy, options);
  }
}

type Logger = GraphQLServerContext['logger'];
interface Log {
  level: string;
  message: string;
}

function capturingLogger(): { logger: Logger; logs: Log[] } {
  const logs: Log[] = [];
  const at = (level: string) => (message: unknown) => void logs.push({ level, message: String(message) });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, logs };
}

function guarded(store: BucketStore): { guard: GuardedStore; advance: (ms: number) => void } {
  let now = 1000;
  const guard = new GuardedStore({ store, timeoutMs: 50, breaker: BREAKER, fallback: undefined, now: () => now });
  return {
    guard,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('GuardedStore: one breaker per store partition', () => {
  it("a failing partition opens its own breaker; the other partitions' calls still go through", async () => {
    const store = new ShardedStore();
    const { guard } = guarded(store);
    const { logger, logs } = capturingLogger();
    store.down.add('a');

    for (let i = 0; i < 3; i++) expect((await guard.consume(one(`a/user-${i}`), 1, logger)).status).toBe('unavailable');
    expect(guard.stateOf('a/anyone')).toBe('open');
    expect(guard.stateOf('b/anyone')).toBe('closed');
    expect(store.callsTo('a')).toBe(3);

    // Partition a is no longer called; b answers every call and charges.
    for (let i = 0; i < 20; i++) {
      const onA = await guard.consume(one(`a/user-${i}`), 1, logger);
      expect(onA).toEqual({ status: 'unavailable', retryAfterMs: 500, outcome: 'breaker_open' });
      const onB = await guard.consume(one(`b/user-${i % 2}`), 5, logger);
      expect(onB.status).toBe('answered');
      if (onB.status === 'answered') expect(onB.answer.allowed).toBe(true);
    }
    expect(store.callsTo('a')).toBe(3);
    expect(store.callsTo('b')).toBe(20);
    expect((await store.peek('b/user-0', POLICY)).remaining).toBe(POLICY.capacity - 50);

    const warnings = logs.filter((log) => log.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/failed \(partition a is down\); not calling it for 500 ms .*\(partition a\)/);
  });

  it("refunds go through the breaker of the key's partition", async () => {
    const store = new ShardedStore();
    const { guard } = guarded(store);
    const { logger } = capturingLogger();
    const charge = await guard.consume(one('b/bob'), 10, logger);
    if (charge.status !== 'answered') throw new Error('b must answer');
    store.down.add('a');
    for (let i = 0; i < 3; i++) await guard.consume(one('a/alice'), 1, logger);

    expect(await guard.refund(charge.store, one('a/alice'), 1, logger)).toBeUndefined();
    expect(store.callsTo('a')).toBe(3);
    const after = await guard.refund(charge.store, one('b/bob'), 4, logger);
    expect(after?.[0]?.remaining).toBe(POLICY.capacity - 6);
  });

  it('the open partition is probed after the cool-down and closes again, with a log line naming it', async () => {
    const store = new ShardedStore();
    const { guard, advance } = guarded(store);
    const { logger, logs } = capturingLogger();
    store.down.add('a');
    for (let i = 0; i < 3; i++) await guard.consume(one('a/alice'), 1, logger);
    advance(499);
    expect((await guard.consume(one('a/alice'), 1, logger)).status).toBe('unavailable');
    expect(store.callsTo('a')).toBe(3);
    store.down.delete('a');
    advance(1);
    expect((await guard.consume(one('a/alice'), 1, logger)).status).toBe('answered');
    expect(guard.stateOf('a/alice')).toBe('closed');
    expect(logs.filter((log) => log.level === 'info').map((log) => log.message)).toEqual([
      'graphql-budget: the bucket store (partition a) answers again; budgets are enforced by it again.',
    ]);
  });

  it('a partition that gets a new name (a promoted replica) starts with a closed breaker', async () => {
    const store = new ShardedStore();
    const { guard } = guarded(store);
    const { logger } = capturingLogger();
    store.down.add('a');
    for (let i = 0; i < 3; i++) await guard.consume(one('a/alice'), 1, logger);
    expect(guard.stateOf('a/alice')).toBe('open');

    store.renamed.set('a', 'a-promoted');
    expect(guard.stateOf('a/alice')).toBe('closed');
    expect((await guard.consume(one('a/alice'), 1, logger)).status).toBe('answered');
    expect(store.callsTo('a-promoted')).toBe(1);
  });

  it('a store without partitionOf has one breaker: a failing part stops every call', async () => {
    const sharded = new ShardedStore();
    const { guard } = guarded(new UnpartitionedStore(sharded));
    const { logger, logs } = capturingLogger();
    sharded.down.add('a');
    for (let i = 0; i < 3; i++) await guard.consume(one('a/alice'), 1, logger);
    expect((await guard.consume(one('b/bob'), 1, logger)).status).toBe('unavailable');
    expect(sharded.callsTo('b')).toBe(0);
    expect(logs.find((log) => log.level === 'warn')?.message).not.toMatch(/partition a\)/);
  });

  it(`keeps at most ${MAX_BREAKERS} breakers, forgetting closed ones before open ones`, async () => {
    const store = new ShardedStore();
    const { guard } = guarded(store);
    const { logger } = capturingLogger();
    store.down.add('a');
    for (let i = 0; i < 3; i++) await guard.consume(one('a/alice'), 1, logger);
    // Many healthy partitions seen after it: the closed breakers make room for each other.
    for (let i = 0; i < 2 * MAX_BREAKERS; i++) await guard.consume(one(`p${i}/x`), 1, logger);
    expect(guard.stateOf('a/alice')).toBe('open');

    // MAX_BREAKERS open partitions: the oldest open one is forgotten for the newest.
    for (let i = 0; i < MAX_BREAKERS; i++) {
      store.down.add(`q${i}`);
      for (let j = 0; j < 3; j++) await guard.consume(one(`q${i}/x`), 1, logger);
    }
    expect(guard.stateOf('a/alice')).toBe('closed');
    expect(guard.stateOf('q0/x')).toBe('open');
    expect(guard.stateOf(`q${MAX_BREAKERS - 1}/x`)).toBe('open');
  });
});

describe("queryBudgetPlugin over a partitioned store with one partition down ('allow')", () => {
  let server: BudgetServer;
  const store = new ShardedStore();

  beforeAll(async () => {
    server = await startBudgetServer({ store, policy: POLICY, onStoreError: 'allow', tuning: { storeTimeoutMs: 50 } });
  });
  afterAll(() => server.stop());

  it("charges the callers of the healthy partitions and lets the failing partition's callers through uncharged", async () => {
    store.down.add('down');
    for (let i = 0; i < 10; i++) {
      const failing = await server.post(itemsQuery(3), { user: `down/user-${i}` });
      expect(failing.status).toBe(200);
      expect(costOf(failing).throttleStatus).toBeNull();
      const healthy = await server.post(itemsQuery(3), { user: 'up/bob' });
      expect(healthy.status).toBe(200);
      expect(costOf(healthy).throttleStatus?.currentlyAvailable).toBe(POLICY.capacity - 5 * (i + 1));
    }
    expect(store.callsTo('down')).toBe(3);
    expect(server.logs.filter((log) => log.level === 'warn' && /partition down\)/.test(log.message))).toHaveLength(1);
  });
});
