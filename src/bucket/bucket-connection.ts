import { ioredisConnection } from './ioredis-connection.js';
import { nodeRedisClusterConnection, nodeRedisConnection } from './node-redis-connection.js';
import {
  redisClientKind,
  type IoredisBucketClient,
  type NodeRedisBucketClient,
  type NodeRedisClusterBucketClient,
  type RedisBucketClient,
} from './redis-client.js';
import type { RedisConnection } from './redis-connection.js';
import { describe } from './validate.js';

/** What the error for an unsupported client says is accepted. */
const ACCEPTED =
  'an ioredis Redis or Cluster (ioredis 6), or a connected node-redis client or cluster ' +
  '(createClient() or createCluster() from redis 5 or later)';

/**
 * The store's view of `client`, whichever supported client it is. Throws a `TypeError` naming
 * what is accepted when it is none of them.
 */
export function bucketConnection(client: RedisBucketClient): RedisConnection {
  switch (redisClientKind(client)) {
    case 'ioredis':
    case 'ioredis Cluster':
      return ioredisConnection(client as IoredisBucketClient);
    case 'node-redis':
      return nodeRedisConnection(client as NodeRedisBucketClient);
    case 'node-redis cluster':
      return nodeRedisClusterConnection(client as NodeRedisClusterBucketClient);
    default:
      throw new TypeError(`client must be ${ACCEPTED}; got ${shown(client)}`);
  }
}

/** `value` as the error shows it, with what made it fail where it looks like a client. */
function shown(value: unknown): string {
  if (typeof value !== 'object' || value === null) return describe(value);
  const members = value as Record<string, unknown>;
  if (typeof members.getMasterNode === 'function')
    return 'a node-redis Sentinel (createSentinel), which is not supported';
  if (typeof members.sendCommand === 'function')
    return 'an object with sendCommand that is neither a node-redis client nor a cluster';
  return 'an object with neither defineCommand (ioredis) nor sendCommand (node-redis)';
}
