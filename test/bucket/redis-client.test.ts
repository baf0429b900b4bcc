// The published types describe the Redis clients RedisBucketStore takes (RedisBucketClient) instead
// of importing ioredis or redis, both optional peers. The type assertions below are checked by `npm
// run typecheck`, which fails when an ioredis Redis or Cluster, or a node-redis client or cluster,
// stops fitting without a cast; the runtime part checks that the same values work, and that anything
// else is refused with an error that says what is accepted.
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster, createSentinel } from 'redis';
import { describe, expect, expectTypeOf, inject, it } from 'vitest';
import { RedisBucketStore, type RedisBucketClient } from '../../src/index.js';
import { redisClientKind } from '../../src/bucket/redis-client.js';

describe('RedisBucketClient', () => {
  it('is fitted by an ioredis Redis and an ioredis Cluster as they are, in either reply mapping', () => {
    expectTypeOf<Redis>().toExtend<RedisBucketClient>();
    expectTypeOf<Cluster>().toExtend<RedisBucketClient>();
    expectTypeOf<Redis<'resp3'>>().toExtend<RedisBucketClient>();
    expectTypeOf<Cluster<'resp3'>>().toExtend<RedisBucketClient>();
  });

  it('is fitted by a node-redis client and cluster as they are, in either protocol and with a type mapping', () => {
    expectTypeOf<ReturnType<typeof createClient>>().toExtend<RedisBucketClient>();
    expectTypeOf<ReturnType<typeof createCluster>>().toExtend<RedisBucketClient>();
    expectTypeOf(createClient({ RESP: 2 })).toExtend<RedisBucketClient>();
    expectTypeOf(createCluster({ rootNodes: [], RESP: 2 })).toExtend<RedisBucketClient>();
    const buffers = createClient().withTypeMapping({ 36: Buffer });
    expectTypeOf(buffers).toExtend<RedisBucketClient>();
  });

  it('is not fitted by a client without defineCommand or sendCommand, or with a slot map of another shape', () => {
    interface Partial {
      isCluster: boolean;
      time(): Promise<number[]>;
    }
    expectTypeOf<Partial>().not.toExtend<RedisBucketClient>();
    expectTypeOf<
      Partial & { defineCommand(name: string, definition: { lua: string }): void; slots: number[] }
    >().not.toExtend<RedisBucketClient>();
    expectTypeOf<{
      sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown>;
    }>().not.toExtend<RedisBucketClient>();
  });

  it('takes an ioredis Redis, which charges its bucket on one partition', async () => {
    const client = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
    try {
      const store = new RedisBucketStore(client, { prefix: `client-type:${process.pid}:` });
      expect(await store.consume('alice', 1, { capacity: 2, refillPerSecond: 1 })).toMatchObject({ allowed: true });
      expect(store.partitionOf('alice')).toBe('redis');
    } finally {
      client.disconnect();
    }
  });

  it("sends the script outside an ioredis client's auto-pipelining, with the client's keyPrefix on its keys, and loads it again after SCRIPT FLUSH", async () => {
    const client = new Redis({
      port: inject('redisPort'),
      host: '127.0.0.1',
      enableAutoPipelining: true,
      keyPrefix: `kp:${process.pid}:`,
    });
    const observer = new Redis({ port: inject('redisPort'), host: '127.0.0.1' });
    try {
      // Which commands reach the client's sendCommand from an auto-pipeline (ioredis passes the
      // pipeline's stream) and which on their own: recorded on this test's client.
      const sent: { name: string; pipelined: boolean }[] = [];
      const sendCommand = client.sendCommand.bind(client);
      client.sendCommand = ((command: { name: string }, stream?: unknown) => {
        sent.push({ name: command.name, pipelined: stream !== undefined });
        return sendCommand(command as never, stream as never);
      }) as typeof client.sendCommand;
      const store = new RedisBucketStore(client, { prefix: 'direct:' });
      const policy = { capacity: 5, refillPerSecond: 0.000001 };
      await store.consume('bob', 1, policy);
      const [, answer] = await Promise.all([client.get('other'), store.consume('bob', 1, policy)]);
      expect(Math.floor(answer.remaining)).toBe(3);
      expect(sent).toContainEqual({ name: 'get', pipelined: true });
      expect(sent).toContainEqual({ name: 'evalsha', pipelined: false });
      expect(sent.filter((command) => command.name.startsWith('eval') && command.pipelined)).toEqual([]);
      expect(await observer.keys(`kp:${process.pid}:direct:*`)).not.toEqual([]);
      expect(await observer.keys('direct:*')).toEqual([]);
      await observer.script('FLUSH');
      expect(Math.floor((await store.consume('bob', 1, policy)).remaining)).toBe(2);
    } finally {
      client.disconnect();
      observer.disconnect();
    }
  });

  it('takes a node-redis client, which charges its bucket on one partition', async () => {
    const client = createClient({ url: `redis://127.0.0.1:${inject('redisPort')}` });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const store = new RedisBucketStore(client, { prefix: `client-type-nr:${process.pid}:` });
      expect(await store.consume('alice', 1, { capacity: 2, refillPerSecond: 1 })).toMatchObject({ allowed: true });
      expect(store.partitionOf('alice')).toBe('redis');
    } finally {
      client.destroy();
    }
  });

  it('takes an ioredis Cluster or a node-redis cluster, whose partitions are named by slot until the slot map is known', () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: inject('redisPort') }], { lazyConnect: true });
    const nodeCluster = createCluster({ rootNodes: [{ url: `redis://127.0.0.1:${inject('redisPort')}` }] });
    try {
      expect(new RedisBucketStore(cluster).partitionOf('alice')).toMatch(/^slot \d+$/);
      expect(new RedisBucketStore(nodeCluster).partitionOf('alice')).toMatch(/^slot \d+$/);
    } finally {
      cluster.disconnect();
    }
  });

  it('tells the clients apart by shape', () => {
    const url = `redis://127.0.0.1:${inject('redisPort')}`;
    const ioredis = new Redis(url, { lazyConnect: true });
    const ioredisCluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    try {
      expect(redisClientKind(ioredis)).toBe('ioredis');
      expect(redisClientKind(ioredisCluster)).toBe('ioredis Cluster');
      expect(redisClientKind(createClient({ url }))).toBe('node-redis');
      expect(redisClientKind(createClient({ url }).withTypeMapping({}))).toBe('node-redis');
      expect(redisClientKind(createCluster({ rootNodes: [{ url }] }))).toBe('node-redis cluster');
      expect(
        redisClientKind(createSentinel({ name: 'm', sentinelRootNodes: [{ host: '127.0.0.1', port: 1 }] })),
      ).toBeUndefined();
      expect(redisClientKind({ sendCommand: () => undefined })).toBeUndefined();
      expect(redisClientKind(url)).toBeUndefined();
    } finally {
      ioredis.disconnect();
      ioredisCluster.disconnect();
    }
  });

  it('refuses anything else, saying what it takes', () => {
    const make = (client: unknown) => () => new RedisBucketStore(client as RedisBucketClient);
    const accepted =
      'client must be an ioredis Redis or Cluster (ioredis 6), or a connected node-redis client or cluster ' +
      '(createClient() or createCluster() from redis 5 or later); got ';
    expect(make(undefined)).toThrow(new TypeError(`${accepted}undefined`));
    expect(make('redis://localhost:6379')).toThrow(new TypeError(`${accepted}"redis://localhost:6379"`));
    expect(make({ get: () => undefined })).toThrow(
      new TypeError(`${accepted}an object with neither defineCommand (ioredis) nor sendCommand (node-redis)`),
    );
    expect(make({ sendCommand: () => undefined })).toThrow(
      new TypeError(`${accepted}an object with sendCommand that is neither a node-redis client nor a cluster`),
    );
    expect(make(createSentinel({ name: 'm', sentinelRootNodes: [{ host: '127.0.0.1', port: 1 }] }))).toThrow(
      new TypeError(`${accepted}a node-redis Sentinel (createSentinel), which is not supported`),
    );
  });
});
