import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { assertClean, failures, load, type LoadResult } from '../http/load.js';
import type { VariantServer } from '../http/servers.js';
import { VARIANT_LABELS, type HttpVariant } from '../http/variants.js';
import { median, range, rotate } from '../lib/stats.js';
import {
  alternatingRounds,
  formatDeltaMs,
  formatPercent,
  formatInt,
  formatMs,
  formatUs,
  goalNote,
  ratioRow,
  type Row,
  type SectionResult,
} from '../lib/report.js';

export interface HttpThroughputOptions {
  servers: ReadonlyMap<HttpVariant, VariantServer>;
  /** A client of the benchmark's redis-server (its CPU time is sampled). */
  redis: Redis;
  /** Quick smoke runs: tolerate non-2xx answers (reported in the notes) on a busy machine. */
  lenient: boolean;
  connections: number;
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
}

/** Runs every server once per round, rotating the order; checks every response. */
async function alternate(
  servers: ReadonlyMap<HttpVariant, VariantServer>,
  variants: readonly HttpVariant[],
  rounds: number,
  lenient: boolean,
  run: (server: VariantServer) => Promise<LoadResult>,
): Promise<Map<HttpVariant, LoadResult[]>> {
  const results = new Map<HttpVariant, LoadResult[]>(variants.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(variants, round)) {
      const result = await run(servers.get(variant)!);
      assertClean(variant, result, lenient);
      results.get(variant)!.push(result);
    }
  }
  return results;
}

const totals = (results: readonly LoadResult[]): Record<string, number> => ({
  ok: results.reduce((sum, result) => sum + result.ok, 0),
  non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
  errors: results.reduce((sum, result) => sum + result.errors + result.timeouts, 0),
});

/** A sentence on how many measured responses were correct, saying plainly when some were not. */
function responseNote(results: ReadonlyMap<HttpVariant, LoadResult[]>): string {
  const all = [...results.values()].flat();
  const ok = all.reduce((sum, result) => sum + result.ok, 0);
  const bad = all.reduce((sum, result) => sum + failures(result), 0);
  if (bad === 0) {
    return `All ${formatInt(ok)} measured responses were 2xx with the expected body (0 non-2xx, 0 errors; every plugin response carried a real throttle status).`;
  }
  return `NOT CLEAN: ${formatInt(bad)} of ${formatInt(ok + bad)} measured responses were non-2xx, errors or timeouts (tolerated in a quick run only).`;
}

/** Server CPU time per request next to bare: what the plugin costs, whatever else runs on the machine. */
function cpuNote(results: ReadonlyMap<HttpVariant, LoadResult[]>): string {
  const cpu = (variant: HttpVariant): number => median(results.get(variant)!.map((result) => result.serverCpuMicros));
  const bare = cpu('bare');
  const redisOf = (variant: HttpVariant): number =>
    median(results.get(variant)!.map((result) => result.redisCpuMicros));
  const redis = redisOf('plugin-redis');
  const added = (variant: HttpVariant): string =>
    `${formatUs(cpu(variant) - bare)} (${formatPercent(cpu(variant) / bare - 1)})`;
  return (
    `Server CPU per request: bare ${formatUs(bare)}; the plugin adds ${added('plugin-memory')} with MemoryBucketStore, ` +
    `${added('plugin-redis')} with RedisBucketStore (plus ${formatUs(redis)} of redis-server CPU), ` +
    `${added('plugin-redis-unbatched')} with RedisBucketStore and batching off (plus ${formatUs(redisOf('plugin-redis-unbatched'))} of redis-server CPU), ` +
    `${added('plugin-redis-unpipelined')} with RedisBucketStore on a client without auto-pipelining; graphql-armor adds ${added('armor-cost-limit')}. ` +
    `Metrics: with MemoryBucketStore the plugin adds ${added('plugin-memory-metrics-off')} with metrics off, ` +
    `${added('plugin-memory')} with metrics on and no OpenTelemetry SDK (the API's no-op meter), ` +
    `${added('plugin-memory-otel-sdk')} with an SDK registered.`
  );
}

/**
 * Section 4: requests/s and latency of the example server at saturation over loopback, alternating
 * a bare Apollo Server, the plugin on each store, and graphql-armor's cost-limit rule.
 */
