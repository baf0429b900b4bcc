/**
 * Both stores on a clock the test sets (whole µs): Redis runs the real script with its test-clock
 * ARGV, `MemoryBucketStore` reads an injected clock. Each answers with a `BucketResult`.
 */
import type { Redis } from 'ioredis';
import type { RedisBucketClient } from '../../src/bucket/redis-client.js';
import type { BucketOp } from '../../src/bucket/bucket-math.js';
import { toBucketResult } from '../../src/bucket/bucket-math.js';
import { runBucketScript } from '../../src/bucket/run-bucket-script.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketPolicy, BucketResult } from '../../src/bucket/types.js';

export interface ClockedStore {
  name: 'redis' | 'memory';
  /** The rate the store keeps with a bucket's state (both keep it exactly). */
  keepRate: (rate: number) => number;
  call(key: string, op: BucketOp, amount: number, policy: BucketPolicy, nowUs: number): Promise<BucketResult>;
}

/** A fresh `MemoryBucketStore` on the test's clock. */
export function clockedMemory(): ClockedStore {
  let nowMs = 0;
  const store = new MemoryBucketStore({ now: () => nowMs });
  return {
    name: 'memory',
    keepRate: (rate) => rate,
    call(key, op, amount, policy, nowUs) {
      nowMs = nowUs / 1000;
      if (op === 'consume') return store.consume(key, amount, policy);
      if (op === 'refund') return store.refund(key, amount, policy);
      return store.peek(key, policy);
    },
  };
}

/** The script run through `client` (either client), every key under `prefix`. */
export function clockedRedis(client: RedisBucketClient, prefix: string): ClockedStore {
  return {
    name: 'redis',
    keepRate: (rate) => rate,
    async call(key, op, amount, policy, nowUs) {
      const sent = op === 'peek' ? 0 : amount;
      const reply = await runBucketScript(client, `${prefix}${key}`, {
        op,
        amount: sent,
        capacity: policy.capacity,
        refillPerSecond: policy.refillPerSecond,
        nowUs,
      });
      if (reply.status === 'expired') throw new Error('unexpected expired reply');
      return toBucketResult(reply, sent, policy.capacity);
    },
  };
}

/**
 * A test clock start (µs) 100 days after Redis' own time: keys expire in Redis' real time, so a
 * simulated clock ahead of it keeps them alive for the whole test.
 */
export async function clockAhead(client: Redis): Promise<number> {
  const [seconds, micros] = await client.time();
  return (Number(seconds) + 100 * 86_400) * 1_000_000 + Number(micros);
}
