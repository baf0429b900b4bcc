/**
 * What `RedisBucketStore` needs from a Redis client, whichever client it is (ioredis or
 * node-redis, a single node or a Cluster): `bucketConnection` builds one from the client the user
 * passed.
 */

/** Runs the bucket script: the number of keys, then the keys and the other arguments (`bucketScriptArgs`). */
export type BucketCommand = (keyCount: string, ...args: string[]) => Promise<unknown>;

/** A client as the store uses it. */
export interface RedisConnection {
  /** `true` over a Redis Cluster, `false` over a single node. */
  readonly isCluster: boolean;
  /**
   * Runs `lua/bucket.lua` with `EVALSHA`, falling back to `EVAL` when Redis answers `NOSCRIPT`
   * (after `SCRIPT FLUSH`, a restart or a failover), and resolves with its raw reply. On a
   * Cluster, sent to the node serving the first key's slot.
   */
  readonly run: BucketCommand;
  /** Redis `TIME`: `[seconds, microseconds]`, as numbers, numeric strings or Buffers. */
  time(): Promise<readonly unknown[]>;
  /** Cluster only: the `host:port` of the master serving `slot` in the client's slot map, if known. */
  masterOf(slot: number): string | undefined;
}
