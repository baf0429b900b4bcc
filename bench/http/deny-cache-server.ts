/**
 * The bookstore example behind the plugin on a RedisBucketStore, for the deny-cache section: one
 * abusive caller (`x-bench-caller: abuser`, 100 tokens refilling 10 per second) and well-behaved
 * ones (any other value, a budget no run can spend). Counts the store calls made for each.
 *
 *   node .build/bench/http/deny-cache-server.js <redis-url> <on|off>     (compiled by scripts/build-bench.ts)
 *
 * Sends `{ url }` when listening; answers `'counts'` with `{ abuser, others }` store calls so far and
 * `cpuUs`, the CPU time (user + system) this process has used.
 */
import '../lib/production-env.js';
import { readFileSync } from 'node:fs';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { Redis } from 'ioredis';
import {
  costDirectivesTypeDefs,
  queryBudgetPlugin,
  RedisBucketStore,
  type BucketCallOptions,
  type BucketPolicy,
  type BucketResult,
  type BucketStore,
} from 'graphql-budget';
import { Catalogue } from '../../examples/bookstore/data.js';
import { resolvers } from '../../examples/bookstore/resolvers.js';
import { repoFile } from '../lib/paths.js';
import { UNLIMITED_POLICY } from './variants.js';

const ABUSER_POLICY: BucketPolicy = { capacity: 100, refillPerSecond: 10 };

/** The Redis store, counting its calls per caller (both callers have one bucket: `consume` and `refund`). */
class CountingStore implements BucketStore {
  abuser = 0;
  others = 0;
  constructor(private readonly inner: RedisBucketStore) {}
  #count(key: string): void {
    if (key.startsWith('abuser')) this.abuser += 1;
    else this.others += 1;
  }
  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.#count(key);
    return this.inner.consume(key, cost, policy, options);
  }
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.#count(key);
    return this.inner.refund(key, amount, policy, options);
  }
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.#count(key);
    return this.inner.peek(key, policy, options);
  }
}

async function main(): Promise<void> {
  const [redisUrl, cache] = process.argv.slice(2);
  const typeDefs = readFileSync(repoFile('examples/bookstore/schema.graphql'), 'utf8');
  const client = new Redis(String(redisUrl), { enableAutoPipelining: true, maxRetriesPerRequest: 0 });
  const store = new CountingStore(new RedisBucketStore(client, { prefix: 'deny-bench:' }));
  const catalogue = new Catalogue();
  const server = new ApolloServer<{ caller: string; catalogue: Catalogue }>({
    typeDefs: [costDirectivesTypeDefs, typeDefs],
    resolvers,
    plugins: [
      queryBudgetPlugin<{ caller: string; catalogue: Catalogue }>({
        store,
        identify: ({ contextValue }) => contextValue.caller,
        policy: ({ contextValue }) => (contextValue.caller === 'abuser' ? ABUSER_POLICY : UNLIMITED_POLICY),
        onStoreError: 'deny',
        tuning: { storeTimeoutMs: 1000, denyCacheMaxEntries: cache === 'off' ? 0 : 10_000 },
      }),
    ],
  });
  const { url } = await startStandaloneServer(server, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => ({ catalogue, caller: String(req.headers['x-bench-caller'] ?? 'anonymous') }),
  });
  process.send?.({ url });
  process.on('message', (message: unknown) => {
    if (message === 'counts') {
      const { user, system } = process.cpuUsage();
      process.send?.({ abuser: store.abuser, others: store.others, cpuUs: user + system });
    }
  });
  process.once('disconnect', () => {
    void server
      .stop()
      .then(() => client.disconnect())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
