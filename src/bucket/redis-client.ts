/**
 * What `RedisBucketStore` needs from its Redis client, described here so that the published types
 * do not import `ioredis` (an optional peer): a project that uses only `MemoryBucketStore` compiles
 * without it, and an ioredis `Redis` or `Cluster` fits as it is, without a cast.
 *
 * Besides the members below, the store calls the commands it defines: after
 * `defineCommand(name, { numberOfKeys: n, lua })` the client has a method `name(...keys, ...args)`
 * (n keys) that runs the script with `EVALSHA`, falling back to `EVAL` when Redis answers
 * `NOSCRIPT` (ioredis does exactly this), and resolves with the script's reply. The store defines
 * one such command per number of keys it sends. On a Cluster the client sends it to the node
 * serving the first key's slot (the store only sends keys of one slot together).
 */
export interface RedisBucketClient {
  /** Registers a Lua script as a command of the client (ioredis `defineCommand`). */
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
  /** Redis `TIME`: `[seconds, microseconds]`, as numbers or numeric strings. */
  time(): Promise<readonly unknown[]>;
  /** `true` for a Redis Cluster client, `false` for a single node. */
  readonly isCluster: boolean;
  /**
   * Cluster only: for each of the 16384 hash slots, the `host:port` of its master first (then its
   * replicas), as last learnt from the cluster; read to name a bucket's partition.
   */
  readonly slots?: readonly (readonly string[] | undefined)[];
}
