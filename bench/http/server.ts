/**
 * One variant of the bookstore example in its own process, for the HTTP sections: started by
 * bench/http/servers.ts with `fork`, it listens on a free loopback port and sends `{ url }` back.
 *
 *   node .build/bench/http/server.js <variant> [redis-url]     (compiled by scripts/build-bench.ts)
 *
 * Every variant serves the example's schema, resolvers and data; they differ only in what guards
 * them. The budget is far larger than a run can spend: the benchmark measures the plugin's
 * overhead, not rejections.
 */
import '../lib/production-env.js';
import { readFileSync } from 'node:fs';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { Redis } from 'ioredis';
import { costDirectivesTypeDefs, queryBudgetPlugin, RedisBucketStore } from 'graphql-budget';
import { callerFromRequest } from '../../examples/bookstore/callers.js';
import { Catalogue } from '../../examples/bookstore/data.js';
import { resolvers, type BookstoreContext } from '../../examples/bookstore/resolvers.js';
import { storeFromEnv } from '../../examples/bookstore/stores.js';
import { repoFile } from '../lib/paths.js';
import { hasPlugin, isHttpVariant, UNLIMITED_POLICY } from './variants.js';

async function main(): Promise<void> {
  const [variant, redisUrl] = process.argv.slice(2);
  if (!isHttpVariant(variant)) throw new RangeError(`unknown variant ${String(variant)}`);
  const typeDefs = readFileSync(repoFile('examples/bookstore/schema.graphql'), 'utf8');

  // The example's own store selection: MemoryBucketStore, or RedisBucketStore when REDIS_URL is set.
  const selected = storeFromEnv(variant === 'plugin-redis' ? { REDIS_URL: redisUrl } : {});
  if (!(await selected.ready())) throw new Error(`store not ready: ${selected.description}`);
  // The example's client auto-pipelines (the commands of concurrent requests leave in one socket
  // write per event-loop turn); this variant shows what one write per command costs.
  const unpipelined =
    variant === 'plugin-redis-unpipelined'
      ? new Redis(String(redisUrl), { maxRetriesPerRequest: 0, enableOfflineQueue: false, enableAutoPipelining: false })
      : undefined;
  // The example's client options with a store that sends each operation in a call of its own.
  const unbatched =
    variant === 'plugin-redis-unbatched'
      ? new Redis(String(redisUrl), {
          enableAutoPipelining: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          autoResendUnfulfilledCommands: false,
        })
      : undefined;
  const store = unpipelined
    ? new RedisBucketStore(unpipelined)
    : unbatched
      ? new RedisBucketStore(unbatched, { batch: false })
      : selected.store;

  if (variant === 'plugin-memory-otel-sdk') {
    // A real SDK aggregating every record (a Prometheus reader that is never scraped here).
    metrics.setGlobalMeterProvider(
      new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] }),
    );
  }
  const plugins: ApolloServerPlugin<BookstoreContext>[] = [];
  if (hasPlugin(variant)) {
    plugins.push(
      queryBudgetPlugin<BookstoreContext>({
        store,
        identify: ({ contextValue }) => contextValue.caller.id,
        policy: UNLIMITED_POLICY,
        // Every measured request must really be charged: a store failure is a 503 (counted and
        // reported), never a silent pass, and a busy machine gets 1 s before that happens.
        onStoreError: 'deny',
        tuning: { storeTimeoutMs: 1000 },
        metrics: variant !== 'plugin-memory-metrics-off',
      }),
    );
  }
  const catalogue = new Catalogue();
  const server = new ApolloServer<BookstoreContext>({
    typeDefs: [costDirectivesTypeDefs, typeDefs],
    resolvers,
    plugins,
    // graphql-armor's cost limit in Apollo Server: its `costLimitRule` as a validation rule.
    validationRules: variant === 'armor-cost-limit' ? [costLimitRule({ maxCost: 1_000_000_000 })] : [],
  });
  const { url } = await startStandaloneServer(server, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => ({ catalogue, caller: callerFromRequest(req) }),
  });
  process.send?.({ url });
  // The parent asks for this process's CPU time before and after each run (CPU per request).
  process.on('message', (message: unknown) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send?.({ cpuMicros: usage.user + usage.system });
    }
  });
  process.once('disconnect', () => {
    void server
      .stop()
      .then(() => selected.close())
      .then(() => unpipelined?.disconnect())
      .then(() => unbatched?.disconnect())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
