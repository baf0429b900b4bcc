import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import clusterSlot from 'cluster-key-slot';
import { bucketKey, RedisBucketStore } from '../../src/index.js';
import { BucketStoreError, type BucketResult } from '../../src/index.js';
import { CLIENTS, connectCluster, type TestClient } from '../support/redis-clients.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { runWorkers } from './worker-pool.js';

/** SHA1s of every script in lua/: what a node must have cached to answer EVALSHA. */
const scriptShas = readdirSync(new URL('../../lua/', import.meta.url))
  .filter((name) => name.endsWith('.lua'))
  .map((name) =>
    createHash('sha1')
      .update(readFileSync(new URL(`../../lua/${name}`, import.meta.url)))
      .digest('hex'),
  );

// Each client gets a cluster of its own: the last test kills a master.
describe.each(CLIENTS)('RedisBucketStore over a 3-master/3-replica Redis Cluster, through %s', (name) => {
  let cluster: RedisCluster;
  let tested: TestClient;
  let client: TestClient['client'];
  let single: Redis;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    tested = await connectCluster(name, cluster.startupNodes);
    client = tested.client;
    single = new Redis(`redis://127.0.0.1:${inject('redisPort')}`);
  }, 60_000);

  afterAll(async () => {
    await tested?.close();
    single?.disconnect();
    await cluster?.stop();
  });

  it('behaves like the single-node store for the same sequence of calls', async () => {
    const policy = { capacity: 50, refillPerSecond: 0 };
    const prefix = `same-${Date.now()}:`;
    const onCluster = new RedisBucketStore(client, { prefix });
    const onSingle = new RedisBucketStore(single, { prefix });
    const script: [op: 'consume' | 'refund' | 'peek', key: string, amount: number][] = [
      ['consume', 'a', 20],
      ['consume', 'b', 7.5],
      ['consume', 'a', 31],
      ['peek', 'a', 0],
      ['consume', 'a', 30],
      ['refund', 'a', 15],
      ['consume', 'a', 14],
      ['consume', 'c', 51],
      ['refund', 'b', 100],
      ['peek', 'b', 0],
      ['consume', 'b', 50],
      ['consume', 'b', 0.25],
    ];
    const run = async (store: RedisBucketStore): Promise<BucketResult[]> => {
      const results: BucketResult[] = [];
      for (const [op, key, amount] of script) {
        results.push(op === 'peek' ? await store.peek(key, policy) : await store[op](key, amount, policy));
      }
      return results;
    };
    const [clusterResults, singleResults] = [await run(onCluster), await run(onSingle)];
    const comparable = (r: BucketResult): unknown => ({
      allowed: r.allowed,
      cost: r.cost,
      remaining: r.remaining,
      capacity: r.capacity,
      never: r.retryAfterMs === -1,
    });
    expect(clusterResults.map(comparable)).toEqual(singleResults.map(comparable));
    // The sequence really exercised both answers.
    expect(clusterResults.map((r) => r.allowed)).toContain(false);
    expect(clusterResults.find((r) => r.cost === 51)?.retryAfterMs).toBe(-1);
  });

  it('spreads callers over the slots of every master, hostile identities included', async () => {
    const policy = { capacity: 10, refillPerSecond: 1 };
    const masters = await cluster.masters();
    const keysOnEachMaster = async (pattern: string): Promise<string[][]> =>
      Promise.all(masters.map(async (node) => (await cluster.command(node, 'KEYS', pattern)) as string[]));

    const plain = new RedisBucketStore(client, { prefix: 'spread:' });
    const plainIds = [...Array.from({ length: 60 }, (_, i) => `user-${i}`), 'a}b{c', 'line\nbreak', 'x'.repeat(10_000)];
    for (const id of plainIds) expect((await plain.consume(id, 1, policy)).allowed).toBe(true);
    const plainKeys = await keysOnEachMaster('spread:*');
    expect(plainKeys.flat()).toHaveLength(plainIds.length); // one bounded key per caller
    for (const keys of plainKeys) expect(keys.length).toBeGreaterThan(5);
    for (const key of plainKeys.flat()) expect(key.length).toBeLessThan(200);

    // Identities that carry a would-be hash tag are not pinned to one slot by it.
    const tagged = new RedisBucketStore(client, { prefix: 'tagged:' });
    for (let i = 0; i < 30; i++) expect((await tagged.consume(`{tenant}${i}`, 1, policy)).allowed).toBe(true);
    const taggedKeys = await keysOnEachMaster('tagged:*');
    expect(taggedKeys.flat()).toHaveLength(30);
    expect(taggedKeys.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
  });

  it('names the master serving each bucket as its partition (partitionOf), by the slot Redis computes', async () => {
    const prefixes = ['part:', 'pårt:', '{tag}:'];
    const ids = [...Array.from({ length: 20 }, (_, i) => `user-${i}`), 'a}b{c', 'é😀\n', 'x'.repeat(300)];
    const partitions = new Set<string>();
    const live = cluster.nodes[0]!;
    for (const prefix of prefixes) {
      const store = new RedisBucketStore(client, { prefix });
      for (const id of ids) {
        const key = bucketKey(prefix, id);
        expect(clusterSlot(key)).toBe(Number(await cluster.command(live, 'CLUSTER', 'KEYSLOT', key)));
        const partition = store.partitionOf(id);
        expect(partition).toBe(`127.0.0.1:${(await cluster.masterFor(key)).port}`);
        partitions.add(partition);
      }
    }
    expect(partitions.size).toBe(3);
    expect(new RedisBucketStore(single).partitionOf('anyone')).toBe('redis');
  });

  it('admits exactly the capacity from 4 processes × 64 in flight', async () => {
    const policy = { capacity: 400, refillPerSecond: 0 };
    const tallies = await runWorkers(4, {
      client: name,
      clusterNodes: [...cluster.startupNodes],
      prefix: 'exact-cluster:',
      key: 'shared',
      cost: 2,
      policy,
      inFlight: 64,
      maxCalls: 150,
      durationMs: 20_000,
    });
    expect(tallies.flatMap((t) => t.errors)).toEqual([]);
    expect(tallies.reduce((sum, t) => sum + t.admitted, 0)).toBe(200);
  }, 60_000);

  it('survives SCRIPT FLUSH on every master', async () => {
    const store = new RedisBucketStore(client, { prefix: 'flush:' });
    const policy = { capacity: 10, refillPerSecond: 0 };
    expect((await store.consume('k', 4, policy)).remaining).toBe(6);
    for (const node of await cluster.masters()) expect(await cluster.command(node, 'SCRIPT', 'FLUSH')).toBe('OK');
    expect((await store.consume('k', 4, policy)).remaining).toBe(2);
    expect((await store.peek('k', policy)).remaining).toBe(2);
    expect((await store.refund('k', 3, policy)).remaining).toBe(5);
  });

  it('keeps a bucket through a failover to a replica that never saw the script (NOSCRIPT)', async () => {
    const store = new RedisBucketStore(client, { prefix: 'failover:' });
    const policy = { capacity: 100, refillPerSecond: 0 };
    expect((await store.consume('victim', 30, policy)).remaining).toBe(70);
    expect(scriptShas.length).toBeGreaterThan(0);

    // Find the key's master and its replica; the replica has not cached the script.
    const keys = (
      await Promise.all(
        cluster.nodes.map(async (node) => ({
          node,
          keys: (await cluster.command(node, 'KEYS', 'failover:*').catch(() => [])) as string[],
        })),
      )
    ).filter((entry) => entry.keys.length > 0);
    const masterPorts = new Set((await cluster.masters()).map((n) => n.port));
    const master = keys.find((entry) => masterPorts.has(entry.node.port))!.node;
    const replica = keys.find((entry) => !masterPorts.has(entry.node.port))!.node;
    const cachedOnMaster = (await cluster.command(master, 'SCRIPT', 'EXISTS', ...scriptShas)) as number[];
    const cachedOnReplica = (await cluster.command(replica, 'SCRIPT', 'EXISTS', ...scriptShas)) as number[];
    expect(cachedOnMaster).toContain(1);
    expect(cachedOnReplica.every((cached) => cached === 0)).toBe(true);
    expect(store.partitionOf('victim')).toBe(`127.0.0.1:${master.port}`);

    const { failoverMs } = await cluster.killMaster(master);
    console.log(`cluster failover (${name}) took ${failoverMs} ms (cluster-node-timeout ${cluster.nodeTimeoutMs} ms)`);
    expect((await cluster.masters()).map((n) => n.port)).toContain(replica.port);

    // The first call that reaches the promoted replica meets NOSCRIPT there and still succeeds, on
    // the bucket state the replica received from its master. ioredis learns the new slot map and
    // retries on its own, so that is the first call after the failover. node-redis fails the calls
    // it had queued for the dead master ("Disconnects client") when it learns the new map: those
    // are store errors (which the plugin's onStoreError answers), they never ran, and the next
    // call goes to the replica.
    const attempts = name === 'ioredis' ? 1 : 100;
    let failures = 0;
    let first: BucketResult | undefined;
    while (first === undefined) {
      try {
        first = await store.consume('victim', 30, policy);
      } catch (error) {
        expect(error).toBeInstanceOf(BucketStoreError);
        if (++failures >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    console.log(`after the failover (${name}): ${failures} call(s) failed before one reached the replica`);
    expect(first.remaining).toBe(40);
    expect((await store.consume('victim', 50, policy)).allowed).toBe(false);
    expect((await store.peek('victim', policy)).remaining).toBe(40);
    // The promoted replica is a new partition (a fresh circuit breaker in the plugin).
    expect(store.partitionOf('victim')).toBe(`127.0.0.1:${replica.port}`);
    const cachedNow = (await cluster.command(replica, 'SCRIPT', 'EXISTS', ...scriptShas)) as number[];
    expect(cachedNow).toContain(1);
  }, 60_000);
});
