import { BUCKET_SCRIPT, BUCKET_SCRIPT_SHA } from './bucket-script.js';
import type { NodeRedisBucketClient, NodeRedisClusterBucketClient } from './redis-client.js';
import type { BucketCommand, RedisConnection } from './redis-connection.js';

/**
 * The store's commands go out with the default reply types whatever the client's `typeMapping`
 * (strings and numbers, in RESP2 and RESP3 alike), so that a client mapping strings to Buffers
 * still gives the replies the parser reads.
 */
const COMMAND_OPTIONS = { typeMapping: {} };

/** A node-redis client (`createClient()`) as the store uses it. */
export function nodeRedisConnection(client: NodeRedisBucketClient): RedisConnection {
  return {
    isCluster: false,
    run: evalShaThenEval((args) => client.sendCommand(args, COMMAND_OPTIONS)),
    time: () => client.sendCommand(['TIME'], COMMAND_OPTIONS) as Promise<readonly unknown[]>,
    masterOf: () => undefined,
  };
}

/**
 * A node-redis cluster (`createCluster()`) as the store uses it: every script call is routed by its
 * first key (the store sends keys of one slot together); `TIME` goes to any node; the master of a
 * slot is the one in the client's slot map (`cluster.slots`, which node-redis learns at `connect`
 * and again after a `MOVED` reply or a lost node).
 */
export function nodeRedisClusterConnection(cluster: NodeRedisClusterBucketClient): RedisConnection {
  return {
    isCluster: true,
    run: evalShaThenEval((args) => cluster.sendCommand(args[3], false, args, COMMAND_OPTIONS)),
    time: () => cluster.sendCommand(undefined, true, ['TIME'], COMMAND_OPTIONS) as Promise<readonly unknown[]>,
    masterOf: (slot) => cluster.slots[slot]?.master.address,
  };
}

/**
 * Runs the script by its SHA and, when Redis has not got it (`NOSCRIPT`: after `SCRIPT FLUSH`, a
 * restart, or on a promoted replica), sends it whole with `EVAL`, which also caches it there.
 * This is what ioredis' `defineCommand` and node-redis' own `scripts` do; node-redis scripts are
 * declared when the client is created, which the user does, so the store does it here.
 * `send` gets the whole command: name, script or SHA, number of keys, keys (the first at index 3),
 * arguments.
 */
function evalShaThenEval(send: (args: string[]) => Promise<unknown>): BucketCommand {
  return async (keyCount, ...args) => {
    try {
      return await send(['EVALSHA', BUCKET_SCRIPT_SHA, keyCount, ...args]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return send(['EVAL', BUCKET_SCRIPT, keyCount, ...args]);
    }
  };
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
