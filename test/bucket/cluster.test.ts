/**
 * RedisBucketStore over a Cluster, through ioredis and through node-redis: one key per bucket, any identity, deadlines work;
 * several buckets per charge: one atomic call per slot (a hash tag gives buckets one slot), slots
 * charged in the order given with give-back.
 */
import clusterKeySlot from 'cluster-key-slot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketKey } from '../../src/bucket/bucket-key.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { BucketLimit } from '../../src/bucket/types.js';
import { CLIENTS, connectCluster, type TestClient } from '../support/redis-clients.js';
import { startRedisCluster, type ClusterNode, type RedisCluster } from '../support/redis-cluster.js';

/** How many times `node` ran a script (EVAL or EVALSHA). */
async function scriptRuns(cluster: RedisCluster, node: ClusterNode): Promise<number> {
  const stats = String(await cluster.command(node, 'INFO', 'commandstats'));
  let runs = 0;
  for (const match of stats.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+)/g)) runs += Number(match[1]);
  return runs;
}

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

describe.each(CLIENTS)('RedisBucketStore on a Redis Cluster, over %s', (name) => {
  let tested: TestClient;
  let client: TestClient['client'];

  beforeAll(async () => {
    tested = await connectCluster(name, cluster.startupNodes);
    client = tested.client;
  });
  afterAll(() => tested?.close());

  it('keeps each bucket under its own key on the node owning its slot, for any identity', async () => {
    const store = new RedisBucketStore(client, { prefix: `${name}:c:` });
    const policy = { capacity: 5, refillPerSecond: 1 };
    const identities = [
      'alice',
      '{alice}',
      'a}{b',
      'line\nbreak',
      'x'.repeat(10_000),
      ...Array.from({ length: 30 }, (_, i) => `user-${i}`),
    ];
    for (const identity of identities) {
      expect(await store.consume(identity, 2, policy, { timeoutMs: 2000 })).toMatchObject({
        allowed: true,
        remaining: 3,
      });
      expect(await store.consume(identity, 4, policy)).toMatchObject({ allowed: false, cost: 4 });
      const key = bucketKey(`${name}:c:`, identity);
      expect(key).not.toMatch(/[{}]/);
      const owner = await cluster.masterFor(key);
      expect(await cluster.command(owner, 'EXISTS', key)).toBe(1);
    }
    const owners = new Set<number>();
    for (const identity of identities) owners.add((await cluster.masterFor(bucketKey(`${name}:c:`, identity))).port);
    expect(owners.size).toBe(3);
  }, 30_000);

  it('charges buckets that share a hash tag in one atomic call on the master of the tag', async () => {
    const prefix = `${name}:tag:`;
    const store = new RedisBucketStore(client, { prefix });
    const policy = { capacity: 10, refillPerSecond: 0 };
    const limits: BucketLimit[] = ['alice', 'alice-hour', 'org-1'].map((key) => ({ key, policy, hashTag: 'org-1' }));
    const keys = limits.map((limit) => bucketKey(prefix, limit.key, limit.hashTag));
    expect(new Set(keys.map((key) => clusterKeySlot(key))).size).toBe(1);
    const owner = await cluster.masterFor(keys[0] as string);
    expect(store.partitionOf('alice', 'org-1')).toBe(`127.0.0.1:${owner.port}`);
    await store.consume('warm', 1, policy); // the script is loaded somewhere; count from here
    const before = await scriptRuns(cluster, owner);
    expect((await store.consumeAll(limits, 4, { timeoutMs: 2000 })).allowed).toBe(true);
    expect(await scriptRuns(cluster, owner)).toBe(before + 1);
    const values = await Promise.all(keys.map((key) => cluster.command(owner, 'GET', key)));
    expect(values).toEqual(['-4', '-4', '-4']);
    const denied = await store.consumeAll(limits, 7);
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: -1 });
    expect(await Promise.all(keys.map((key) => cluster.command(owner, 'GET', key)))).toEqual(values);
  }, 30_000);

  it('charges buckets of different slots in the order given, and a later denial gives the earlier takes back', async () => {
    const prefix = `${name}:order:`;
    const store = new RedisBucketStore(client, { prefix });
    // The caller's own buckets first (one tag, one slot), the shared one last, on another master.
    const own = { capacity: 100, refillPerSecond: 0 };
    const shared = { capacity: 5, refillPerSecond: 0 };
    let caller = 0;
    const ownKey = () => bucketKey(prefix, `user-${caller}`, `user-${caller}`);
    const appMaster = (await cluster.masterFor(bucketKey(prefix, 'app'))).port;
    while ((await cluster.masterFor(ownKey())).port === appMaster) caller++;
    const limits: BucketLimit[] = [
      { key: `user-${caller}`, policy: own, hashTag: `user-${caller}` },
      { key: `user-${caller}:hour`, policy: own, hashTag: `user-${caller}` },
      { key: 'app', policy: shared },
    ];
    expect((await store.consumeAll(limits, 3)).allowed).toBe(true);
    const ownMaster = await cluster.masterFor(ownKey());
    const sharedMaster = await cluster.masterFor(bucketKey(prefix, 'app'));
    const runsBefore = [await scriptRuns(cluster, ownMaster), await scriptRuns(cluster, sharedMaster)];
    const denied = await store.consumeAll(limits, 3);
    // The own slot was charged (one call), the shared one denied (one call), then the own slot got it back.
    expect([await scriptRuns(cluster, ownMaster), await scriptRuns(cluster, sharedMaster)]).toEqual([
      (runsBefore[0] as number) + 2,
      (runsBefore[1] as number) + 1,
    ]);
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: -1, binding: 2 });
    expect(denied.results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 97],
      [true, 97],
      [false, 2],
    ]);
    expect((await store.peekAll(limits)).map((r) => r.remaining)).toEqual([97, 97, 2]);
    expect(await cluster.command(ownMaster, 'GET', ownKey())).toBe('-3');
    // Refunds and reads go to every slot.
    expect((await store.refundAll(limits, 3, { timeoutMs: 2000 })).map((r) => r.remaining)).toEqual([100, 100, 5]);
    expect(await cluster.command(ownMaster, 'EXISTS', ownKey())).toBe(0);
  }, 30_000);

  it('sends every call straight to the master of its slot, also through an auto-pipelining client', async () => {
    // ioredis' auto-pipelining routes a script call by its first argument: it must be the first key;
    // node-redis routes it by the key the store names (the first).
    const moved = async () => {
      let count = 0;
      for (const node of await cluster.masters()) {
        const stats = String(await cluster.command(node, 'INFO', 'errorstats'));
        count += Number(/errorstat_MOVED:count=(\d+)/.exec(stats)?.[1] ?? 0);
      }
      return count;
    };
    const pipelining = await connectCluster(name, cluster.startupNodes, { autoPipelining: true });
    try {
      const store = new RedisBucketStore(pipelining.client, { prefix: `${name}:route:` });
      const policy = { capacity: 10, refillPerSecond: 1 };
      await store.peek('warm', policy);
      const before = await moved();
      const users = Array.from({ length: 40 }, (_, i) => `user-${i}`);
      await Promise.all(users.map((user) => store.consume(user, 1, policy)));
      await Promise.all(
        users.map((user) =>
          store.consumeAll(
            [
              { key: user, policy, hashTag: user },
              { key: 'app', policy: { capacity: 1000, refillPerSecond: 1 } },
            ],
            1,
          ),
        ),
      );
      expect(await moved()).toBe(before);
    } finally {
      await pipelining.close();
    }
  }, 30_000);
});
