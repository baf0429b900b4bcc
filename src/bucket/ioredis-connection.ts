import { BUCKET_SCRIPT, BUCKET_SCRIPT_SHA, MAX_KEYS_PER_CALL } from './bucket-script.js';
import type { IoredisBucketClient } from './redis-client.js';
import type { BucketCommand, RedisConnection } from './redis-connection.js';

/** The ioredis command name; versioned by the SHA so two copies of the library never clash. */
export const BUCKET_COMMAND = `graphqlBudgetBucket${BUCKET_SCRIPT_SHA.slice(0, 8)}`;

/**
 * An ioredis `Redis` or `Cluster` as the store uses it: the script is a command of the client
 * (`defineBucketCommand`), `TIME` is `client.time()`, and the slot map is `client.slots`.
 */
export function ioredisConnection(client: IoredisBucketClient): RedisConnection {
  return {
    isCluster: client.isCluster,
    run: defineBucketCommand(client),
    time: () => client.time(),
    masterOf: (slot) => client.slots?.[slot]?.[0],
  };
}

/**
 * Registers the script on `client` with `defineCommand` (EVALSHA, with an EVAL fallback on
 * NOSCRIPT, e.g. after `SCRIPT FLUSH` or a restart) and returns a function that runs it with the
 * arguments of `bucketScriptArgs`.
 *
 * On a single node, one command whose first argument is the number of keys. On a Cluster, one
 * command per number of keys (1 to `MAX_KEYS_PER_CALL`), each with that `numberOfKeys`: the client
 * then sees the first key as the call's first argument, which is what ioredis' auto-pipelining
 * routes a Cluster command by (with the number of keys first, it would send every call to the node
 * serving the slot of "1"). All are defined here, at once: ioredis gives an auto-pipeline the
 * commands the client had when the pipeline opened, so a command defined while one is open would
 * be missing from it. Only where routing needs them: ioredis copies every defined command onto
 * each pipeline it opens (each auto-pipeline, one per turn of the event loop), and 64 of them made
 * that copy 15 µs of the client's CPU per request.
 */
function defineBucketCommand(client: IoredisBucketClient): BucketCommand {
  const commands = client as unknown as Record<string, ((...args: string[]) => Promise<unknown>) | undefined>;
  if (!client.isCluster) {
    const name = `${BUCKET_COMMAND}n`;
    if (typeof commands[name] !== 'function') client.defineCommand(name, { lua: BUCKET_SCRIPT });
    const script = (client.scriptsSet as Readonly<Record<string, IoredisScript | undefined>> | undefined)?.[name];
    return (keyCount, ...args) => {
      if (!(Number(keyCount) >= 1 && Number(keyCount) <= MAX_KEYS_PER_CALL)) {
        throw new RangeError(`a bucket script call names 1 to ${MAX_KEYS_PER_CALL} keys, got ${keyCount}`);
      }
      // The defined script run as ioredis runs it without auto-pipelining (EVALSHA, EVAL on a
      // connection that lacks it, the client's keyPrefix on its keys): the store batches its own
      // calls, and an auto-pipeline per turn of the event loop around one command cost the client
      // a Pipeline and its bookkeeping per request.
      if (typeof script?.execute === 'function')
        return script.execute(client, [keyCount, ...args], { replyEncoding: 'utf8' });
      return (commands[name] as (...args: string[]) => Promise<unknown>).call(client, keyCount, ...args);
    };
  }
  const byKeyCount: string[] = [];
  for (let count = 1; count <= MAX_KEYS_PER_CALL; count++) {
    const name = `${BUCKET_COMMAND}k${count}`;
    if (typeof commands[name] !== 'function') client.defineCommand(name, { numberOfKeys: count, lua: BUCKET_SCRIPT });
    byKeyCount[count] = name;
  }
  return (keyCount, ...args) => {
    const name = byKeyCount[Number(keyCount)];
    if (name === undefined) {
      throw new RangeError(`a bucket script call names 1 to ${MAX_KEYS_PER_CALL} keys, got ${keyCount}`);
    }
    return (commands[name] as (...args: string[]) => Promise<unknown>).apply(client, args);
  };
}

/** A script ioredis's `defineCommand` registered, as far as the store runs it. */
interface IoredisScript {
  execute(client: unknown, args: string[], options: { replyEncoding: 'utf8' }): Promise<unknown>;
}
