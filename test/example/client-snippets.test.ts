/**
 * The client snippets of docs/operations.md ("Adding the plugin"), one per client, run as written
 * against a Redis this file owns and kills: each gives a store that charges, fails at once while
 * Redis is down (no offline queue: a `BucketStoreError`, not a timeout), and charges again within
 * a second of Redis' return (a short reconnect strategy).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BucketStoreError, BucketStoreTimeoutError, type RedisBucketStore } from '../../src/index.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const OPERATIONS = readFileSync(join(root, 'docs/operations.md'), 'utf8');
const POLICY = { capacity: 100, refillPerSecond: 0 };

/** The code block right after `<!-- client: name -->`. */
function snippet(name: string): string {
  const match = new RegExp(`<!-- client: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(OPERATIONS);
  if (!match) throw new Error(`docs/operations.md: no ts block marked <!-- client: ${name} -->`);
  return match[1] as string;
}

/** What a snippet module leaves: its client and its store. */
interface SnippetModule {
  redis: { disconnect?: () => void; destroy?: () => void };
  store: RedisBucketStore;
}

describe.each(['ioredis', 'node-redis'])('the %s client snippet of docs/operations.md', (name) => {
  let server: RedisServer;
  let module: SnippetModule;
  const dir = join(root, '.scratch');
  const file = join(dir, `client-snippet-${name}-${process.pid}.ts`);

  beforeAll(async () => {
    server = await startRedisServer();
    process.env.REDIS_URL = server.url;
    mkdirSync(dir, { recursive: true });
    const source = snippet(name).replace("from 'graphql-budget'", "from '../src/index.js'");
    writeFileSync(file, `${source}\nexport { redis, store };\n`);
    module = (await import(pathToFileURL(file).href)) as SnippetModule;
  });
  afterAll(async () => {
    module?.redis.destroy?.();
    module?.redis.disconnect?.();
    rmSync(file, { force: true });
    await server?.stop();
  });

  /** Consumes until a call is charged (within 3 s); resolves with the ms it took. */
  const untilCharged = async (store: RedisBucketStore): Promise<number> => {
    const from = performance.now();
    while (performance.now() - from < 3000) {
      const result = await store.consume('caller', 1, POLICY, { timeoutMs: 100 }).catch(() => undefined);
      if (result?.allowed) return performance.now() - from;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no call was charged within 3 s');
  };

  it('charges, fails at once while Redis is down, and charges again soon after it is back', async () => {
    const { store } = module;
    await untilCharged(store); // ioredis connects in the background: without a queue, calls fail until it has

    await server.kill();
    const started = performance.now();
    const error = await store.consume('caller', 1, POLICY, { timeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BucketStoreError);
    expect(error).not.toBeInstanceOf(BucketStoreTimeoutError);
    // At once: well before the call's 500 ms deadline, which waiting on the dead socket would reach.
    expect(performance.now() - started).toBeLessThan(400);

    await server.restart();
    expect(await untilCharged(store)).toBeLessThan(1000);
  });
});
