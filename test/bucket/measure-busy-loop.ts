/**
 * How many store calls a busy event loop turns into timeouts while Redis is healthy: 100 times,
 * four consumes are issued and then a CPU-heavy stretch of 50–100 ms runs (other requests' work),
 * in the same callback in even rounds and in the next `setImmediate` in odd ones (there it runs
 * before node-redis writes the command); every call has `timeoutMs` 50. With `IDLE=1`, the same
 * calls with no busy stretch, 75 ms apart (a control for the host's own load).
 * Run: npx tsx test/bucket/measure-busy-loop.ts
 */
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import { CLIENTS, connectClient } from '../support/redis-clients.js';
import { startRedisServer } from '../support/redis-server.js';

const ROUNDS = 100;
const IDLE = process.env.IDLE === '1';
const policy = { capacity: 1_000_000, refillPerSecond: 1 };

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const server = await startRedisServer();
try {
  for (const name of CLIENTS) {
    const tested = await connectClient(name, server.port);
    const store = new RedisBucketStore(tested.client, { prefix: `m-${name}:` });
    await store.peek('warm', policy, { timeoutMs: 1000 });
    let calls = 0;
    let timeouts = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const issued = Array.from({ length: 4 }, (_, i) =>
        store.consume(`k${i}`, 1, policy, { timeoutMs: 50 }).then(
          () => undefined,
          () => {
            timeouts++;
          },
        ),
      );
      calls += issued.length;
      const stretch = 50 + (round % 11) * 5;
      if (IDLE) await new Promise((resolve) => setTimeout(resolve, 75));
      else if (round % 2 === 0) busy(stretch);
      else setImmediate(() => busy(stretch));
      await Promise.all(issued);
    }
    console.log(`${name}: ${timeouts} timeouts in ${calls} calls`);
    await tested.close();
  }
} finally {
  await server.stop();
}
