/**
 * Requests per second of a bare Apollo Server next to the same server with the budget plugin and a
 * RedisBucketStore: same schema, same query, alternating runs so that a change in machine load
 * hits both alike.
 *
 *   npx tsx bench/plugin-http.ts [--rounds 3] [--seconds 5] [--connections 16] [--first 10]
 *
 * Each server is `test/support/app-server.ts` in its own process (BARE=1 for the baseline); Redis
 * is a throw-away redis-server on a free port. The budget cannot run out (every request is charged,
 * none is rejected) and a store failure is a 503, counted as an error: the plugin's numbers are
 * those of requests it really charged.
 */
import autocannon, { type Result } from 'autocannon';
import { parseArgs } from 'node:util';
import { startAppServer, type AppServerProcess } from '../test/support/app-processes.js';
import { startRedisServer } from '../test/support/redis-server.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    first: { type: 'string', default: '10' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const first = Number(values.first);

const body = JSON.stringify({ query: `{ items(first: ${first}) { id } }` });
const headers = { 'content-type': 'application/json', 'x-test-user': 'bench-user' };

function run(url: string, duration: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, method: 'POST', headers, body, connections, duration }).then(resolve, reject);
  });
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function sampleOf(result: Result): Sample {
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

const redis = await startRedisServer();
const servers: Record<'bare' | 'plugin', AppServerProcess> = {
  bare: await startAppServer({ BARE: '1' }),
  plugin: await startAppServer({
    REDIS_URL: redis.url,
    CAPACITY: 1e12,
    REFILL_PER_SECOND: 1e9,
    ON_STORE_ERROR: 'deny',
    STORE_TIMEOUT_MS: 1000,
  }),
};

try {
  // Check that the plugin really charges, then warm both servers up.
  const probe = await fetch(servers.plugin.url, { method: 'POST', headers, body });
  const cost = ((await probe.json()) as { extensions?: { cost?: { requestedQueryCost: number } } }).extensions?.cost;
  if (probe.status !== 200 || !cost) throw new Error(`plugin server did not charge: ${probe.status}`);
  for (const name of ['bare', 'plugin'] as const) await run(servers[name].url, 2);

  const samples: Record<'bare' | 'plugin', Sample[]> = { bare: [], plugin: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['bare', 'plugin'] as const) : (['plugin', 'bare'] as const);
    for (const name of order) {
      const sample = sampleOf(await run(servers[name].url, seconds));
      samples[name].push(sample);
      console.log(
        `round ${round + 1} ${name.padEnd(6)} ${sample.rps.toFixed(0).padStart(6)} req/s  p50 ${sample.p50} ms  p99 ${sample.p99} ms  errors ${sample.errors}`,
      );
    }
  }
  const mean = (list: Sample[]): number => list.reduce((sum, sample) => sum + sample.rps, 0) / list.length;
  const bare = mean(samples.bare);
  const plugin = mean(samples.plugin);
  console.log(
    `\nquery { items(first: ${first}) { id } } (cost ${cost.requestedQueryCost}), ${connections} connections, ` +
      `${rounds} × ${seconds} s per server`,
  );
  console.log(`bare Apollo Server            ${bare.toFixed(0)} req/s`);
  console.log(`plugin + RedisBucketStore     ${plugin.toFixed(0)} req/s  (${((plugin / bare) * 100).toFixed(1)}% of bare)`);
} finally {
  await Promise.all([servers.bare.stop(), servers.plugin.stop()]);
  await redis.stop();
}