export async function httpThroughput(options: HttpThroughputOptions): Promise<SectionResult> {
  const started = performance.now();
  const { servers, redis, connections, rounds, seconds, warmUpSeconds, lenient } = options;
  const variants: HttpVariant[] = [
    'bare',
    'plugin-memory',
    'plugin-memory-metrics-off',
    'plugin-memory-otel-sdk',
    'plugin-redis',
    'plugin-redis-unbatched',
    'plugin-redis-unpipelined',
    'armor-cost-limit',
  ];
  const run = (server: VariantServer, runSeconds: number): Promise<LoadResult> =>
    load({ server, redis, connections, seconds: runSeconds });

  // Warm-up (JIT, script loading, the store's clock sample): not checked, not counted.
  for (const variant of variants) await run(servers.get(variant)!, warmUpSeconds);
  const results = await alternate(servers, variants, rounds, lenient, (server) => run(server, seconds));

  const bare = results.get('bare')!;
  const rows: Row[] = variants.map((variant) => {
    const runs = results.get(variant)!;
    const rates = runs.map((result) => result.requestsPerSecond);
    const [low, high] = range(rates);
    const p50 = median(runs.map((result) => result.p50));
    const p99 = median(runs.map((result) => result.p99));
    const cpu = median(runs.map((result) => result.serverCpuMicros));
    const redisCpu = median(runs.map((result) => result.redisCpuMicros));
    const cpuText = variant.startsWith('plugin-redis')
      ? `CPU ${formatUs(cpu)}/req + Redis ${formatUs(redisCpu)}/req`
      : `CPU ${formatUs(cpu)}/req`;
    const value = `${formatInt(median(rates))} req/s (${formatInt(low)}–${formatInt(high)}), p50 ${formatMs(p50)}, p99 ${formatMs(p99)}; ${cpuText}`;
    const metrics = {
      requestsPerSecondMedian: median(rates),
      p50Ms: p50,
      p99Ms: p99,
      serverCpuMicrosPerRequest: cpu,
      redisCpuMicrosPerRequest: redisCpu,
      ...totals(runs),
    };
    if (variant === 'bare') return { variant: VARIANT_LABELS[variant], value, metrics };
    const ratios = runs.map((result, round) => result.requestsPerSecond / bare[round]!.requestsPerSecond);
    return ratioRow(
      VARIANT_LABELS[variant],
      value,
      { ...metrics, ...Object.fromEntries(ratios.map((ratio, round) => [`ratioRound${round}`, ratio])) },
      { value: median(ratios), of: 'bare' },
      variant === 'plugin-redis' ? { op: '>=', target: 0.95 } : undefined,
    );
  });
  return {
    id: 'http-throughput',
    title: '4. HTTP throughput',
    method:
      `autocannon, ${connections} connections over loopback, one POST per request (a 10-book connection page with a fragment); ` +
      `each server in its own process; ${alternatingRounds(rounds)} of ${seconds} s; ratios are medians of per-round ratios to bare.`,
    rows,
    notes: [
      goalNote('Plugin + RedisBucketStore vs bare', rows[2]!),
      cpuNote(results),
      "graphql-armor's rule runs during validation, which Apollo Server caches per query document: with the same query on every request it runs once.",
      responseNote(results),
    ].filter((note): note is string => note !== undefined),
    seconds: (performance.now() - started) / 1000,
  };
}

export interface HttpLatencyOptions {
  servers: ReadonlyMap<HttpVariant, VariantServer>;
  redis: Redis;
  lenient: boolean;
  connections: number;
  /** Requests per second, far below saturation. */
  rate: number;
  rounds: number;
  seconds: number;
}

/** Section 5: p50/p99 added by the plugin at a fixed moderate request rate. */
export async function httpLatency(options: HttpLatencyOptions): Promise<SectionResult> {
  const started = performance.now();
  const { servers, redis, connections, rate, rounds, seconds, lenient } = options;
  const variants: HttpVariant[] = ['bare', 'plugin-memory', 'plugin-redis', 'plugin-redis-unbatched'];
  const results = await alternate(servers, variants, rounds, lenient, (server) =>
    load({ server, redis, connections, seconds, overallRate: rate }),
  );
  const bare = results.get('bare')!;
  const rows: Row[] = variants.map((variant) => {
    const runs = results.get(variant)!;
    const p50 = median(runs.map((result) => result.p50));
    const p99 = median(runs.map((result) => result.p99));
    const rps = median(runs.map((result) => result.requestsPerSecond));
    if (variant === 'bare') {
      return {
        variant: VARIANT_LABELS[variant],
        value: `p50 ${formatMs(p50)}, p99 ${formatMs(p99)} at ${formatInt(rps)} req/s`,
        metrics: { p50Ms: p50, p99Ms: p99, requestsPerSecond: rps, ...totals(runs) },
      };
    }
    const added50 = median(runs.map((result, round) => result.p50 - bare[round]!.p50));
    const added99 = median(runs.map((result, round) => result.p99 - bare[round]!.p99));
    const row: Row = {
      variant: VARIANT_LABELS[variant],
      value: `p50 ${formatMs(p50)} (${formatDeltaMs(added50)}), p99 ${formatMs(p99)} (${formatDeltaMs(added99)})`,
      metrics: {
        p50Ms: p50,
        p99Ms: p99,
        addedP50Ms: added50,
        addedP99Ms: added99,
        requestsPerSecond: rps,
        ...totals(runs),
      },
    };
    // The added p99 against its budget of 1 ms (a ratio of at most 1 meets it).
    if (variant !== 'plugin-redis') return row;
    return ratioRow(
      row.variant,
      row.value,
      row.metrics,
      { value: added99, of: 'the 1 ms p99 budget' },
      { op: '<=', target: 1 },
    );
  });
  return {
    id: 'http-latency',
    title: '5. Latency added by the plugin',
    method:
      `autocannon at a fixed ${rate} req/s (overallRate) over ${connections} connections, ${alternatingRounds(rounds)} of ${seconds} s; ` +
      `the added latency is the median of the per-round differences to bare.`,
    rows,
    notes: [goalNote('p99 added by plugin + RedisBucketStore', rows[2]!), responseNote(results)].filter(
      (note): note is string => note !== undefined,
    ),
    seconds: (performance.now() - started) / 1000,
  };
}
