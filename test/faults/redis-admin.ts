import { Redis } from 'ioredis';
import { RedisBucketStore } from '../../src/index.js';
import type { BucketPolicy } from '../../src/index.js';

import { redisCommand } from '../support/redis-server.js';

/** Calls of the bucket script Redis executed so far (EVALSHA and EVAL), from `INFO commandstats`. */
export async function scriptCalls(port: number): Promise<number> {
  const info = String(await redisCommand(port, 'INFO', 'commandstats'));
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

/** Tokens taken from each caller's bucket (`capacity − remaining`, exact when the policy has no refill). */
export async function tokensTaken(
  url: string,
  prefix: string,
  users: readonly string[],
  policy: BucketPolicy,
): Promise<Map<string, number>> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const store = new RedisBucketStore(client, { prefix });
    const taken = new Map<string, number>();
    for (const user of users) taken.set(user, policy.capacity - (await store.peek(user, policy)).remaining);
    return taken;
  } finally {
    client.disconnect();
  }
}
